/**
 * The operator audit log: one append-only row per change to the directory and per read of
 * personal data. Callers write it inside the same database transaction as the change, so a
 * change without its audit row cannot exist. `details` never holds personal data or secrets.
 *
 * Every row extends one hash chain (chain.ts, SPEC §14), however many hub processes share the
 * database. One chain means one writer at a time at its head, so `recordAudit` first takes a
 * transaction-scoped advisory lock (CHAIN_LOCK), then reads the head, links the row and inserts
 * it; the lock is held until the caller's transaction commits or rolls back, so the next writer
 * (in this process or another) reads a head that is final. An advisory lock rather than a row
 * lock on a head table: nothing to update per row (no dead tuples on one hot row), and the
 * head is simply the row with the highest `seq` (a unique index). Audit rows are rare (changes
 * to the directory, reads of personal data; an initiation writes none), so writers seldom wait.
 * The database's own trigger (migration 0015) takes the same lock and refuses a row that does
 * not extend the head, and refuses UPDATE, DELETE and TRUNCATE.
 */
import { beforeCommit, type Database, type Queryable } from '../db/database.js';
import { GENESIS, linkHash } from './chain.js';

/** The chain's advisory lock key, shared by every hub process and by the trigger in migration 0015. */
export const CHAIN_LOCK = 7_202_615;

/** `at` as the chain hashes and every reader shows it: UTC, milliseconds, driver-independent. */
export const AT_SQL = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Who acted: a named operator as `operator:<id>:<name>` (`operator:bootstrap` for HUB_ADMIN_KEY,
 * `operator:cli` for the command line), an organization as `org:<id>`, whoever held the claim link
 * of a NOTIFY transaction as `claim:<transactionRef>`, a TRP VASP as `trp:<host>` (its
 * certificate in the details), a person signed in as `user:<id>` (SPEC §17; its organization in
 * the users table and in the row's details), or the hub itself.
 * (Rows written before named operators say `operator`; before migration 0017, `operator:<name>`.)
 */
export type Actor =
  | `operator:${string}`
  | `org:${string}`
  | `user:${string}`
  | `claim:${string}`
  | `trp:${string}`
  | 'hub';

export interface AuditEvent {
  actor: Actor;
  action: string;
  subjectType:
    | 'organization'
    | 'api_key'
    | 'webhook_secret'
    | 'transaction'
    | 'operator'
    | 'application'
    | 'travel_address'
    | 'trp_counterparty'
    | 'user'
    | 'invitation'
    | 'people_policy';
  subjectId: string;
  details?: Record<string, unknown>;
}

export async function recordAudit(q: Queryable, e: AuditEvent): Promise<void> {
  // Outside a transaction the lock would end with its statement: give the row one of its own.
  if (isDatabase(q)) return q.transaction((tx) => recordAudit(tx, e));
  // Linked and written as the caller's transaction commits, so that the chain's lock is the last
  // lock it takes (see beforeCommit): taken earlier, a transaction holding it could wait for a row
  // that another transaction holds while that one waits for the chain, a deadlock.
  await beforeCommit(q, () => appendRow(q, e));
}

async function appendRow(q: Queryable, e: AuditEvent): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock($1)', [CHAIN_LOCK]);
  const [head] = await q.query<{ seq: number | null; hash: string | null; now: string }>(
    `SELECT h.seq, h.hash, to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS now
       FROM (SELECT 1) one LEFT JOIN LATERAL
            (SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1) h ON true`,
  );
  // What the database will give back: JSON without undefined members, numbers as JSON writes them.
  // A lone surrogate (which the database would not keep as such) becomes U+FFFD, as in UTF-8.
  const details =
    e.details === undefined
      ? null
      : (JSON.parse(
          JSON.stringify(e.details, (_k, v) => (typeof v === 'string' ? wellFormed(v) : v)),
        ) as Record<string, unknown>);
  const seq = (head?.seq ?? 0) + 1;
  const prevHash = head?.hash ?? GENESIS;
  const row = {
    seq,
    at: head!.now,
    actor: wellFormed(e.actor),
    action: e.action,
    subjectType: e.subjectType,
    subjectId: wellFormed(e.subjectId),
    details,
  };
  await q.query(
    `INSERT INTO audit_events (seq, at, actor, action, subject_type, subject_id, details, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      seq,
      row.at,
      row.actor,
      e.action,
      e.subjectType,
      row.subjectId,
      details,
      prevHash,
      linkHash(prevHash, row),
    ],
  );
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

function isDatabase(q: Queryable): q is Database {
  return typeof (q as Partial<Database>).transaction === 'function';
}
