/**
 * The filters of the inbox and outbox, as they live in the address (`#/inbox?q=…&status=…`) and as
 * the hub's list takes them (GET /v1/transactions). One table of names, read both ways.
 */
import type { Role, TransactionSummary } from '../api.js';

/** A list of one side (Inbox, Outbox), or of both at once: "Needs my action" (`#/queue`). */
export type ListParty = Role | 'any';

/** The caller's review states (SPEC §17), and what the queue lists wait for. */
const REVIEW_STATES = ['open', 'in_review', 'cleared', 'escalated'] as const;
const NEEDS = ['confirm', 'review'] as const;

export const PAGE_SIZES = ['25', '50', '100', '200'] as const;

export interface Filters {
  /** Reference or short reference, address, counterparty name or DID. */
  q: string;
  /** A customer's name (personal data: only for sessions that may read it). */
  customer: string;
  status: string;
  protocol: string;
  asset: string;
  minAmount: string;
  maxAmount: string;
  from: string;
  to: string;
  /** Only transactions whose message to the counterparty is retrying or failed. */
  failing: boolean;
  /** The caller's own review state. */
  review: '' | (typeof REVIEW_STATES)[number];
  /** What waits for the caller (the queue): `confirm` or `review`. */
  needs: '' | (typeof NEEDS)[number];
  sort: 'newest' | 'oldest';
  size: (typeof PAGE_SIZES)[number];
}

export const NO_FILTERS: Filters = {
  q: '',
  customer: '',
  status: '',
  protocol: '',
  asset: '',
  minAmount: '',
  maxAmount: '',
  from: '',
  to: '',
  failing: false,
  review: '',
  needs: '',
  sort: 'newest',
  size: '25',
};

/** The fields typed into text boxes: applied a moment after the typing stops. */
export const TYPED = ['q', 'customer', 'asset', 'minAmount', 'maxAmount'] as const;
export type Typed = Pick<Filters, (typeof TYPED)[number]>;

export function typedOf(f: Filters): Typed {
  return { q: f.q, customer: f.customer, asset: f.asset, minAmount: f.minAmount, maxAmount: f.maxAmount };
}

const oneOf = <T extends string>(allowed: readonly T[], value: string): '' | T =>
  (allowed as readonly string[]).includes(value) ? (value as T) : '';

export function fromQuery(query: URLSearchParams): Filters {
  const text = (name: string) => query.get(name) ?? '';
  const size = text('size');
  return {
    q: text('q'),
    customer: text('customer'),
    status: text('status'),
    protocol: text('protocol'),
    asset: text('asset'),
    minAmount: text('min'),
    maxAmount: text('max'),
    from: text('from'),
    to: text('to'),
    // `delivery=failing` too: the hub's own name for it, as links from elsewhere may use.
    failing: query.get('failing') === '1' || query.get('delivery') === 'failing',
    review: oneOf(REVIEW_STATES, text('review')),
    needs: oneOf(NEEDS, text('needs')),
    sort: query.get('sort') === 'oldest' ? 'oldest' : 'newest',
    size: (PAGE_SIZES as readonly string[]).includes(size) ? (size as Filters['size']) : '25',
  };
}

/** The address's query: only what differs from no filters, so a plain list keeps a plain address. */
export function toQuery(f: Filters): URLSearchParams {
  const q = new URLSearchParams();
  const put = (name: string, value: string, none = '') => {
    if (value !== none) q.set(name, value);
  };
  put('q', f.q);
  put('customer', f.customer);
  put('status', f.status);
  put('protocol', f.protocol);
  put('asset', f.asset);
  put('min', f.minAmount);
  put('max', f.maxAmount);
  put('from', f.from);
  put('to', f.to);
  put('failing', f.failing ? '1' : '');
  put('review', f.review);
  put('needs', f.needs);
  put('sort', f.sort, 'newest');
  put('size', f.size, '25');
  return q;
}

export function isFiltered(f: Filters): boolean {
  const { sort: _s, size: _z, ...rest } = f;
  const { sort: _ns, size: _nz, ...none } = NO_FILTERS;
  return JSON.stringify(rest) !== JSON.stringify(none);
}

/** The hub's query for these filters (without paging: the list adds `limit` and `cursor`). */
export function hubQuery(role: ListParty, f: Filters) {
  const dayStart = (day: string, plusDays = 0) => {
    const d = new Date(`${day}T00:00:00`);
    d.setDate(d.getDate() + plusDays);
    return d.toISOString();
  };
  const t = (s: string) => s.trim();
  return {
    ...(role === 'any' ? {} : { role }),
    ...(t(f.q) ? { q: t(f.q) } : {}),
    ...(t(f.customer) ? { customer: t(f.customer) } : {}),
    ...(f.status ? { status: f.status as TransactionSummary['status'] } : {}),
    ...(f.protocol ? { protocol: f.protocol as TransactionSummary['protocol'] } : {}),
    ...(t(f.asset) ? { asset: t(f.asset) } : {}),
    ...(t(f.minAmount) ? { minAmount: t(f.minAmount) } : {}),
    ...(t(f.maxAmount) ? { maxAmount: t(f.maxAmount) } : {}),
    ...(f.from ? { createdAfter: dayStart(f.from) } : {}),
    ...(f.to ? { createdBefore: dayStart(f.to, 1) } : {}),
    ...(f.failing ? { delivery: 'failing' as const } : {}),
    ...(f.review ? { review: f.review } : {}),
    ...(f.needs ? { needs: f.needs } : {}),
    ...(f.sort === 'oldest' ? { sort: 'oldest' as const } : {}),
  };
}
