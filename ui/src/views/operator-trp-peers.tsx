/**
 * The TRP peers the hub knows, for the operator (docs/trp.md, Counterparties): who each is (its
 * /identity and certificate), the version and amount encoding it gets, whether its certificate is
 * pinned; blocking or unblocking it, editing it (pin or unpin a certificate, set its version and
 * amount encoding), and adding a peer by host before it ever called.
 */
import { useEffect, useState } from 'preact/hooks';
import { fieldErrors, unwrap } from '../api.js';
import { Field, FormError, textBinder } from '../components/forms.js';
import { ErrorNote, ListTable, Loading, PageHead } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useMay, useSession } from '../session.js';

const COLUMNS = ['Host', 'Name', 'LEI', 'Certificate', 'Version', 'Amounts', 'State', 'Actions'];

type Client = ReturnType<typeof useSession>['client'];

function loadPeers(client: Client) {
  return unwrap(client.GET('/v1/admin/trp/counterparties')).then((r) => r.counterparties);
}

type Peer = Awaited<ReturnType<typeof loadPeers>>[number];
type AmountEncoding = NonNullable<Peer['amountEncoding']>;

export function OperatorTrpPeers() {
  const { client } = useSession();
  const mayChange = useMay('admin');
  const announce = useAnnounce();
  const action = useAction();
  const [peers, setPeers] = useState<Peer[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  /** The peer being edited, or 'new' for the add form. */
  const [editing, setEditing] = useState<Peer | 'new' | null>(null);

  const load = () =>
    loadPeers(client).then((list) => {
      setPeers(list);
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
  }, []);

  const setBlocked = (id: string, host: string, blocked: boolean) =>
    action.run(async () => {
      await unwrap(
        client.PATCH('/v1/admin/trp/counterparties/{id}', { params: { path: { id } }, body: { blocked } }),
      );
      announce(`${host} ${blocked ? 'blocked' : 'unblocked'}.`);
      await load();
    });

  const saved = async (message: string) => {
    setEditing(null);
    announce(message);
    await load();
  };

  return (
    <section aria-labelledby="trp-peers-heading">
      <PageHead id="trp-peers-heading" title="TRP peers">
        <p class="muted small">
          The Travel Rule Protocol VASPs the hub has exchanged transfers with, or that an operator added, by
          host. A pinned certificate is the only one that may use its host.
        </p>
      </PageHead>
      <ErrorNote error={error ?? action.error} />
      {!mayChange ? null : editing === null ? (
        <p>
          <button type="button" class="secondary" onClick={() => setEditing('new')}>
            Add peer
          </button>
        </p>
      ) : (
        <PeerForm
          key={editing === 'new' ? 'new' : editing.id}
          peer={editing === 'new' ? null : editing}
          onSaved={saved}
          onCancel={() => setEditing(null)}
        />
      )}
      {peers === null ? (
        <Loading what="TRP peers" />
      ) : peers.length === 0 ? (
        <p class="empty">No TRP peer yet.</p>
      ) : (
        <ListTable label="TRP peers" columns={COLUMNS}>
          {peers.map((p) => (
            <tr key={p.id}>
              <td data-label="Host" class="mono break">
                {p.host}
              </td>
              <td data-label="Name">{p.name ?? '—'}</td>
              <td data-label="LEI" class="mono">
                {p.lei ?? '—'}
              </td>
              <td data-label="Certificate" class="break small">
                {p.certificateSubject ?? (p.certificateFingerprint ? 'fingerprint only' : '—')}
                {p.pinned ? ' (pinned)' : ''}
              </td>
              <td data-label="Version">{p.apiVersion ?? '3.2.1'}</td>
              <td data-label="Amounts">{p.amountEncoding ?? 'default'}</td>
              <td data-label="State">{p.blocked ? 'Blocked' : 'Active'}</td>
              <td data-label="Actions" class="actions">
                {mayChange ? (
                  <>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Edit ${p.host}`}
                      disabled={action.busy}
                      onClick={() => setEditing(p)}
                    >
                      Edit
                    </button>{' '}
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`${p.blocked ? 'Unblock' : 'Block'} ${p.host}`}
                      disabled={action.busy}
                      onClick={() => setBlocked(p.id, p.host, !p.blocked)}
                    >
                      {p.blocked ? 'Unblock' : 'Block'}
                    </button>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </section>
  );
}

/**
 * Adds a peer (peer null) or edits one. Only what changed is sent; a cleared field is sent as null
 * (the hub's default), and unticking "Pin" unpins the certificate.
 */
function PeerForm({
  peer,
  onSaved,
  onCancel,
}: {
  peer: Peer | null;
  onSaved: (message: string) => Promise<void>;
  onCancel: () => void;
}) {
  const { client } = useSession();
  const [form, setForm] = useState(() => ({
    host: peer?.host ?? '',
    pinned: peer?.pinned ?? false,
    certificateFingerprint: peer?.certificateFingerprint ?? '',
    apiVersion: peer?.apiVersion ?? '',
    amountEncoding: (peer?.amountEncoding ?? '') as AmountEncoding | '',
    blocked: peer?.blocked ?? false,
  }));
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);
  const text = textBinder(form, setForm);
  const title = peer ? `Edit ${peer.host}` : 'Add a TRP peer';

  const submit = (e: Event) => {
    e.preventDefault();
    const fingerprint = form.certificateFingerprint.trim() || null;
    const apiVersion = form.apiVersion.trim() || null;
    const amountEncoding = form.amountEncoding || null;
    run(async () => {
      if (peer === null) {
        const body = {
          host: form.host.trim(),
          ...(form.pinned && fingerprint ? { certificateFingerprint: fingerprint } : {}),
          ...(apiVersion ? { apiVersion } : {}),
          ...(amountEncoding ? { amountEncoding } : {}),
          blocked: form.blocked,
        };
        await unwrap(client.POST('/v1/admin/trp/counterparties', { body }));
        await onSaved(`${body.host} added.`);
        return;
      }
      const body: Record<string, unknown> = {};
      if (form.pinned && fingerprint && (!peer.pinned || fingerprint !== peer.certificateFingerprint))
        body.certificateFingerprint = fingerprint;
      if (!form.pinned && peer.pinned) body.certificateFingerprint = null;
      if (apiVersion !== peer.apiVersion) body.apiVersion = apiVersion;
      if (amountEncoding !== peer.amountEncoding) body.amountEncoding = amountEncoding;
      if (form.blocked !== peer.blocked) body.blocked = form.blocked;
      if (Object.keys(body).length === 0) {
        await onSaved('Nothing changed.');
        return;
      }
      await unwrap(
        client.PATCH('/v1/admin/trp/counterparties/{id}', {
          params: { path: { id: peer.id } },
          body: body as never,
        }),
      );
      await onSaved(`${peer.host} saved.`);
    });
  };

  return (
    <form class="panel grid-form" onSubmit={submit} aria-labelledby="peer-form-heading" noValidate>
      <h2 id="peer-form-heading" class="wide">
        {title}
      </h2>
      {peer === null ? (
        <Field
          id="peer-host"
          label="Host"
          error={problems.host}
          hint="As its travel addresses and callbacks name it, with the port if not 443."
        >
          {(aria) => <input {...aria} {...text('host')} class="mono" spellcheck={false} required />}
        </Field>
      ) : null}
      <Field
        id="peer-fingerprint"
        label="Certificate fingerprint (SHA-256)"
        error={problems.certificateFingerprint}
        hint="Pinned, only this certificate may use the host, whatever names it carries."
        wide
      >
        {(aria) => <input {...aria} {...text('certificateFingerprint')} class="mono" spellcheck={false} />}
      </Field>
      <div class="field">
        <label>
          <input
            type="checkbox"
            checked={form.pinned}
            onChange={(e) => setForm({ ...form, pinned: e.currentTarget.checked })}
          />{' '}
          Pin this certificate
        </label>
      </div>
      <Field
        id="peer-version"
        label="TRP version"
        error={problems.apiVersion}
        hint="Empty: the hub's own (3.2.1). Set 3.1.0 for peers that take nothing newer."
      >
        {(aria) => <input {...aria} {...text('apiVersion')} class="mono" placeholder="3.2.1" />}
      </Field>
      <Field id="peer-amounts" label="Amounts" error={problems.amountEncoding}>
        {(aria) => (
          <select
            {...aria}
            value={form.amountEncoding}
            onChange={(e) =>
              setForm({ ...form, amountEncoding: e.currentTarget.value as AmountEncoding | '' })
            }
          >
            <option value="">default (digit string, smallest unit)</option>
            <option value="smallest-unit-string">smallest-unit-string</option>
            <option value="whole-units-number">whole-units-number</option>
          </select>
        )}
      </Field>
      <div class="field">
        <label>
          <input
            type="checkbox"
            checked={form.blocked}
            onChange={(e) => setForm({ ...form, blocked: e.currentTarget.checked })}
          />{' '}
          Blocked
        </label>
      </div>
      <FormError error={error} />
      <div class="field wide">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : peer ? 'Save peer' : 'Add peer'}
        </button>{' '}
        <button type="button" class="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
