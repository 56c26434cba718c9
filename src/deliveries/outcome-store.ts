/**
 * SQL of the outcomes: a claimed row's attempt recorded with its consequence for the row
 * (DELIVERED, PENDING again for a retry, or FAILED, which holds back the messages behind it), each
 * only while the row's lease token still matches (claim-store.ts).
 */
import type { Queryable } from '../db/database.js';
import { leaseParams, sameStream } from './claim-store.js';
import { OUTBOX_CHANNEL } from './outbox.js';
import type { LeasedMessage } from './types.js';

/** The status a failed attempt leaves its row in: PENDING (to be retried) or FAILED. */
type RetriedOrFailed = 'PENDING' | 'FAILED';

export interface AttemptResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/**
 * Marks leased rows DELIVERED and records their attempts, in one statement whatever their number
 * (the worker records what finished meanwhile together). Returns the rows whose lease still
 * held, each saying whether it had been withdrawn (CANCELLED) while it was in flight: the
 * recipient has it all the same. Only the attempt is recorded for the others. Wakes the workers
 * (NOTIFY, sent at commit; repeats within a transaction are folded into one) when a later message
 * of the same transaction was waiting for one of these.
 */
export async function markDeliveredMany(
  q: Queryable,
  items: { d: LeasedMessage; attempt: AttemptResult }[],
): Promise<{ d: LeasedMessage; withdrawn: boolean }[]> {
  if (items.length === 0) return [];
  const rows = await q.query<{ id: string; withdrawn: boolean }>(
    `WITH h AS (
       SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[])
         AS h(id, lease, status_code, latency_ms)),
     done AS (
       UPDATE deliveries d SET status = 'DELIVERED', attempts = d.attempts + 1,
              delivered_at = clock_timestamp(), last_error = NULL
         FROM h JOIN deliveries was ON was.id = h.id
        WHERE d.id = h.id AND d.status IN ('PENDING', 'CANCELLED')
          AND d.next_attempt_at IS NOT DISTINCT FROM h.lease
       RETURNING d.id, d.seq, d.transaction_ref, was.status = 'CANCELLED' AS withdrawn),
     tried AS (
       INSERT INTO delivery_attempts (delivery_id, status_code, latency_ms)
       SELECT id, status_code, latency_ms FROM h)
     SELECT done.id, done.withdrawn,
            (SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM deliveries e
              WHERE e.transaction_ref = done.transaction_ref AND e.seq > done.seq AND e.status = 'PENDING'
              LIMIT 1) AS woke
       FROM done`,
    [...leaseParams(items.map((i) => i.d)), ...attemptParams(items)],
  );
  const held = new Map(rows.map((r) => [r.id, r.withdrawn]));
  return items.filter((i) => held.has(i.d.id)).map((i) => ({ d: i.d, withdrawn: held.get(i.d.id)! }));
}

/**
 * Records failed attempts, in one statement: each row PENDING again after its `retryInMs`, or
 * FAILED when that is null. Returns each row's new status; rows whose lease was lost are absent
 * (their attempt is recorded).
 */
export async function markFailedMany(
  q: Queryable,
  items: { d: LeasedMessage; attempt: AttemptResult & { error: string }; retryInMs: number | null }[],
): Promise<Map<string, RetriedOrFailed>> {
  if (items.length === 0) return new Map();
  const rows = await q.query<{ id: string; status: RetriedOrFailed }>(
    `WITH f AS (
       SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::float8[], $5::int[], $6::int[])
         AS f(id, lease, error, retry_ms, status_code, latency_ms)),
     tried AS (
       INSERT INTO delivery_attempts (delivery_id, status_code, latency_ms, error)
       SELECT id, status_code, latency_ms, error FROM f)
     UPDATE deliveries d SET attempts = d.attempts + 1, last_error = f.error,
            status = CASE WHEN f.retry_ms IS NULL THEN 'FAILED' ELSE 'PENDING' END,
            next_attempt_at = CASE WHEN f.retry_ms IS NULL THEN d.next_attempt_at
              ELSE clock_timestamp() + make_interval(secs => f.retry_ms / 1000) END
       FROM f
      WHERE d.id = f.id AND d.status = 'PENDING' AND d.next_attempt_at IS NOT DISTINCT FROM f.lease
     RETURNING d.id, d.status`,
    [
      ...leaseParams(items.map((i) => i.d)),
      items.map((i) => i.attempt.error),
      items.map((i) => i.retryInMs),
      ...attemptParams(items),
    ],
  );
  const failed = rows.filter((r) => r.status === 'FAILED').map((r) => r.id);
  if (failed.length > 0) await holdSuccessors(q, failed);
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** The PENDING messages behind these FAILED ones (same transaction and recipient) become HELD. */
async function holdSuccessors(q: Queryable, failedIds: string[]): Promise<void> {
  await q.query(
    `UPDATE deliveries d SET status = 'HELD'
       FROM deliveries f
      WHERE f.id = ANY ($1::uuid[]) AND ${sameStream('d', 'f')} AND d.seq > f.seq AND d.status = 'PENDING'`,
    [failedIds],
  );
}

/** Status codes and whole milliseconds, as the `int[]` parameters of an attempt row insert. */
function attemptParams(items: { attempt: AttemptResult }[]): [(number | null)[], number[]] {
  return [
    items.map((i) => i.attempt.statusCode),
    items.map((i) => Math.max(0, Math.round(i.attempt.latencyMs))),
  ];
}
