/** One organization for the operator: edit any directory field, its keys, its webhook secret. */
import { useEffect, useState } from 'preact/hooks';
import { type ApiKeyInfo, fieldErrors, type Organization, type RotatedSecret, unwrap } from '../api.js';
import { ErrorNote, Loading, OnceSecret, TableWrap, Time } from '../components/ui.js';
import { formatTime } from '../format.js';
import { useFocusOnMount } from '../hooks.js';
import { useAnnounce, useSession } from '../session.js';

export function OperatorOrganization({ id }: { id: string }) {
  const { client } = useSession();
  const [org, setOrg] = useState<Organization | null>(null);
  const [error, setError] = useState<unknown>(null);
  const heading = useFocusOnMount<HTMLHeadingElement>(org !== null);

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
      ) : (
        <>
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

function EditOrganization({ org, onSaved }: { org: Organization; onSaved: (o: Organization) => void }) {
  const { client } = useSession();
  const announce = useAnnounce();
  const initial = () => ({
    name: org.name,
    vaspDid: org.vaspDid,
    travelEndpoint: org.travelEndpoint ?? '',
    publicKey: org.publicKey ?? '',
    organizationType: org.organizationType,
  });
  const [form, setForm] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const problems = fieldErrors(error);

  const submit = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, string | null> = {};
    if (form.name.trim() !== org.name) body.name = form.name.trim();
    if (form.vaspDid.trim() !== org.vaspDid) body.vaspDid = form.vaspDid.trim();
    if ((form.travelEndpoint.trim() || null) !== org.travelEndpoint)
      body.travelEndpoint = form.travelEndpoint.trim() || null;
    if ((form.publicKey.trim() || null) !== (org.publicKey?.trim() || null))
      body.publicKey = form.publicKey.trim() || null;
    if (form.organizationType !== org.organizationType) body.organizationType = form.organizationType;
    if (Object.keys(body).length === 0) {
      announce('Nothing changed.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const updated = await unwrap(
        client.PATCH('/v1/admin/organizations/{id}', {
          params: { path: { id: org.id } },
          body: body as never,
        }),
      );
      onSaved(updated);
      announce('Saved.');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const text = (field: 'name' | 'vaspDid' | 'travelEndpoint' | 'publicKey') => ({
    id: `edit-${field}`,
    value: form[field],
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
    'aria-invalid': problems[field] ? true : undefined,
  });
  const problem = (field: string) => (problems[field] ? <p class="field-error">{problems[field]}</p> : null);

  return (
    <form class="panel grid-form" onSubmit={submit} aria-labelledby="edit-heading" noValidate>
      <h2 id="edit-heading" class="wide">
        Directory entry
      </h2>
      <div class="field">
        <label for="edit-name">Name</label>
        <input {...text('name')} required />
        {problem('name')}
      </div>
      <div class="field">
        <label for="edit-vaspDid">DID</label>
        <input {...text('vaspDid')} required class="mono" spellcheck={false} />
        {problem('vaspDid')}
      </div>
      <div class="field">
        <label for="edit-travelEndpoint">Travel endpoint</label>
        <input {...text('travelEndpoint')} type="url" class="mono" />
        {problem('travelEndpoint')}
      </div>
      <div class="field">
        <label for="edit-type">Status</label>
        <select
          id="edit-type"
          value={form.organizationType}
          onChange={(e) =>
            setForm({ ...form, organizationType: e.currentTarget.value as Organization['organizationType'] })
          }
        >
          <option value="unverified">unverified</option>
          <option value="verified">verified</option>
        </select>
      </div>
      <div class="field wide">
        <label for="edit-publicKey">Public key (PEM)</label>
        <textarea {...text('publicKey')} rows={5} class="mono" spellcheck={false} />
        {problem('publicKey')}
      </div>
      {error && Object.keys(problems).length === 0 ? <ErrorNote error={error} /> : null}
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
  const announce = useAnnounce();
  const [keys, setKeys] = useState<ApiKeyInfo[] | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const path = { id: orgId };
  const load = () =>
    unwrap(client.GET('/v1/admin/organizations/{id}/api-keys', { params: { path } })).then(
      (r) => setKeys(r.apiKeys),
      setError,
    );
  useEffect(() => {
    load();
  }, []);

  const issue = async () => {
    setError(null);
    try {
      setCreated(
        (await unwrap(client.POST('/v1/admin/organizations/{id}/api-keys', { params: { path } }))).apiKey,
      );
      announce('A new API key was issued.');
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (k: ApiKeyInfo) => {
    if (!window.confirm(`Revoke the key ${k.prefix}…? The organization's systems using it stop working.`))
      return;
    try {
      await unwrap(client.DELETE('/v1/admin/api-keys/{keyId}', { params: { path: { keyId: k.keyId } } }));
      announce(`Key ${k.prefix}… revoked.`);
      await load();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section class="panel" aria-labelledby="org-keys-heading">
      <h2 id="org-keys-heading">API keys</h2>
      {created ? <OnceSecret label="New API key" value={created} /> : null}
      <ErrorNote error={error} />
      {keys === null ? (
        <Loading what="keys" />
      ) : (
        <TableWrap label="API keys of the organization">
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
                  <td data-label="State">{k.revokedAt ? `revoked ${formatTime(k.revokedAt)}` : 'active'}</td>
                  <td data-label="Actions">
                    {k.revokedAt ? null : (
                      <button
                        type="button"
                        class="danger small-button"
                        onClick={() => revoke(k)}
                        aria-label={`Revoke key ${k.prefix}`}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <button type="button" class="secondary" onClick={issue}>
        Issue API key
      </button>
    </section>
  );
}

function Secret({ orgId }: { orgId: string }) {
  const { client } = useSession();
  const [rotated, setRotated] = useState<RotatedSecret | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const rotate = async () => {
    try {
      setRotated(
        await unwrap(
          client.POST('/v1/admin/organizations/{id}/webhook-secret', { params: { path: { id: orgId } } }),
        ),
      );
      setConfirming(false);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="panel" aria-labelledby="org-secret-heading">
      <h2 id="org-secret-heading">Webhook secret</h2>
      <p class="small">Rotating issues a new secret; the previous one keeps signing for 24 hours.</p>
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
