/**
 * The organization's own settings: travel endpoint and public key (validated by the hub),
 * a signed test event, webhook secret rotation and API keys (new secrets shown once).
 */
import { useEffect, useState } from 'preact/hooks';
import { fieldErrors, type MyApiKey, type RotatedSecret, type TestEventResult, unwrap } from '../api.js';
import { ErrorNote, Fact, Loading, OnceSecret, TableWrap, Time } from '../components/ui.js';
import { formatTime } from '../format.js';
import { useFocusOnMount } from '../hooks.js';
import { useAnnounce, useOrg, useUpdateMe } from '../session.js';

export function Settings() {
  const heading = useFocusOnMount<HTMLHeadingElement>('settings');
  const { me } = useOrg();
  return (
    <section aria-labelledby="settings-heading">
      <div class="page-head">
        <h1 id="settings-heading" ref={heading} tabIndex={-1}>
          Settings
        </h1>
        <p class="muted small">
          {me.name} · <span class="did">{me.vaspDid}</span> ·{' '}
          {me.organizationType === 'verified' ? 'verified by the operator' : 'not verified'}
        </p>
      </div>
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
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
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
    setBusy(true);
    setError(null);
    setProblems({});
    try {
      const updated = await unwrap(session.client.PATCH('/v1/organizations/me', { body: patch }));
      updateMe(updated);
      setEndpoint(updated.travelEndpoint ?? '');
      setPublicKey(updated.publicKey ?? '');
      announce('Settings saved.');
    } catch (err) {
      setProblems(fieldErrors(err));
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="endpoint-heading" noValidate>
      <h2 id="endpoint-heading">Receiving</h2>
      <div class="field">
        <label for="travel-endpoint">Travel endpoint</label>
        <input
          id="travel-endpoint"
          type="url"
          class="mono"
          placeholder="https://vasp.example/travel"
          value={endpoint}
          onInput={(e) => setEndpoint(e.currentTarget.value)}
          aria-describedby="travel-endpoint-hint travel-endpoint-error"
          aria-invalid={problems.travelEndpoint ? true : undefined}
        />
        <p id="travel-endpoint-hint" class="hint">
          Base URL; webhooks go to <code>{'{endpoint}'}/v1/notify/&lt;event&gt;</code>. Leave empty to receive
          none.
        </p>
        {problems.travelEndpoint ? (
          <p id="travel-endpoint-error" class="field-error">
            {problems.travelEndpoint}
          </p>
        ) : null}
      </div>
      <div class="field">
        <label for="public-key">Public key (PEM)</label>
        <textarea
          id="public-key"
          class="mono"
          rows={6}
          placeholder={'-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----'}
          value={publicKey}
          spellcheck={false}
          onInput={(e) => setPublicKey(e.currentTarget.value)}
          aria-describedby="public-key-hint public-key-error"
          aria-invalid={problems.publicKey ? true : undefined}
        />
        <p id="public-key-hint" class="hint">
          X25519, P-256 or RSA (2048 bits or more), SubjectPublicKeyInfo. BASIC transfers to you are encrypted
          to it.
        </p>
        {problems.publicKey ? (
          <p id="public-key-error" class="field-error">
            {problems.publicKey}
          </p>
        ) : null}
      </div>
      {error && Object.keys(problems).length === 0 ? <ErrorNote error={error} /> : null}
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Save'}
      </button>
    </form>
  );
}

function TestEvent() {
  const { client } = useOrg();
  const [result, setResult] = useState<TestEventResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const send = async () => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await unwrap(client.POST('/v1/organizations/me/test-event')));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
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
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState<RotatedSecret | null>(null);
  const [error, setError] = useState<unknown>(null);
  const rotate = async () => {
    setError(null);
    try {
      setRotated(await unwrap(client.POST('/v1/organizations/me/webhook-secret')));
      setConfirming(false);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="panel" aria-labelledby="secret-heading">
      <h2 id="secret-heading">Webhook signing secret</h2>
      <p class="small">
        Webhooks are signed (Standard Webhooks) with your secret. Rotating issues a new one; the previous one
        keeps signing alongside it for 24 hours.
      </p>
      {rotated ? (
        <OnceSecret label="New webhook secret" value={rotated.webhookSecret}>
          {rotated.previousSecretValidUntil
            ? ` The previous secret signs until ${formatTime(rotated.previousSecretValidUntil)}.`
            : ''}
        </OnceSecret>
      ) : null}
      {confirming ? (
        <div class="confirm-row">
          <span>Issue a new secret now?</span>
          <button type="button" onClick={rotate}>
            Yes, rotate
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" class="secondary" onClick={() => setConfirming(true)}>
          Rotate secret
        </button>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

function ApiKeys() {
  const { client } = useOrg();
  const announce = useAnnounce();
  const [keys, setKeys] = useState<MyApiKey[] | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = () =>
    unwrap(client.GET('/v1/organizations/me/api-keys')).then((r) => setKeys(r.apiKeys), setError);
  useEffect(() => {
    load();
  }, []);

  const create = async () => {
    setError(null);
    try {
      const r = await unwrap(client.POST('/v1/organizations/me/api-keys'));
      setCreated(r.apiKey);
      announce('A new API key was issued.');
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (k: MyApiKey) => {
    if (!window.confirm(`Revoke the key ${k.prefix}…? Systems using it stop working at once.`)) return;
    setError(null);
    try {
      await unwrap(
        client.DELETE('/v1/organizations/me/api-keys/{keyId}', { params: { path: { keyId: k.keyId } } }),
      );
      announce(`Key ${k.prefix}… revoked.`);
      await load();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section class="panel" aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p class="small">
        Keys are shown only when issued; the hub stores a hash. The key you are signed in with cannot be
        revoked here.
      </p>
      {created ? <OnceSecret label="New API key" value={created} /> : null}
      <ErrorNote error={error} />
      {keys === null ? (
        <Loading what="keys" />
      ) : (
        <TableWrap label="API keys">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Issued</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.keyId}>
                  <td data-label="Key" class="mono">
                    {k.prefix}…
                  </td>
                  <td data-label="Issued">
                    <Time iso={k.createdAt} />
                  </td>
                  <td data-label="State">
                    {k.revokedAt ? (
                      <span>
                        revoked <Time iso={k.revokedAt} />
                      </span>
                    ) : k.current ? (
                      'active · this session'
                    ) : (
                      'active'
                    )}
                  </td>
                  <td data-label="Actions">
                    {!k.revokedAt && !k.current ? (
                      <button
                        type="button"
                        class="danger small-button"
                        onClick={() => revoke(k)}
                        aria-label={`Revoke key ${k.prefix}`}
                      >
                        Revoke
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <button type="button" class="secondary" onClick={create}>
        Create API key
      </button>
    </section>
  );
}
