/**
 * Inbox (the organization is the beneficiary) and outbox (originator): search and filters (among
 * them "Delivery failing": transactions whose message to the counterparty is retrying or failed),
 * all kept in the address so a list can be reloaded, bookmarked and shared; a total; page sizes up
 * to 200 with keyset paging ("Load more"); a CSV download of the current filters; and live
 * refresh: the first page is polled and new transactions are put on top and announced, known ones
 * get their new status. Typed text lives in the boxes and reaches the filters a moment after the
 * typing stops, so a refresh never rewrites a box under someone's fingers. A row whose message
 * does not get through carries a mark. A TRP row names its peer by host (SPEC §16).
 * The caller's review state filters too (`review`), and "Needs my action" (`#/queue`) lists both
 * sides at once by what waits for the caller (`needs=confirm|review`, failing deliveries): the
 * lists the navigation's counts link to. The inbox shows transfers per day above the list.
 */
import { useEffect, useState } from 'preact/hooks';
import { type Role, type TransactionSummary, unwrap } from '../api.js';
import { Counterparty } from '../components/counterparty.js';
import { DailyChart } from '../components/daily-chart.js';
import { DeliveryFlag } from '../components/delivery-summary.js';
import { StatusProtocolFilters } from '../components/forms.js';
import { ErrorNote, ListTable, Loading, LoadMore, PageHead, StatusBadge, Time } from '../components/ui.js';
import { useOrgNames } from '../directory.js';
import { formatClock, shortRef } from '../format.js';
import { usePoll } from '../hooks.js';
import { href, replaceRouteQuery, routeQuery } from '../router.js';
import { useAnnounce, useMay, useOrg } from '../session.js';
import { protocolLabel } from '../trp.js';
import { REVIEW_LABELS } from './review-panel.js';
import { CsvExport } from './transaction-export.js';
import {
  type Filters,
  fromQuery,
  hubQuery,
  isFiltered,
  type ListParty,
  NO_FILTERS,
  PAGE_SIZES,
  type Typed,
  toQuery,
  typedOf,
} from './transaction-filters.js';

export const POLL_MS = 3000;
/** How long after the last keystroke typed text becomes a filter. */
const TYPING_MS = 400;

const NEEDS_TITLES: Record<string, string> = {
  confirm: 'Transfers waiting for your confirmation',
  review: 'Transfers waiting for your review',
  failing: 'Transfers whose messages are failing',
};

export function TransactionList({ party: role }: { party: ListParty }) {
  const { client, me } = useOrg();
  const announce = useAnnounce();
  const names = useOrgNames();
  const mayPii = useMay('pii');
  const [filters, setFilters] = useState<Filters>(() => fromQuery(routeQuery()));
  // What the text boxes show: the filters take it over once the typing stops.
  const [typed, setTyped] = useState<Typed>(() => typedOf(filters));
  const [total, setTotal] = useState<number | null>(null);
  const [items, setItems] = useState<TransactionSummary[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<unknown>(null);
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  /** Arrivals and status changes the refresh has seen: the chart reloads on each. */
  const [changes, setChanges] = useState(0);
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
  const typedKey = JSON.stringify(typed);
  const pageSize = Number(filters.size);

  const page = (cursor?: string) =>
    unwrap(
      client.GET('/v1/transactions', {
        params: { query: { ...hubQuery(role, filters), limit: filters.size, ...(cursor ? { cursor } : {}) } },
      }),
    );

  useEffect(() => replaceRouteQuery(toQuery(filters)), [filterKey]);
  // An address typed or followed (a link, Back) brings its own filters.
  useEffect(() => {
    const follow = () => {
      const next = fromQuery(routeQuery());
      setFilters(next);
      setTyped(typedOf(next));
    };
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  useEffect(() => {
    const timer = window.setTimeout(() => setFilters((f) => ({ ...f, ...typed })), TYPING_MS);
    return () => window.clearTimeout(timer);
  }, [typedKey]);

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
        setTotal(p.total);
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
        const moved = items.some((t) => {
          const now = latest.get(t.transactionRef);
          return now !== undefined && now.status !== t.status;
        });
        // The chart counts by status: redrawn when a transfer arrives or changes status.
        if (added.length > 0 || moved) setChanges((n) => n + 1);
        setTotal(p.total);
        if (added.length >= pageSize) {
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
  const type = (field: keyof Typed) => (e: Event) =>
    setTyped({ ...typed, [field]: (e.currentTarget as HTMLInputElement).value });
  const filtered = isFiltered(filters) || JSON.stringify(typed) !== JSON.stringify(typedOf(NO_FILTERS));
  const clear = () => {
    setFilters({ ...NO_FILTERS, sort: filters.sort, size: filters.size });
    setTyped(typedOf(NO_FILTERS));
  };

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
      {role === 'beneficiary' ? <DailyChart scope="member" refreshKey={changes} /> : null}

      <form
        class="filters"
        aria-label={`Filter the ${title.toLowerCase()}`}
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ ...filters, ...typed });
        }}
      >
        <div class="field field-wide">
          <label for="f-q">Search</label>
          <input
            id="f-q"
            type="search"
            placeholder="Reference, short reference, address, counterparty name or DID"
            value={typed.q}
            onInput={type('q')}
            spellcheck={false}
          />
        </div>
        {mayPii ? (
          <div class="field">
            <label for="f-customer">Customer name</label>
            <input
              id="f-customer"
              type="search"
              placeholder="e.g. Jane Smith"
              value={typed.customer}
              onInput={type('customer')}
              spellcheck={false}
              autocomplete="off"
            />
          </div>
        ) : null}
        <StatusProtocolFilters
          idPrefix="f"
          status={filters.status}
          protocol={filters.protocol}
          onChange={set}
        />
        <div class="field">
          <label for="f-asset">Asset</label>
          <input
            id="f-asset"
            placeholder="e.g. ETH-USDC"
            value={typed.asset}
            onInput={type('asset')}
            spellcheck={false}
          />
        </div>
        <div class="field field-narrow">
          <label for="f-min">Min amount</label>
          <input id="f-min" inputMode="decimal" value={typed.minAmount} onInput={type('minAmount')} />
        </div>
        <div class="field field-narrow">
          <label for="f-max">Max amount</label>
          <input id="f-max" inputMode="decimal" value={typed.maxAmount} onInput={type('maxAmount')} />
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
          <button type="button" class="secondary" disabled={!filtered} onClick={clear}>
            Clear filters
          </button>
        </div>
      </form>

      <div class="list-bar">
        <p class="muted" aria-live="polite">
          {total === null || items === null
            ? ''
            : `${total} transaction${total === 1 ? '' : 's'}${filtered ? ' match' : ''}${
                total > items.length ? `; showing ${items.length}` : ''
              }.`}
        </p>
        <div class="field inline">
          <label for="f-sort">Order</label>
          <select id="f-sort" value={filters.sort} onChange={set('sort')}>
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
          </select>
        </div>
        <div class="field inline">
          <label for="f-size">Per page</label>
          <select id="f-size" value={filters.size} onChange={set('size')}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <CsvExport role={role} filters={filters} />
      </div>

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
