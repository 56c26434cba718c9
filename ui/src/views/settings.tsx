/**
 * The organization's own settings: name, contact address, travel endpoint and public key
 * (validated by the hub, problems shown at the fields), a signed test event, webhook secret
 * rotation, API keys (new secrets shown once) and single sign-on (sso-settings.tsx). A rename of a verified organization costs the
 * badge until the operator verifies it again (SPEC §13): the form says so before saving and asks
 * once more. A read-only session sees the same facts and no control that would change them.
 */
import { useState } from 'preact/hooks';
import { fieldErrors, type KeyScope, type Organization, type TestEventResult, unwrap } from '../api.js';
import { ApiKeysPanel } from '../components/api-keys.js';
import { Field, FormError, textBinder } from '../components/forms.js';
import { SingleSignOn } from '../components/sso-settings.js';
import { ErrorNote, Fact, PageHead } from '../components/ui.js';
import { WebhookSecretPanel } from '../components/webhook-secret.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useMay, useOrg, useUpdateMe } from '../session.js';

export function Settings() {
  const { me } = useOrg();
  const canWrite = useMay('admin');
  return (
    <section aria-labelledby="settings-heading">
      <PageHead id="settings-heading" title="Settings">
        <p class="muted small">
          {me.name} · <span class="did">{me.vaspDid}</span> · <VerifiedState org={me} />
        </p>
      </PageHead>
      {canWrite ? (
        <div class="columns">
          <EntryForm />
          <div>
            <TestEvent />
            <WebhookSecret />
          </div>
        </div>
      ) : (
        <>
          <p class="note note-info">
            You are signed in with a read-only key: the settings are shown here, and changing them needs a key
            with the full scope.
          </p>
          <EntryFacts org={me} />
        </>
      )}
      <ApiKeys />
      {canWrite ? <SingleSignOn /> : null}
    </section>
  );
}

function VerifiedState({ org }: { org: Organization }) {
  return <>{org.organizationType === 'verified' ? 'verified by the operator' : 'not verified'}</>;
}

const formOf = (me: Organization) => ({
  name: me.name,
  contactEmail: me.contactEmail ?? '',
  travelEndpoint: me.travelEndpoint ?? '',
  publicKey: me.publicKey ?? '',
  ivms101Version: me.ivms101Version,
  jurisdiction: me.jurisdiction ?? '',
  lei: me.lei ?? '',
});

/** The fields that differ from the entry, trimmed; an emptied optional field becomes null. */
function changes(form: ReturnType<typeof formOf>, me: Organization) {
  const patch: {
    name?: string;
    contactEmail?: string | null;
    travelEndpoint?: string | null;
    publicKey?: string | null;
    ivms101Version?: Organization['ivms101Version'];
    jurisdiction?: string | null;
    lei?: string | null;
  } = {};
  const optional = (v: string) => v.trim() || null;
  if (form.ivms101Version !== me.ivms101Version) patch.ivms101Version = form.ivms101Version;
  if (form.name.trim() !== me.name) patch.name = form.name.trim();
  if (optional(form.contactEmail) !== me.contactEmail) patch.contactEmail = optional(form.contactEmail);
  if (optional(form.travelEndpoint) !== me.travelEndpoint)
    patch.travelEndpoint = optional(form.travelEndpoint);
  if (optional(form.publicKey) !== (me.publicKey?.trim() || null)) patch.publicKey = optional(form.publicKey);
  const upper = (v: string) => optional(v)?.toUpperCase() ?? null;
  if (upper(form.jurisdiction) !== me.jurisdiction) patch.jurisdiction = upper(form.jurisdiction);
  if (upper(form.lei) !== me.lei) patch.lei = upper(form.lei);
  return patch;
}

