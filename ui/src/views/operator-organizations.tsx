/** The operator's directory: every organization, verify/unverify in place, and registration. */
import { useEffect, useState } from 'preact/hooks';
import { type CreatedOrganization, fieldErrors, type Organization, unwrap } from '../api.js';
import { ErrorNote, Loading, OnceSecret, TableWrap } from '../components/ui.js';
import { useFocusOnMount } from '../hooks.js';
import { href } from '../router.js';
import { useAnnounce, useSession } from '../session.js';

export function OperatorOrganizations() {
  const { client } = useSession();
  const announce = useAnnounce();
  const [orgs, setOrgs] = useState<Organization[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const heading = useFocusOnMount<HTMLHeadingElement>('organizations');

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
      <div class="page-head">
        <h1 id="orgs-heading" ref={heading} tabIndex={-1}>
          Organizations
        </h1>
        <p class="muted small">
          The hub’s directory. Verify an organization once you have checked who it is.
        </p>
      </div>
      <ErrorNote error={error} />
      {orgs === null ? (
        <Loading what="organizations" />
      ) : orgs.length === 0 ? (
        <p class="empty">No organization yet: register the first one below.</p>
      ) : (
        <TableWrap label="Organizations">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">DID</th>
                <th scope="col">Travel endpoint</th>
                <th scope="col">Public key</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
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
                    <button
                      type="button"
                      class={o.organizationType === 'verified' ? 'secondary small-button' : 'small-button'}
                      disabled={busy === o.id}
                      onClick={() => setVerified(o, o.organizationType !== 'verified')}
                      aria-label={`${o.organizationType === 'verified' ? 'Unverify' : 'Verify'} ${o.name}`}
                    >
                      {o.organizationType === 'verified' ? 'Unverify' : 'Verify'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <CreateOrganization onCreated={load} />
    </section>
  );
}

function CreateOrganization({ onCreated }: { onCreated: () => void }) {
  const { client } = useSession();
  const announce = useAnnounce();
  const [form, setForm] = useState({
    name: '',
    vaspDid: '',
    travelEndpoint: '',
    publicKey: '',
    verified: false,
  });
  const [created, setCreated] = useState<CreatedOrganization | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const problems = fieldErrors(error);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = {
        name: form.name.trim(),
        vaspDid: form.vaspDid.trim(),
        ...(form.travelEndpoint.trim() ? { travelEndpoint: form.travelEndpoint.trim() } : {}),
        ...(form.publicKey.trim() ? { publicKey: form.publicKey.trim() } : {}),
        organizationType: form.verified ? ('verified' as const) : ('unverified' as const),
      };
      const r = await unwrap(client.POST('/v1/admin/organizations', { body }));
      setCreated(r);
      setForm({ name: '', vaspDid: '', travelEndpoint: '', publicKey: '', verified: false });
      announce(`${r.organization.name} registered. Copy its API key and webhook secret now.`);
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const text = (field: 'name' | 'vaspDid' | 'travelEndpoint' | 'publicKey') => ({
    id: `new-${field}`,
    value: form[field],
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
    'aria-invalid': problems[field] ? true : undefined,
    'aria-describedby': problems[field] ? `new-${field}-error` : undefined,
  });
  const problem = (field: string) =>
    problems[field] ? (
      <p id={`new-${field}-error`} class="field-error">
        {problems[field]}
      </p>
    ) : null;

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
          <OnceSecret label="Webhook secret" value={created.webhookSecret} />
          <button type="button" class="secondary" onClick={() => setCreated(null)}>
            Done, I have stored them
          </button>
        </div>
      ) : null}
      <form onSubmit={submit} class="grid-form" noValidate>
        <div class="field">
          <label for="new-name">Name</label>
          <input {...text('name')} required maxLength={200} />
          {problem('name')}
        </div>
        <div class="field">
          <label for="new-vaspDid">DID</label>
          <input
            {...text('vaspDid')}
            required
            class="mono"
            placeholder="did:web:vasp.example"
            spellcheck={false}
          />
          {problem('vaspDid')}
        </div>
        <div class="field">
          <label for="new-travelEndpoint">Travel endpoint (optional)</label>
          <input
            {...text('travelEndpoint')}
            type="url"
            class="mono"
            placeholder="https://vasp.example/travel"
          />
          {problem('travelEndpoint')}
        </div>
        <div class="field wide">
          <label for="new-publicKey">Public key, PEM (optional)</label>
          <textarea {...text('publicKey')} rows={3} class="mono" spellcheck={false} />
          {problem('publicKey')}
        </div>
        <div class="field wide check">
          <input
            id="new-verified"
            type="checkbox"
            checked={form.verified}
            onChange={(e) => setForm({ ...form, verified: e.currentTarget.checked })}
          />
          <label for="new-verified">Verified already</label>
        </div>
        {error && Object.keys(problems).length === 0 ? <ErrorNote error={error} /> : null}
        <div class="field wide">
          <button type="submit" disabled={busy || !form.name.trim() || !form.vaspDid.trim()}>
            {busy ? 'Registering…' : 'Register organization'}
          </button>
        </div>
      </form>
    </section>
  );
}
