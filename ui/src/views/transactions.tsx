/**
 * Inbox (the organization is the beneficiary) and outbox (originator): newest first, filters
 * (among them "Delivery failing": transactions whose message to the counterparty is retrying or
 * failed), keyset paging with "Load more", and live refresh: the first page is polled and new
 * transactions are put on top and announced; known ones get their new status. A row whose
 * message does not get through carries a mark. A TRP row names its peer by host (SPEC §16).
 * The caller's review state filters too (`review`), and "Needs my action" (`#/queue`) lists both
 * sides at once by what waits for the caller (`needs=confirm|review`, `delivery=failing`): the
 * lists the navigation's counts link to. Filters given in the route's query are the starting ones.
 */
import { useEffect, useState } from 'preact/hooks';
import { type Role, type TransactionSummary, unwrap } from '../api.js';
import { Counterparty } from '../components/counterparty.js';
import { DailyChart } from '../components/daily-chart.js';
import { DeliveryFlag } from '../components/delivery-summary.js';
import { ErrorNote, ListTable, Loading, LoadMore, PageHead, StatusBadge, Time } from '../components/ui.js';
import { useOrgNames } from '../directory.js';
import { formatClock, PROTOCOLS, STATUS_LABELS, shortRef, TRANSACTION_STATES } from '../format.js';
import { usePoll } from '../hooks.js';
import { href, routeQuery } from '../router.js';
import { useAnnounce, useOrg } from '../session.js';
import { protocolLabel } from '../trp.js';
import { REVIEW_LABELS } from './review-panel.js';

const PAGE_SIZE = 25;
export const POLL_MS = 3000;

interface Filters {
  status: string;
  protocol: string;
  asset: string;
  from: string;
  to: string;
  /** Only transactions whose message to the counterparty is retrying or failed. */
  failing: boolean;
  /** The caller's review state. */
  review: string;
  /** What waits for the caller: `confirm` or `review` (the queue). */
  needs: string;
}
const NO_FILTERS: Filters = {
  status: '',
  protocol: '',
  asset: '',
  from: '',
  to: '',
  failing: false,
  review: '',
  needs: '',
};

/** The filters the route's query names (`#/queue?needs=review`, `#/inbox?review=open`). */
function filtersFromRoute(): Filters {
  const q = routeQuery();
  const review = q.get('review') ?? '';
  const needs = q.get('needs') ?? '';
  return {
    ...NO_FILTERS,
    review: review in REVIEW_LABELS ? review : '',
    needs: needs === 'confirm' || needs === 'review' ? needs : '',
    failing: q.get('delivery') === 'failing',
  };
}

/** Both sides at once: the "Needs my action" lists. */
export type ListParty = Role | 'any';

const NEEDS_TITLES: Record<string, string> = {
  confirm: 'Transfers waiting for your confirmation',
  review: 'Transfers waiting for your review',
  failing: 'Transfers whose messages are failing',
};

function listQuery(role: ListParty, f: Filters, cursor?: string) {
  const dayStart = (day: string, plusDays = 0) => {
    const d = new Date(`${day}T00:00:00`);
    d.setDate(d.getDate() + plusDays);
    return d.toISOString();
  };
  return {
    ...(role === 'any' ? {} : { role }),
    limit: String(PAGE_SIZE),
    ...(f.status ? { status: f.status as TransactionSummary['status'] } : {}),
    ...(f.protocol ? { protocol: f.protocol as TransactionSummary['protocol'] } : {}),
    ...(f.asset.trim() ? { asset: f.asset.trim().toUpperCase() } : {}),
    ...(f.from ? { createdAfter: dayStart(f.from) } : {}),
    ...(f.to ? { createdBefore: dayStart(f.to, 1) } : {}),
    ...(f.failing ? { delivery: 'failing' as const } : {}),
    ...(f.review ? { review: f.review as keyof typeof REVIEW_LABELS } : {}),
    ...(f.needs ? { needs: f.needs as 'confirm' | 'review' } : {}),
    ...(cursor ? { cursor } : {}),
  };
}