function EntryForm() {
  const session = useOrg();
  const { me } = session;
  const announce = useAnnounce();
  const updateMe = useUpdateMe();
  const [form, setForm] = useState(() => formOf(me));
  // What the last save did to the badge, shown under the form until the next save.
  const [outcome, setOutcome] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);
  const text = textBinder(form, setForm);
  const renaming = form.name.trim() !== me.name && me.organizationType === 'verified';

  const submit = (e: Event) => {
    e.preventDefault();
    const patch = changes(form, me);
    if (Object.keys(patch).length === 0) {
      announce('Nothing changed.');
      return;
    }
    if (
      patch.name !== undefined &&
      me.organizationType === 'verified' &&
      !window.confirm(
        `Rename “${me.name}” to “${patch.name}”? The organization becomes unverified until the operator verifies the new name.`,
      )
    ) {
      return;
    }
    setOutcome(null);
    run(async () => {
      const updated = await unwrap(session.client.PATCH('/v1/organizations/me', { body: patch }));
      updateMe(updated);
      setForm(formOf(updated));
      const lostBadge = updated.organizationType !== me.organizationType;
      const message = lostBadge
        ? `Saved. ${updated.name} is now ${updated.organizationType}: the operator verifies the new name before the badge returns.`
        : 'Settings saved.';
      setOutcome(lostBadge ? message : null);
      announce(message);
    });
  };

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="entry-heading" noValidate>
      <h2 id="entry-heading">Organization</h2>
      <Field
        id="org-name"
        label="Name"
        error={problems.name}
        hint={
          renaming ? (
            <strong class="warn-text">
              Renaming makes the organization unverified until the operator verifies the new name.
            </strong>
          ) : (
            'As other organizations see it in the directory.'
          )
        }
      >
        {(aria) => <input {...aria} {...text('name')} required maxLength={200} />}
      </Field>
      <Field
        id="contact-email"
        label="Contact e-mail"
        error={problems.contactEmail}
        hint="The hub tells this address when the travel endpoint or public key changes. Not shown in the directory."
      >
        {(aria) => (
          <input
            {...aria}
            {...text('contactEmail')}
            type="email"
            autocomplete="email"
            placeholder="compliance@vasp.example"
            spellcheck={false}
          />
        )}
      </Field>
      <Field
        id="jurisdiction"
        label="Jurisdiction"
        error={problems.jurisdiction}
        hint="ISO 3166-1 alpha-2 country whose travel rule binds you (e.g. DE). Its rules then apply to your transfers."
      >
        {(aria) => (
          <input
            {...aria}
            {...text('jurisdiction')}
            class="mono"
            maxLength={2}
            placeholder="DE"
            spellcheck={false}
          />
        )}
      </Field>
      <Field
        id="lei"
        label="LEI"
        error={problems.lei}
        hint="Your Legal Entity Identifier (ISO 17442, 20 characters)."
      >
        {(aria) => <input {...aria} {...text('lei')} class="mono" maxLength={20} spellcheck={false} />}
      </Field>
      <Field
        id="travel-endpoint"
        label="Travel endpoint"
        error={problems.travelEndpoint}
        hint={
          <>
            Base URL; webhooks go to <code>{'{endpoint}'}/v1/notify/&lt;event&gt;</code>. Leave empty to
            receive none.
          </>
        }
      >
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
      <Field
        id="public-key"
        label="Public key (PEM)"
        error={problems.publicKey}
        hint="X25519, P-256 or RSA (2048 bits or more), SubjectPublicKeyInfo. BASIC transfers to you are encrypted to it."
      >
        {(aria) => (
          <textarea
            {...aria}
            {...text('publicKey')}
            class="mono"
            rows={6}
            placeholder={'-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----'}
            spellcheck={false}
          />
        )}
      </Field>
      <Field
        id="ivms101-version"
        label="IVMS101 version"
        error={problems.ivms101Version}
        hint="The version personal data reaches you in: confirmed-data, the received JWE and the personal data page. Senders may write either."
      >
        {(aria) => (
          <select
            {...aria}
            value={form.ivms101Version}
            onChange={(e) =>
              setForm({ ...form, ivms101Version: e.currentTarget.value as Organization['ivms101Version'] })
            }
          >
            <option value="2020">IVMS101 2020 (the hub’s interface shape)</option>
            <option value="2023">IVMS101.2023</option>
          </select>
        )}
      </Field>
      <FormError error={error} />
      {outcome ? <p class="note note-info">{outcome}</p> : null}
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Save'}
      </button>
    </form>
  );
}

