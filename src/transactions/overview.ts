/**
 * Overviews of transactions (issue 35): transfers per UTC day for a chart, and the operator's
 * list and counts. Reads only; never personal data (the operator's list maps rows to metadata).
 * `zeroFilledDays` is pure: every day of the window is present, oldest first.
 */
import type { Queryable } from '../db/database.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { type After, csvRow, exportPages } from './csv.js';
import type {
  AdminListQuery,
  AdminTransaction,
  DailyStats,
  OrgTransactionCounts,
} from './overview-schemas.js';
import { PROTOCOLS, type Protocol, STATES, type State } from './state-machine.js';
import * as store from './store.js';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;
const DEFAULT_PAGE = 50;

/** `days` UTC days ending with the one `now` falls in, each with its counts (zero when none). Pure. */
export function zeroFilledDays(
  now: Date,
  days: number,
  counts: readonly { day: string; status: State; protocol: Protocol; n: number }[],
): DailyStats {
  const last = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const out: DailyStats['days'] = [];
  const index = new Map<string, DailyStats['days'][number]>();
  for (let i = days - 1; i >= 0; i--) {
    const date = new Date(last - i * DAY_MS).toISOString().slice(0, 10);
    const entry = {
      date,
      total: 0,
      byStatus: Object.fromEntries(STATES.map((s) => [s, 0])),
      byProtocol: Object.fromEntries(PROTOCOLS.map((p) => [p, 0])),
    };
    out.push(entry);
    index.set(date, entry);
  }
  for (const c of counts) {
    const entry = index.get(c.day);
    if (!entry) continue;
    entry.total += c.n;
    entry.byStatus[c.status] = (entry.byStatus[c.status] ?? 0) + c.n;
    entry.byProtocol[c.protocol] = (entry.byProtocol[c.protocol] ?? 0) + c.n;
  }
  return { from: out[0]?.date ?? '', to: out[out.length - 1]?.date ?? '', days: out };
}

/** Transfers per UTC day over the last `days` days (30 by default), of one organization or all. */
export async function dailyStats(
  q: Queryable,
  query: { days?: string; organizationId?: string },
  now = new Date(),
): Promise<DailyStats> {
  const days = query.days === undefined ? DEFAULT_DAYS : Number(query.days);
  const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * DAY_MS;
  const counts = await store.dailyCounts(q, {
    since: new Date(first).toISOString(),
    organizationId: query.organizationId,
  });
  return zeroFilledDays(now, days, counts);
}

/** The operator's list: metadata of every transaction (or one organization's), newest first. */
export async function adminList(
  q: Queryable,
  query: AdminListQuery,
): Promise<{ transactions: AdminTransaction[]; nextCursor: string | null }> {
  const limit = query.limit === undefined ? DEFAULT_PAGE : Number(query.limit);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await store.listAllTransactions(q, {
    ...adminFilter(query),
    after: after && { createdAt: after.at, ref: after.id },
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    transactions: page.map(adminView),
    nextCursor: rows.length > limit && last ? encodeCursor(last.cursorAt, last.ref) : null,
  };
}

/** The columns of the operator's CSV: the list's fields, in its order. */
const ADMIN_CSV_COLUMNS = [
  'transactionRef',
  'createdAt',
  'updatedAt',
  'status',
  'protocol',
  'transactionAsset',
  'transactionAmount',
  'originatorVASPid',
  'originatorVASPdid',
  'beneficiaryVASPid',
  'beneficiaryVASPdid',
] as const satisfies readonly (keyof AdminTransaction)[];

/**
 * Every transaction the operator's filters select, newest first, as CSV lines (a header, then a
 * line per transaction, read a batch at a time): the list's metadata, never personal data.
 */
export async function* adminCsv(q: Queryable, query: AdminListQuery): AsyncGenerator<string> {
  yield csvRow(ADMIN_CSV_COLUMNS);
  const read = (after: After | undefined, limit: number) =>
    store.listAllTransactions(q, { ...adminFilter(query), after, limit });
  for await (const page of exportPages(read)) {
    for (const t of page) {
      const view = adminView(t);
      yield csvRow(ADMIN_CSV_COLUMNS.map((c) => view[c]));
    }
  }
}

function adminFilter(query: AdminListQuery) {
  return { status: query.status, protocol: query.protocol, organizationId: query.orgId };
}

function adminView(t: store.TransactionRecord): AdminTransaction {
  return {
    transactionRef: t.ref,
    status: t.status,
    protocol: t.protocol,
    transactionAsset: t.asset,
    transactionAmount: t.amount,
    originatorVASPid: t.originatorId,
    originatorVASPdid: t.originatorDid,
    beneficiaryVASPid: t.beneficiaryId,
    beneficiaryVASPdid: t.beneficiaryDid,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** An organization's transactions by status, as originator and as beneficiary. */
export async function orgCounts(q: Queryable, organizationId: string): Promise<OrgTransactionCounts> {
  const byStatus: OrgTransactionCounts['byStatus'] = Object.fromEntries(
    STATES.map((s) => [s, { asOriginator: 0, asBeneficiary: 0 }]),
  );
  let asOriginator = 0;
  let asBeneficiary = 0;
  for (const row of await store.partyCounts(q, organizationId)) {
    byStatus[row.status] = { asOriginator: row.asOriginator, asBeneficiary: row.asBeneficiary };
    asOriginator += row.asOriginator;
    asBeneficiary += row.asBeneficiary;
  }
  return { organizationId, asOriginator, asBeneficiary, byStatus };
}
