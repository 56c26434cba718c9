/**
 * One organization for the operator: its transfers and delivery health, edit any directory field
 * and its contact address, its keys (issued with a scope), its webhook secret.
 */
import { useEffect, useState } from 'preact/hooks';
import { fieldErrors, type KeyScope, type Organization, unwrap } from '../api.js';
import { ApiKeysPanel } from '../components/api-keys.js';
import { Field, FormError, textBinder } from '../components/forms.js';
import { ErrorNote, Fact, Loading } from '../components/ui.js';
import { WebhookSecretPanel } from '../components/webhook-secret.js';
import { useAction, useFocusOnMount } from '../hooks.js';
import { useAnnounce, useMay, useSession } from '../session.js';
import { OrganizationActivity } from './operator-organization-health.js';

export function OperatorOrganization({ id }: { id: string }) {
  const { client } = useSession();
  const [org, setOrg] = useState<Organization | null>(null);
  const [error, setError] = useState<unknown>(null);
  const heading = useFocusOnMount<HTMLHeadingElement>(org !== null);
  const mayChange = useMay('admin');

  useEffect(() => {
    unwrap(client.GET('/v1/admin/organizations/{id}', { params: { path: { id } } })).then(setOrg, setError);
  }, [id]);

  return (
    <section aria-labelledby="org-heading">
      <p class="crumbs">
        <a href="#/organizations">← Organizations</a>
      </p>
      <h1 id="org-heading" ref={heading} tabIndex={-1}>
        {org ? org.name : 'Organization'}
      </h1>
      <ErrorNote error={error} />
      {!org ? (
        error ? null : (
          <Loading what="the organization" />
        )
      ) : !mayChange ? (
        <>
          <OrganizationFacts org={org} />
          <OrganizationActivity id={org.id} />
        </>
      ) : (
        <>
          <OrganizationActivity id={org.id} />
          <EditOrganization org={org} onSaved={setOrg} />
          <div class="columns">
            <Keys orgId={org.id} />
            <Secret orgId={org.id} />
          </div>
        </>
      )}
    </section>
  );
}

/** What an operator viewer sees of an organization: its entry, without the controls. */
function OrganizationFacts({ org }: { org: Organization }) {
  const none = <span class="muted">none</span>;
  return (
    <dl class="facts panel">
      <Fact label="DID">
        <span class="did">{org.vaspDid}</span>
      </Fact>
      <Fact label="Status">{org.organizationType}</Fact>
      <Fact label="Travel endpoint">
        <span class="mono break">{org.travelEndpoint ?? none}</span>
      </Fact>
      <Fact label="Contact e-mail">{org.contactEmail ?? none}</Fact>
      <Fact label="Public key">{org.publicKey ? 'set' : none}</Fact>
      <Fact label="Jurisdiction">{org.jurisdiction ?? none}</Fact>
      <Fact label="LEI">{org.lei ?? none}</Fact>
    </dl>
  );
}

