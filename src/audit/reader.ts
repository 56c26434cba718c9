/**
 * Reading the audit chain: pages for the API (keyset on `seq`, newest first), ascending batches
 * for exports and for `audit verify` (constant memory however long the chain), and the head.
 * Filters are parameters, never SQL text. "About an organization" means: the organization
 * itself (subject), its keys and secrets, what it or its people did (actor) and its transactions.
 */
import type { Queryable } from '../db/database.js';
import { validationFailed } from '../http/errors.js';
import type { LinkedRow } from './chain.js';
import { GENESIS } from './chain.js';
import { AT_SQL } from './store.js';

export interface AuditFilter {
  actor?: string;
  action?: string;
  transactionRef?: string;
  organizationId?: string;
  /** ISO 8601 date-times: from inclusive, to exclusive. */
  from?: string;
  to?: string;
}

/** Actions about a shared transaction that belong to one party alone (named in `details.organizationId`). */
const PRIVATE_TO_PARTY = `'transaction.review_changed'`;

const COLUMNS = `seq, ${AT_SQL} AS at, actor, action, subject_type, subject_id, details, prev_hash, hash`;

type DbRow = {
  seq: number;
  at: string;
  actor: string;
  action: string;
  subject_type: string;
  subject_id: string;
  details: Record<string, unknown> | null;
  prev_hash: string;
  hash: string;
};

function toEvent(r: DbRow): LinkedRow {
  return {
    seq: r.seq,
    at: r.at,
    actor: r.actor,
    action: r.action,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    details: r.details,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

/** WHERE clauses and parameters for a filter; `params` already holds what the caller bound. */
function where(f: AuditFilter, params: unknown[]): string[] {
  const clauses: string[] = [];
  const bind = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.actor !== undefined) clauses.push(`actor = ${bind(f.actor)}`);
  if (f.action !== undefined) clauses.push(`action = ${bind(f.action)}`);
  if (f.transactionRef !== undefined) {
    clauses.push(`subject_type = 'transaction' AND subject_id = ${bind(f.transactionRef)}`);
  }
  if (f.organizationId !== undefined) {
    const id = bind(f.organizationId);
    // A person's actions name the person (`user:<id>`); the users table says whose team it is.
    // A party's review of a shared transaction (src/reviews/) is its own: the counterparty never
    // sees those rows, though they are about a transaction it shares.
    clauses.push(`(subject_id = ${id} OR actor = 'org:' || ${id} OR details->>'organizationId' = ${id}
      OR actor IN (SELECT 'user:' || u.id::text FROM users u WHERE u.organization_id = ${id}::uuid)
      OR (subject_type = 'transaction' AND subject_id IN
          (SELECT ref::text FROM transactions WHERE originator_id = ${id}::uuid OR beneficiary_id = ${id}::uuid)
          AND action NOT IN (${PRIVATE_TO_PARTY})))`);
  }
  if (f.from !== undefined) clauses.push(`at >= ${bind(f.from)}::timestamptz`);
  if (f.to !== undefined) clauses.push(`at < ${bind(f.to)}::timestamptz`);
  return clauses;
}

/** One page, newest first, of rows below `beforeSeq` (all when undefined). */
export async function auditPage(
  q: Queryable,
  filter: AuditFilter,
  beforeSeq: number | undefined,
  limit: number,
): Promise<{ events: LinkedRow[]; nextCursor: string | null }> {
  const params: unknown[] = [];
  const clauses = where(filter, params);
  if (beforeSeq !== undefined) clauses.push(`seq < $${params.push(beforeSeq)}`);
  const rows = await q.query<DbRow>(
    `SELECT ${COLUMNS} FROM audit_events ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}
     ORDER BY seq DESC LIMIT $${params.push(limit + 1)}`,
    params,
  );
  const events = rows.slice(0, limit).map(toEvent);
  const more = rows.length > limit;
  return { events, nextCursor: more ? encodeSeqCursor(events[events.length - 1]!.seq) : null };
}

/**
 * Rows in chain order, from after `afterSeq` up to `uptoSeq`, fetched `batch` at a time: an export
 * or a verification holds one batch in memory, never the chain.
 */
export async function* auditRows(
  q: Queryable,
  filter: AuditFilter,
  range: { afterSeq?: number; uptoSeq: number },
  batch = 1000,
): AsyncGenerator<LinkedRow> {
  let after = range.afterSeq ?? 0;
  for (;;) {
    const params: unknown[] = [];
    const clauses = where(filter, params);
    clauses.push(`seq > $${params.push(after)}`, `seq <= $${params.push(range.uptoSeq)}`);
    const rows = await q.query<DbRow>(
      `SELECT ${COLUMNS} FROM audit_events WHERE ${clauses.join(' AND ')} ORDER BY seq LIMIT ${batch}`,
      params,
    );
    for (const r of rows) yield toEvent(r);
    if (rows.length < batch) return;
    after = rows[rows.length - 1]!.seq;
  }
}

/** The chain's head: the last row's seq and hash (0 and the genesis hash while empty). */
export async function chainHead(q: Queryable): Promise<{ seq: number; hash: string }> {
  const [row] = await q.query<{ seq: number; hash: string }>(
    'SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1',
  );
  return row ? { seq: row.seq, hash: row.hash } : { seq: 0, hash: GENESIS };
}

/** The hash the chain holds at `seq` now, if that row exists. */
export async function hashAt(q: Queryable, seq: number): Promise<string | undefined> {
  const [row] = await q.query<{ hash: string }>('SELECT hash FROM audit_events WHERE seq = $1', [seq]);
  return row?.hash;
}

export function encodeSeqCursor(seq: number): string {
  return Buffer.from(JSON.stringify([seq])).toString('base64url');
}

/** A cursor this API returned, else 400 naming the parameter. */
export function decodeSeqCursor(cursor: string): number {
  try {
    const [seq, ...rest] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (rest.length === 0 && Number.isSafeInteger(seq) && seq > 0 && seq < 2 ** 31) return seq;
  } catch {
    // fall through to the validation error
  }
  throw validationFailed([{ path: '/querystring/cursor', message: 'is not a cursor this API returned' }]);
}
