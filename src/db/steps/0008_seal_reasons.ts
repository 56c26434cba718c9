/**
 * Data step 0008: seals the decline reasons written in plaintext before migration 0007 (in
 * `transactions.decline_reason` and `transaction_history.reason`) into `sealed_reason`, and takes
 * the reason out of queued `declined` payloads (the worker now adds it at send time from the
 * sealed copy). Runs inside the migrations' transaction, before 0009 drops the plaintext columns.
 */
import { sealReason } from '../../transactions/reasons.js';
import type { Queryable } from '../database.js';

export async function sealReasons(tx: Queryable, masterKey: Buffer | undefined): Promise<void> {
  const plain = await tx.query<{ ref: string; reason: unknown }>(
    `SELECT ref::text AS ref, decline_reason AS reason FROM transactions WHERE decline_reason IS NOT NULL
     UNION ALL
     SELECT transaction_ref::text, reason FROM transaction_history WHERE reason IS NOT NULL`,
  );
  if (plain.length > 0 && masterKey === undefined) {
    throw new Error('migration 0008 seals stored decline reasons and needs HUB_MASTER_KEY');
  }
  const sealed = new Map<string, Buffer>();
  for (const { ref, reason } of plain) {
    if (!sealed.has(ref)) sealed.set(ref, sealReason(masterKey!, ref, reason));
  }
  for (const [ref, blob] of sealed) {
    await tx.query(
      'UPDATE transactions SET sealed_reason = $2, decline_reason = NULL WHERE ref = $1 AND decline_reason IS NOT NULL',
      [ref, blob],
    );
    await tx.query(
      'UPDATE transaction_history SET sealed_reason = $2, reason = NULL WHERE transaction_ref = $1 AND reason IS NOT NULL',
      [ref, blob],
    );
  }
  await tx.query(
    `UPDATE deliveries SET payload = payload - 'reason' WHERE event = 'declined' AND payload ? 'reason'`,
  );
}