function EditOrganization({ org, onSaved }: { org: Organization; onSaved: (o: Organization) => void }) {
  const { client } = useSession();
  const announce = useAnnounce();
  const [form, setForm] = useState(() => ({
    name: org.name,
    vaspDid: org.vaspDid,
    travelEndpoint: org.travelEndpoint ?? '',
    contactEmail: org.contactEmail ?? '',
    publicKey: org.publicKey ?? '',
    organizationType: org.organizationType,
    ivms101Version: org.ivms101Version,
    jurisdiction: org.jurisdiction ?? '',
    lei: org.lei ?? '',
  }));
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);
  const text = textBinder(form, setForm);

  const submit = (e: Event) => {
    e.preventDefault();
    const body: Record<string, string | null> = {};
    if (form.name.trim() !== org.name) body.name = form.name.trim();
    if (form.vaspDid.trim() !== org.vaspDid) body.vaspDid = form.vaspDid.trim();
    if ((form.travelEndpoint.trim() || null) !== org.travelEndpoint)
      body.travelEndpoint = form.travelEndpoint.trim() || null;
    if ((form.contactEmail.trim() || null) !== org.contactEmail)
      body.contactEmail = form.contactEmail.trim() || null;
    if ((form.publicKey.trim() || null) !== (org.publicKey?.trim() || null))
      body.publicKey = form.publicKey.trim() || null;
    if (form.organizationType !== org.organizationType) body.organizationType = form.organizationType;
    if (form.ivms101Version !== org.ivms101Version) body.ivms101Version = form.ivms101Version;
    if ((form.jurisdiction.trim().toUpperCase() || null) !== org.jurisdiction)
      body.jurisdiction = form.jurisdiction.trim().toUpperCase() || null;
    if ((form.lei.trim().toUpperCase() || null) !== org.lei) body.lei = form.lei.trim().toUpperCase() || null;
    if (Object.keys(body).length === 0) {
      announce('Nothing changed.');
      return;
    }
    run(async () => {
      const updated = await unwrap(
        client.PATCH('/v1/admin/organizations/{id}', {
          params: { path: { id: org.id } },
          body: body as never,
        }),
      );
      onSaved(updated);
      announce('Saved.');
    });
  };

  return (
    <form class="panel grid-form" onSubmit={submit} aria-labelledby="edit-heading" noValidate>
      <h2 id="edit-heading" class="wide">
        Directory entry
      </h2>
      <Field id="edit-name" label="Name" error={problems.name}>
        {(aria) => <input {...aria} {...text('name')} required />}
      </Field>
      <Field id="edit-vaspDid" label="DID" error={problems.vaspDid}>
        {(aria) => <input {...aria} {...text('vaspDid')} required class="mono" spellcheck={false} />}
      </Field>
      <Field id="edit-travelEndpoint" label="Travel endpoint" error={problems.travelEndpoint}>
        {(aria) => <input {...aria} {...text('travelEndpoint')} type="url" class="mono" />}
      </Field>
      <Field
        id="edit-contactEmail"
        label="Contact e-mail"
        error={problems.contactEmail}
        hint="Told of changes to the travel endpoint and public key; not in the directory."
      >
        {(aria) => <input {...aria} {...text('contactEmail')} type="email" spellcheck={false} />}
      </Field>
      <Field
        id="edit-jurisdiction"
        label="Jurisdiction"
        error={problems.jurisdiction}
        hint="ISO 3166-1 alpha-2; its travel rule applies to the organization's transfers."
      >
        {(aria) => (
          <input {...aria} {...text('jurisdiction')} class="mono" maxLength={2} spellcheck={false} />
        )}
      </Field>
      <Field id="edit-lei" label="LEI" error={problems.lei}>
        {(aria) => <input {...aria} {...text('lei')} class="mono" maxLength={20} spellcheck={false} />}
      </Field>
      <Field id="edit-type" label="Status">
        {(aria) => (
          <select
            {...aria}
            value={form.organizationType}
            onChange={(e) =>
              setForm({
                ...form,
                organizationType: e.currentTarget.value as Organization['organizationType'],
              })
            }
          >
            <option value="unverified">unverified</option>
            <option value="verified">verified</option>
          </select>
        )}
      </Field>
      <Field id="edit-ivms101Version" label="IVMS101 version" hint="What it receives personal data in.">
        {(aria) => (
          <select
            {...aria}
            value={form.ivms101Version}
            onChange={(e) =>
              setForm({ ...form, ivms101Version: e.currentTarget.value as Organization['ivms101Version'] })
            }
          >
            <option value="2020">2020</option>
            <option value="2023">2023</option>
          </select>
        )}
      </Field>
      <Field id="edit-publicKey" label="Public key (PEM)" error={problems.publicKey} wide>
        {(aria) => <textarea {...aria} {...text('publicKey')} rows={5} class="mono" spellcheck={false} />}
      </Field>
      <FormError error={error} />
      <div class="field wide">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}

function Keys({ orgId }: { orgId: string }) {
  const { client } = useSession();
  const path = { id: orgId };
  return (
    <ApiKeysPanel
      headingId="org-keys-heading"
      tableLabel="API keys of the organization"
      issueLabel="Issue API key"
      revokeWarning="The organization's systems using it stop working."
      list={async () =>
        (await unwrap(client.GET('/v1/admin/organizations/{id}/api-keys', { params: { path } }))).apiKeys
      }
      issue={async (scope: KeyScope) =>
        (
          await unwrap(
            client.POST('/v1/admin/organizations/{id}/api-keys', { params: { path }, body: { scope } }),
          )
        ).apiKey
      }
      revoke={(keyId) => unwrap(client.DELETE('/v1/admin/api-keys/{keyId}', { params: { path: { keyId } } }))}
    />
  );
}

function Secret({ orgId }: { orgId: string }) {
  const { client } = useSession();
  return (
    <WebhookSecretPanel
      headingId="org-secret-heading"
      title="Webhook secret"
      rotate={() =>
        unwrap(
          client.POST('/v1/admin/organizations/{id}/webhook-secret', { params: { path: { id: orgId } } }),
        )
      }
    >
      <p class="small">Rotating issues a new secret; the previous one keeps signing for 24 hours.</p>
    </WebhookSecretPanel>
  );
}
