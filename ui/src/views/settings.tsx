/**
 * The organization's own settings: travel endpoint and public key (validated by the hub),
 * a signed test event, webhook secret rotation and API keys (new secrets shown once).
 */
import { useState } from 'preact/hooks';
import { fieldErrors, type TestEventResult, unwrap } from '../api.js';
import { ApiKeysPanel } from '../components/api-keys.js';
import { Field, FormError } from '../components/forms.js';
import { ErrorNote, Fact, PageHead } from '../components/ui.js';
import { WebhookSecretPanel } from '../components/webhook-secret.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useOrg, useUpdateMe } from '../session.js';

export function Settings() {
  const { me } = useOrg();
  return (
    <section aria-labelledby="settings-heading">
      <PageHead id="settings-heading" title="Settings">
        <p class="muted small">
          {me.name} · <span class="did">{me.vaspDid}</span> ·{' '}
          {me.organizationType === 'verified' ? 'verified by the operator' : 'not verified'}
        </p>
      </PageHead>
      <div class="columns">
        <EndpointForm />
        <div>
          <TestEvent />
          <WebhookSecret />
        </div>
      </div>
      <ApiKeys />
    </section>
  );
}

function EndpointForm() {
  const session = useOrg();
  const announce = useAnnounce();
  const updateMe = useUpdateMe();
  const [endpoint, setEndpoint] = useState(session.me.travelEndpoint ?? '');
  const [publicKey, setPublicKey] = useState(session.me.publicKey ?? '');
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);

  const submit = (e: Event) => {
    e.preventDefault();
    const patch: { travelEndpoint?: string | null; publicKey?: string | null } = {};
    const ep = endpoint.trim() || null;
    const pk = publicKey.trim() || null;
    if (ep !== session.me.travelEndpoint) patch.travelEndpoint = ep;
    if (pk !== (session.me.publicKey?.trim() || null)) patch.publicKey = pk;
    if (Object.keys(patch).length === 0) {
      announce('Nothing changed.');
      return;
    }
    run(async () => {
      const updated = await unwrap(session.client.PATCH('/v1/organizations/me', { body: patch }));
      updateMe(updated);
      setEndpoint(updated.travelEndpoint ?? '');
      setPublicKey(updated.publicKey ?? '');
      announce('Settings saved.');
    });
  };

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="endpoint-heading" noValidate>
      <h2 id="endpoint-heading">Receiving</h2>
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
            type="url"
            class="mono"
            placeholder="https://vasp.example/travel"
            value={endpoint}
            onInput={(e) => setEndpoint(e.currentTarget.value)}
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
            class="mono"
            rows={6}
            placeholder={'-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----'}
            value={publicKey}
            spellcheck={false}
            onInput={(e) => setPublicKey(e.currentTarget.value)}
          />
        )}
      </Field>
      <FormError error={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Save'}
      </button>
    </form>
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
  return (
    <ApiKeysPanel
      headingId="keys-heading"
      tableLabel="API keys"
      issueLabel="Create API key"
      revokeWarning="Systems using it stop working at once."
      list={async () => (await unwrap(client.GET('/v1/organizations/me/api-keys'))).apiKeys}
      issue={async () => (await unwrap(client.POST('/v1/organizations/me/api-keys'))).apiKey}
      revoke={(keyId) =>
        unwrap(client.DELETE('/v1/organizations/me/api-keys/{keyId}', { params: { path: { keyId } } }))
      }
    >
      <p class="small">
        Keys are shown only when issued; the hub stores a hash. The key you are signed in with cannot be
        revoked here.
      </p>
    </ApiKeysPanel>
  );
}
