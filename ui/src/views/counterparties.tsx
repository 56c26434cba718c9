/**
 * The counterparty directory for members (issue 35): every other organization with its verified
 * state and who verified it (the operator, or the operator approving its own application to
 * join), jurisdiction and LEI when set, and how this organization's messages to it fare.
 */
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../api.js';
import { ErrorNote, ListTable, Loading, PageHead, Time } from '../components/ui.js';
import { countryName } from '../format.js';
import { useSession } from '../session.js';

interface Counterparty {
  id: string;
  name: string;
  vaspDid: string;
  organizationType: 'unverified' | 'verified';
  verifiedVia: 'operator' | 'application' | null;
  verifiedAt: string | null;
  jurisdiction: string | null;
  lei: string | null;
  delivery: { delivered: number; pending: number; retrying: number; failed: number };
}

export function CounterpartyDirectory() {
  const { client } = useSession();
  const [items, setItems] = useState<Counterparty[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [query, setQuery] = useState('');

  useEffect(() => {
    unwrap(client.GET('/v1/counterparties')).then((r) => setItems(r.counterparties), setError);
  }, []);

  const q = query.trim().toLowerCase();
  const shown = (items ?? []).filter(
    (o) => q === '' || o.name.toLowerCase().includes(q) || o.vaspDid.toLowerCase().includes(q),
  );

  return (
    <section aria-labelledby="cp-heading">
      <PageHead id="cp-heading" title="Counterparties">
        <p class="muted small">
          The other organizations in the hub's directory. Delivery counts are your messages to each: the
          webhooks the hub sent it about transfers between you.
        </p>
      </PageHead>
      <form class="filters" aria-label="Find a counterparty" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="cp-q">Name or DID</label>
          <input
            id="cp-q"
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
            spellcheck={false}
          />
        </div>
      </form>
      <ErrorNote error={error} />
      {items === null ? (
        error ? null : (
          <Loading what="counterparties" />
        )
      ) : shown.length === 0 ? (
        <p class="empty">
          {items.length === 0 ? 'No other organization is in the directory yet.' : 'None matches.'}
        </p>
      ) : (
        <ListTable
          label="Counterparties"
          columns={['Name', 'Verified', 'Jurisdiction', 'LEI', 'Your messages to it']}
        >
          {shown.map((o) => (
            <tr key={o.id}>
              <td data-label="Name">
                <span class="two-lines">
                  <span>{o.name}</span>
                  <span class="did small">{o.vaspDid}</span>
                </span>
              </td>
              <td data-label="Verified">
                {o.organizationType === 'verified' ? (
                  <span class="two-lines">
                    <span class="badge badge-verified">Verified</span>
                    <span class="small muted">
                      {o.verifiedVia === 'application'
                        ? 'joined by application, approved by the operator'
                        : 'by the hub operator'}
                      {o.verifiedAt ? (
                        <>
                          {' '}
                          on <Time iso={o.verifiedAt} />
                        </>
                      ) : null}
                    </span>
                  </span>
                ) : (
                  <span class="badge">Unverified</span>
                )}
              </td>
              <td data-label="Jurisdiction">
                {o.jurisdiction ? countryName(o.jurisdiction) : <span class="muted">—</span>}
              </td>
              <td data-label="LEI">
                {o.lei ? <span class="mono">{o.lei}</span> : <span class="muted">—</span>}
              </td>
              <td data-label="Your messages to it">
                <DeliveryCounts counts={o.delivery} />
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </section>
  );
}

/** Delivered / retrying / failed (and waiting), as words with a tone. */
export function DeliveryCounts({ counts }: { counts: Counterparty['delivery'] }) {
  const total = counts.delivered + counts.pending + counts.retrying + counts.failed;
  if (total === 0) return <span class="muted">none yet</span>;
  return (
    <span class="two-lines small">
      <span>{counts.delivered} delivered</span>
      {counts.pending > 0 ? <span>{counts.pending} waiting</span> : null}
      {counts.retrying > 0 ? (
        <span class="badge badge-delivery-retrying">{counts.retrying} retrying</span>
      ) : null}
      {counts.failed > 0 ? <span class="badge badge-delivery-failed">{counts.failed} failed</span> : null}
    </span>
  );
}
