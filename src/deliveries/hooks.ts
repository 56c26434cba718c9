/**
 * What the delivery engine needs from the transactions domain, as an interface so that the two
 * meet only here: personal data to attach at send time, and the state change a delivery causes.
 */
import type { Queryable } from '../db/database.js';
import type { OutboxMessage } from './events.js';

export interface DeliveryHooks {
  /** The transaction's `pii` exactly as submitted (decrypted from the sealed copy). */
  readPii(transactionRef: string): Promise<{ originator: unknown; beneficiary: unknown }>;
  /** The transaction's decline or cancel reason as its webhook shows it (opened from the sealed copy). */
  readReason(transactionRef: string): Promise<unknown>;
  /**
   * Called inside the database transaction that marks messages DELIVERED (a batch of them), so
   * the state changes they cause (SPEC §7: `received` or the NOTIFY e-mail → RECEIVER_NOTIFIED)
   * commit with them. Must be idempotent: a delivery repeated after a crash finds the
   * transaction already moved.
   */
  deliveryOutcomes(tx: Queryable, delivered: readonly Delivered[]): Promise<void>;
}

/** A message the recipient took, and what it answered when that matters (a TRP peer's). */
export interface Delivered {
  message: OutboxMessage;
  answer?: unknown;
}