export function TransactionList({ party: role }: { party: ListParty }) {
  const { client, me } = useOrg();
  const announce = useAnnounce();
  const names = useOrgNames();
  const [filters, setFilters] = useState<Filters>(filtersFromRoute);
  const [items, setItems] = useState<TransactionSummary[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<unknown>(null);
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const title = role === 'any' ? 'Needs my action' : role === 'beneficiary' ? 'Inbox' : 'Outbox';
  /** The caller's side of a row. */
  const sideOf = (t: TransactionSummary): Role =>
    role !== 'any'
      ? role
      : t.beneficiaryVASPid?.toLowerCase() === me.id.toLowerCase()
        ? 'beneficiary'
        : 'originator';
  const filterKey = JSON.stringify(filters);

  const page = (cursor?: string) =>
    unwrap(client.GET('/v1/transactions', { params: { query: listQuery(role, filters, cursor) } }));

  useEffect(() => {
    let live = true;
    setItems(null);
    setError(null);
    setFresh(new Set());
    page().then(
      (p) => {
        if (!live) return;
        setItems(p.transactions);
        setNext(p.nextCursor);
        setUpdatedAt(new Date());
      },
      (err) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [role, filterKey]);

  usePoll(
    async () => {
      if (!items) return;
      try {
        const p = await page();
        const known = new Set(items.map((t) => t.transactionRef));
        const added = p.transactions.filter((t) => !known.has(t.transactionRef));
        const latest = new Map(p.transactions.map((t) => [t.transactionRef, t]));
        if (added.length >= PAGE_SIZE) {
          setItems(p.transactions);
          setNext(p.nextCursor);
        } else {
          setItems([...added, ...items.map((t) => latest.get(t.transactionRef) ?? t)]);
        }
        if (added.length > 0) {
          setFresh(new Set([...fresh, ...added.map((t) => t.transactionRef)]));
          announce(
            `${added.length} new transaction${added.length === 1 ? '' : 's'} in the ${title.toLowerCase()}.`,
          );
        }
        setUpdatedAt(new Date());
        setError(null);
      } catch (err) {
        setError(err);
      }
    },
    POLL_MS,
    [role, filterKey, items],
  );

  const more = async () => {
    if (!next || !items) return;
    setLoadingMore(true);
    try {
      const p = await page(next);
      const known = new Set(items.map((t) => t.transactionRef));
      setItems([...items, ...p.transactions.filter((t) => !known.has(t.transactionRef))]);
      setNext(p.nextCursor);
    } catch (err) {
      setError(err);
    } finally {
      setLoadingMore(false);
    }
  };

  const set = (field: keyof Filters) => (e: Event) =>
    setFilters({ ...filters, [field]: (e.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  const filtered = filterKey !== JSON.stringify(NO_FILTERS);

  return (
    <section aria-labelledby="list-heading">
      <PageHead id="list-heading" title={title} focusKey={role}>
        <p class="muted small" aria-live="off">
          {role === 'any'
            ? `${NEEDS_TITLES[filters.needs || (filters.failing ? 'failing' : '')] ?? 'Transfers on either side'}, sent and received.`
            : role === 'beneficiary'
              ? 'Transfers other VASPs send to your customers.'
              : 'Transfers your customers send to other VASPs.'}{' '}
          {updatedAt ? `Updated ${formatClock(updatedAt)}; refreshes by itself.` : ''}
        </p>
      </PageHead>
      {role === 'beneficiary' ? <DailyChart scope="member" /> : null}

      <form
        class="filters"
        aria-label={`Filter the ${title.toLowerCase()}`}
        onSubmit={(e) => e.preventDefault()}
      >
        <div class="field">
          <label for="f-status">Status</label>
          <select id="f-status" value={filters.status} onChange={set('status')}>
            <option value="">Any</option>
            {TRANSACTION_STATES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-protocol">Protocol</label>
          <select id="f-protocol" value={filters.protocol} onChange={set('protocol')}>
            <option value="">Any</option>
            {PROTOCOLS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-asset">Asset</label>
          <input
            id="f-asset"
            placeholder="e.g. ETH-USDC"
            value={filters.asset}
            onChange={set('asset')}
            spellcheck={false}
          />
        </div>
        <div class="field">
          <label for="f-from">From</label>
          <input id="f-from" type="date" value={filters.from} onChange={set('from')} />
        </div>
        <div class="field">
          <label for="f-to">To</label>
          <input id="f-to" type="date" value={filters.to} onChange={set('to')} />
        </div>
        <div class="field">
          <label for="f-review">Your review</label>
          <select id="f-review" value={filters.review} onChange={set('review')}>
            <option value="">Any</option>
            {Object.entries(REVIEW_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        {role === 'any' ? (
          <div class="field">
            <label for="f-needs">Waiting for you to</label>
            <select id="f-needs" value={filters.needs} onChange={set('needs')}>
              <option value="">Anything</option>
              <option value="confirm">Confirm</option>
              <option value="review">Review</option>
            </select>
          </div>
        ) : null}
        <div class="field check field-check">
          <input
            id="f-failing"
            type="checkbox"
            checked={filters.failing}
            onChange={(e) => setFilters({ ...filters, failing: e.currentTarget.checked })}
            aria-describedby="f-failing-hint"
          />
          <label for="f-failing">Delivery failing</label>
          <span id="f-failing-hint" class="sr-only">
            Only transactions whose message to the counterparty is retrying or failed
          </span>
        </div>
        <div class="field field-button">
          <button type="button" class="secondary" disabled={!filtered} onClick={() => setFilters(NO_FILTERS)}>
            Clear filters
          </button>
        </div>
      </form>

      <ErrorNote error={error} />
      {items === null ? (
        error ? null : (
          <Loading what="transactions" />
        )
      ) : items.length === 0 ? (
        <p class="empty">
          {filtered
            ? 'No transaction matches these filters.'
            : `No transactions yet. New ones appear here by themselves.`}
        </p>
      ) : (
        <ListTable
          label={`${title} transactions`}
          columns={[
            'Reference',
            'Created',
            role === 'any'
              ? 'Counterparty'
              : role === 'beneficiary'
                ? 'From (originator)'
                : 'To (beneficiary)',
            'Asset',
            { label: 'Amount', num: true },
            'Protocol',
            'Status',
          ]}
        >
          {items.map((t) => (
            <tr key={t.transactionRef} class={fresh.has(t.transactionRef) ? 'fresh' : undefined}>
              <td data-label="Reference">
                <a
                  class="mono"
                  href={href('tx', t.transactionRef)}
                  aria-label={`Transaction ${t.transactionRef}`}
                >
                  {shortRef(t.transactionRef)}
                </a>
                {fresh.has(t.transactionRef) ? <span class="tag">new</span> : null}
              </td>
              <td data-label="Created">
                <Time iso={t.createdAt} />
              </td>
              <td data-label={sideOf(t) === 'beneficiary' ? 'From' : 'To'}>
                <Counterparty
                  t={t}
                  side={sideOf(t)}
                  names={names}
                  fallback={<span class="did">{t.beneficiaryVASPid ?? '—'}</span>}
                />
              </td>
              <td data-label="Asset">{t.transactionAsset}</td>
              <td data-label="Amount" class="num mono">
                {t.transactionAmount}
              </td>
              <td data-label="Protocol">{protocolLabel(t.protocol, sideOf(t))}</td>
              <td data-label="Status">
                <span class="status-cell">
                  <StatusBadge status={t.status} />
                  <DeliveryFlag delivery={t.delivery} />
                </span>
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      {next ? <LoadMore onClick={more} busy={loadingMore} /> : null}
    </section>
  );
}
