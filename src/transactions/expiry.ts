/**
 * Expiry (SPEC §11): a transaction in NEW or RECEIVER_NOTIFIED with no state change for
 * HUB_PENDING_EXPIRY ends EXPIRED. Every process that runs a delivery worker sweeps, at least every
 * 10 s, in batches; each transaction expires in its own database transaction with its messages,
 * and rows another sweeper holds are skipped (SKIP LOCKED), so each expires exactly once.
 */
import type { Database } from '../db/database.js';
import type { Lifecycle } from './lifecycle.js';

const BATCH = 100;

/** Expires what is due, a batch at most (run by a Periodic, deliveries/periodic.ts). */
export async function expireDue(db: Database, lifecycle: Lifecycle, expiryMs: number): Promise<void> {
  for (let n = 0; n < BATCH; n++) {
    if (!(await db.transaction((tx) => lifecycle.expireOne(tx, expiryMs)))) break;
  }
}
