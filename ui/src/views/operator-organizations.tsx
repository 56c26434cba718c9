/**
 * The operator's directory: every organization, verify/unverify in place (Verify vouches for the
 * name to every member, so it asks first, in a dialog), and registration.
 */
import { useEffect, useState } from 'preact/hooks';
import { type CreatedOrganization, fieldErrors, type Organization, unwrap } from '../api.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Field, FormError, textBinder } from '../components/forms.js';
import { ErrorNote, ListTable, Loading, OnceSecret, PageHead } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { href } from '../router.js';
import { useAnnounce, useMay, useSession } from '../session.js';

const COLUMNS = [
  'Name',
  'DID',
  'Travel endpoint',
  'Public key',
  'Status',
  { label: 'Actions', hidden: true },
];

export function OperatorOrganizations() {
  const { client } = useSession();
  const mayChange = useMay('admin');
  const announce = useAnnounce();
  const [orgs, setOrgs] = useState<Organization[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  // The organization whose verification waits for the operator's yes.
  const [toVerify, setToVerify] = useState<Organization | null>(null);

  const load = () =>
    unwrap(client.GET('/v1/admin/organizations')).then((r) => {
      setOrgs(r.organizations);
      setError(null);
    }, setError);
  useEffect(() => {
    load();
  }, []);

  const setVerified = async (org: Organization, verified: boolean) => {
    setBusy(org.id);
    try {
      await unwrap(
        client.PATCH('/v1/admin/organizations/{id}', {
          params: { path: { id: org.id } },
          body: { organizationType: verified ? 'verified' : 'unverified' },
        }),
      );
      announce(`${org.name} is now ${verified ? 'verified' : 'unverified'}.`);
      await load();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="orgs-heading">
      <PageHead id="orgs-heading" title="Organizations">
        <p class="muted small">
          The hub’s directory. Verify an organization once you have checked who it is.
        </p>
      </PageHead>
      <ErrorNote error={error} />
      {orgs === null ? (
        <Loading what="organizations" />
      ) : orgs.length === 0 ? (
        <p class="empty">No organization yet: register the first one below.</p>
      ) : (
        <ListTable label="Organizations" columns={COLUMNS}>
          {orgs.map((o) => (
            <tr key={o.id}>
              <td data-label="Name">
                <a href={href('organizations', o.id)}>{o.name}</a>
              </td>
              <td data-label="DID" class="did">
                {o.vaspDid}
              </td>
              <td data-label="Endpoint" class="mono small break">
                {o.travelEndpoint ?? <span class="muted">none</span>}
              </td>
              <td data-label="Public key">{o.publicKey ? 'set' : <span class="muted">none</span>}</td>
              <td data-label="Status">
                <span class={`badge badge-${o.organizationType}`}>{o.organizationType}</span>
              </td>
              <td data-label="Actions">
                {mayChange ? (
                  <button
                    type="button"
                    class={o.organizationType === 'verified' ? 'secondary small-button' : 'small-button'}
                    disabled={busy === o.id}
                    onClick={() =>
                      o.organizationType === 'verified' ? setVerified(o, false) : setToVerify(o)
                    }
                    aria-label={`${o.organizationType === 'verified' ? 'Unverify' : 'Verify'} ${o.name}`}
                  >
                    {o.organizationType === 'verified' ? 'Unverify' : 'Verify'}
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      {mayChange ? <CreateOrganization onCreated={load} /> : null}
      <ConfirmDialog
        id="verify-dialog"
        open={toVerify !== null}
        step={{
          title: `Verify ${toVerify?.name ?? ''}?`,
          body: (
            <p>
              Every member then sees <strong>{toVerify?.name}</strong> ({toVerify?.vaspDid}) with the verified
              badge: the hub vouches that the name belongs to whoever holds this organization’s keys. Verify
              only once you have checked who it is.
            </p>
          ),
          yes: 'Yes, verify',
        }}
        onBack={() => setToVerify(null)}
        onYes={() => {
          const org = toVerify;
          setToVerify(null);
          if (org) setVerified(org, true);
        }}
      />
    </section>
  );
}

const EMPTY = { name: '', vaspDid: '', travelEndpoint: '', contactEmail: '', publicKey: '', verified: false };

function CreateOrganization({ onCreated }: { onCreated: () => void }) {
  const { client } = useSession();
  const announce = useAnnounce();
  const [form, setForm] = useState(EMPTY);
  const [created, setCreated] = useState<CreatedOrganization | null>(null);
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);
  const text = textBinder(form, setForm);

  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const body = {
        name: form.name.trim(),
        vaspDid: form.vaspDid.trim(),
        ...(form.travelEndpoint.trim() ? { travelEndpoint: form.travelEndpoint.trim() } : {}),
        ...(form.contactEmail.trim() ? { contactEmail: form.contactEmail.trim() } : {}),
        ...(form.publicKey.trim() ? { publicKey: form.publicKey.trim() } : {}),
        organizationType: form.verified ? ('verified' as const) : ('unverified' as const),
      };
      const r = await unwrap(client.POST('/v1/admin/organizations', { body }));
      setCreated(r);
      setForm(EMPTY);
      announce(`${r.organization.name} registered. Copy its API key and webhook secret now.`);
      onCreated();
    });
  };

  return (
    <section class="panel" aria-labelledby="register-heading">
      <h2 id="register-heading">Register an organization</h2>
      {created ? (
        <div class="note note-ok">
          <p>
            <strong>{created.organization.name}</strong> is registered. Hand these to the organization
            securely:
          </p>
          <OnceSecret label="API key" value={created.apiKey} />
          <OnceSecret label="Webhook secret" value={created.webhookSecret} takeFocus={false} />
          <button type="button" class="secondary" onClick={() => setCreated(null)}>
            Done, I have stored them
          </button>
        </div>
      ) : null}
      <form onSubmit={submit} class="grid-form" noValidate>
        <Field id="new-name" label="Name" error={problems.name}>
          {(aria) => <input {...aria} {...text('name')} required maxLength={200} />}
        </Field>
        <Field id="new-vaspDid" label="DID" error={problems.vaspDid}>
          {(aria) => (
            <input
              {...aria}
              {...text('vaspDid')}
              required
              class="mono"
              placeholder="did:web:vasp.example"
              spellcheck={false}
            />
          )}
        </Field>
        <Field id="new-travelEndpoint" label="Travel endpoint (optional)" error={problems.travelEndpoint}>
          {(aria) => (
            <input
              {...aria}
              {...text('travelEndpoint')}
              type="url"
              class="mono"
              placeholder="https://vasp.example/travel"
            />
          )}
        </Field>
        <Field id="new-contactEmail" label="Contact e-mail (optional)" error={problems.contactEmail}>
          {(aria) => (
            <input
              {...aria}
              {...text('contactEmail')}
              type="email"
              placeholder="compliance@vasp.example"
              spellcheck={false}
            />
          )}
        </Field>
        <Field id="new-publicKey" label="Public key, PEM (optional)" error={problems.publicKey} wide>
          {(aria) => <textarea {...aria} {...text('publicKey')} rows={3} class="mono" spellcheck={false} />}
        </Field>
        <div class="field wide check">
          <input
            id="new-verified"
            type="checkbox"
            checked={form.verified}
            onChange={(e) => setForm({ ...form, verified: e.currentTarget.checked })}
          />
          <label for="new-verified">Verified already</label>
        </div>
        <FormError error={error} />
        <div class="field wide">
          <button type="submit" disabled={busy || !form.name.trim() || !form.vaspDid.trim()}>
            {busy ? 'Registering…' : 'Register organization'}
          </button>
        </div>
      </form>
    </section>
  );
}
