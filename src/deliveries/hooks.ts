/**
 * What the delivery engine needs from the transactions domain, as an interface so that the two
 * meet only here: personal data to attach at send time, and the state change a delivery causes.
 */
import type { Queryable } from '../db/database.js';
import type { Ivms101Message } from '../ivms101/message.js';
import type { OutboxMessage } from './events.js';

export interface DeliveryHooks {
  /**
   * The transaction's personal data (decrypted from the sealed copy): the canonical IVMS101
   * message (SPEC §18), which the sender writes in the recipient's version.
   */
  readPii(transactionRef: string): Promise<Ivms101Message>;
  /** The transaction's decline or cancel reason as its webhook shows it (opened from the sealed copy). */
  readReason(transactionRef: string): Promise<unknown>;
  /**
   * Opens the recording of a batch of attempts, inside its database transaction and before any
   * delivery row is written: locks the batch's transactions. A transaction's row is always taken
   * before its deliveries' rows (every command that queues or withdraws messages does so), so the
   * recorder and a command such as cancel never wait on each other in a cycle. The step it returns
   * runs once the successes are marked DELIVERED, with those messages: the state changes they
   * cause (SPEC §7: `received` or the NOTIFY e-mail → RECEIVER_NOTIFIED), committed with them. Must
   * be idempotent: a delivery repeated after a crash finds the transaction already moved.
   */
  deliveryOutcomes(tx: Queryable, batch: readonly OutboxMessage[]): Promise<OutcomeStep>;
}

/** A message the recipient took, and what it answered when that matters (a TRP peer's). */
export interface Delivered {
  message: OutboxMessage;
  answer?: unknown;
  /**
   * Its transaction ended (cancelled or expired) while it was in flight, which withdrew it: the
   * recipient was told of a transaction that has ended since.
   */
  withdrawn?: boolean;
}

/** What the messages that were delivered do, once they are marked DELIVERED. */
export type OutcomeStep = (delivered: readonly Delivered[]) => Promise<void>;