/** The entry as facts, for a session that may not change it. */
function EntryFacts({ org }: { org: Organization }) {
  const none = <span class="muted">none</span>;
  return (
    <section class="panel" aria-labelledby="entry-heading">
      <h2 id="entry-heading">Organization</h2>
      <dl class="facts">
        <Fact label="Name">{org.name}</Fact>
        <Fact label="Status">
          <span class={`badge badge-${org.organizationType}`}>{org.organizationType}</span>
        </Fact>
        <Fact label="Contact e-mail">
          {org.contactEmail ? <span class="break">{org.contactEmail}</span> : none}
        </Fact>
        <Fact label="Jurisdiction">{org.jurisdiction ?? none}</Fact>
        <Fact label="LEI">{org.lei ? <span class="mono">{org.lei}</span> : none}</Fact>
        <Fact label="Travel endpoint">
          {org.travelEndpoint ? <span class="mono break">{org.travelEndpoint}</span> : none}
        </Fact>
        <Fact label="Public key">{org.publicKey ? <pre class="pem">{org.publicKey.trim()}</pre> : none}</Fact>
        <Fact label="IVMS101 version">{org.ivms101Version}</Fact>
      </dl>
    </section>
  );
}

function TestEvent() {
  const { client } = useOrg();
  const [result, setResult] = useState<TestEventResult | null>(null);
  const { busy, error, run } = useAction();
  const send = () =>
    run(async () => {
      setResult(null);
      setResult(await unwrap(client.POST('/v1/organizations/me/test-event')));
    });
  return (
    <section class="panel" aria-labelledby="test-heading">
      <h2 id="test-heading">Test your endpoint</h2>
      <p class="small">
        Sends a signed <code>ping</code> webhook to your travel endpoint now.
      </p>
      <button type="button" class="secondary" onClick={send} disabled={busy}>
        {busy ? 'Sending…' : 'Send test event'}
      </button>
      <ErrorNote error={error} />
      {result ? (
        <div class={`note ${result.delivered ? 'note-ok' : 'note-error'}`} role="status">
          <strong>{result.delivered ? 'Delivered.' : 'Not delivered.'}</strong>
          <dl class="facts compact">
            <Fact label="URL">
              <span class="mono break">{result.url ?? '—'}</span>
            </Fact>
            <Fact label="Answer">{result.statusCode === null ? 'none' : `HTTP ${result.statusCode}`}</Fact>
            <Fact label="Latency">{result.latencyMs} ms</Fact>
            {result.error ? <Fact label="Error">{result.error}</Fact> : null}
            <Fact label="webhook-id">
              <code class="break">{result.messageId}</code>
            </Fact>
          </dl>
        </div>
      ) : null}
    </section>
  );
}

function WebhookSecret() {
  const { client } = useOrg();
  return (
    <WebhookSecretPanel
      headingId="secret-heading"
      title="Webhook signing secret"
      rotate={() => unwrap(client.POST('/v1/organizations/me/webhook-secret'))}
    >
      <p class="small">
        Webhooks are signed (Standard Webhooks) with your secret. Rotating issues a new one; the previous one
        keeps signing alongside it for 24 hours.
      </p>
    </WebhookSecretPanel>
  );
}

function ApiKeys() {
  const { client } = useOrg();
  const canWrite = useMay('admin');
  return (
    <ApiKeysPanel
      headingId="keys-heading"
      tableLabel="API keys"
      issueLabel="Create API key"
      revokeWarning="Systems using it stop working at once."
      list={async () => (await unwrap(client.GET('/v1/organizations/me/api-keys'))).apiKeys}
      issue={async (scope: KeyScope) =>
        (await unwrap(client.POST('/v1/organizations/me/api-keys', { body: { scope } }))).apiKey
      }
      revoke={(keyId) =>
        unwrap(client.DELETE('/v1/organizations/me/api-keys/{keyId}', { params: { path: { keyId } } }))
      }
    >
      <p class="small">
        Keys are shown only when issued; the hub stores a hash. A read-only key may look at everything,
        personal data included (each view is audited), and change nothing.
        {canWrite ? ' The key you are signed in with cannot be revoked here.' : ''}
      </p>
    </ApiKeysPanel>
  );
}
