/**
 * SQL of retention and erasure (SPEC §14): which transactions are due, and the erasure itself,
 * which empties every sealed column that belongs to a transaction (its personal data and its
 * decline or cancel reason, in the transaction and its history) and deletes Idempotency-Key records
 * whose answers were about it. Each blob holds its own wrapped data key, so deleting the blob deletes
 * the key with it; nothing else can open it again.
 */
import type { Queryable } from '../db/database.js';
import { toBuffer, toIso } from '../db/database.js';

export interface ErasureSubject {
  ref: string;
  /** The parties: their Idempotency-Key records are searched for answers about the transaction. */
  parties: string[];
  piiErasedAt: string | null;
}

function subject(r: Record<string, unknown>): ErasureSubject {
  return {
    ref: String(r.ref),
    parties: [r.originator_id, r.beneficiary_id].filter((p): p is string => typeof p === 'string'),
    piiErasedAt: r.pii_erased_at == null ? null : toIso(r.pii_erased_at),
  };
}

/**
 * Up to `limit` transactions whose last state change is older than `retentionMs` and whose data is
 * still there, oldest first, locked; rows another sweeper holds are skipped.
 */
export async function dueForErasure(
  q: Queryable,
  retentionMs: number,
  limit: number,
): Promise<ErasureSubject[]> {
  const rows = await q.query(
    `SELECT ref::text AS ref, originator_id::text AS originator_id, beneficiary_id::text AS beneficiary_id, pii_erased_at
       FROM transactions
      WHERE pii_erased_at IS NULL AND state_changed_at < now() - $1 * interval '1 millisecond'
      ORDER BY state_changed_at
      LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [retentionMs, limit],
  );
  return rows.map(subject);
}

/** One transaction, locked until the surrounding transaction ends. */
export async function lockTransaction(q: Queryable, ref: string): Promise<ErasureSubject | undefined> {
  const rows = await q.query(
    `SELECT ref::text AS ref, originator_id::text AS originator_id, beneficiary_id::text AS beneficiary_id, pii_erased_at
       FROM transactions WHERE ref = $1 FOR UPDATE`,
    [ref],
  );
  return rows[0] && subject(rows[0]);
}

/** Empties the transaction's sealed columns (review notes included) and sets `pii_erased_at`; returns when. */
export async function eraseSealed(q: Queryable, ref: string): Promise<string> {
  const rows = await q.query(
    `UPDATE transactions SET sealed_pii = NULL, sealed_reason = NULL, pii_erased_at = clock_timestamp()
      WHERE ref = $1 RETURNING pii_erased_at`,
    [ref],
  );
  await q.query(
    'UPDATE transaction_history SET sealed_reason = NULL WHERE transaction_ref = $1 AND sealed_reason IS NOT NULL',
    [ref],
  );
  // Both parties' review notes may name people too (src/reviews/): their text goes, who and when stay.
  await q.query(
    'UPDATE review_notes SET sealed_text = NULL WHERE transaction_ref = $1 AND sealed_text IS NOT NULL',
    [ref],
  );
  return toIso(rows[0]!.pii_erased_at);
}

export interface AnswerRecord {
  organizationId: string;
  key: string;
  /** The answer stored in the clear (group-committed initiations), as JSON text. */
  response: string | null;
  sealed: Buffer | null;
}

/**
 * The Idempotency-Key records of these organizations (live or expired but not purged yet) that may
 * be about the transaction: answers in the clear that name it, and every sealed answer (checked by
 * the caller once opened).
 */
export async function answersOf(
  q: Queryable,
  organizations: readonly string[],
  ref: string,
): Promise<AnswerRecord[]> {
  if (organizations.length === 0) return [];
  const rows = await q.query(
    `SELECT organization_id::text AS org, idempotency_key, response::text AS response, sealed_response
       FROM idempotency_keys
      WHERE organization_id = ANY($1::uuid[])
        AND (sealed_response IS NOT NULL OR position($2 in response::text) > 0)`,
    [organizations, ref],
  );
  return rows.map((r) => ({
    organizationId: String(r.org),
    key: String(r.idempotency_key),
    response: (r.response as string | null) ?? null,
    sealed: r.sealed_response == null ? null : toBuffer(r.sealed_response),
  }));
}

export async function deleteAnswer(q: Queryable, organizationId: string, key: string): Promise<void> {
  await q.query('DELETE FROM idempotency_keys WHERE organization_id = $1 AND idempotency_key = $2', [
    organizationId,
    key,
  ]);
}
