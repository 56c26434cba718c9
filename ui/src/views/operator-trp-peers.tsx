/**
 * The TRP peers the hub knows, for the operator (docs/trp.md, Counterparties): who each is (its
 * /identity and certificate), the version and amount encoding it gets, whether its certificate is
 * pinned; and blocking or unblocking it.
 */
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../api.js';
import { ErrorNote, ListTable, Loading, PageHead } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useSession } from '../session.js';

const COLUMNS = ['Host', 'Name', 'LEI', 'Certificate', 'Version', 'Amounts', 'State', 'Action'];

export function OperatorTrpPeers() {
  const { client } = useSession();
  const announce = useAnnounce();
  const action = useAction();
  const [peers, setPeers] = useState<Awaited<ReturnType<typeof loadPeers>> | null>(null);
  const [error, setError] = useState<unknown>(null);

  function loadPeers() {
    return unwrap(client.GET('/v1/admin/trp/counterparties')).then((r) => r.counterparties);
  }
  const load = () =>
    loadPeers().then((list) => {
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

  return (
    <section aria-labelledby="trp-peers-heading">
      <PageHead id="trp-peers-heading" title="TRP peers">
        <p class="muted small">
          The Travel Rule Protocol VASPs the hub has exchanged transfers with, or that an operator added, by
          host. A pinned certificate is the only one that may use its host.
        </p>
      </PageHead>
      <ErrorNote error={error ?? action.error} />
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
              <td data-label="Action">
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  onClick={() => setBlocked(p.id, p.host, !p.blocked)}
                >
                  {p.blocked ? 'Unblock' : 'Block'}
                </button>
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </section>
  );
}
