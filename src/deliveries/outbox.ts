/**
 * The outbox's one writer. Every message the hub owes someone is a `deliveries` row written in
 * the same database transaction as the state change that causes it, so a message exists exactly
 * when its cause commits. Two ways in:
 * - `enqueue`, for commands: rows written with the command's own Queryable;
 * - `plan` → the caller's own statement (with `insertOutboxFrom` in it) → `committed`/`failed`,
 *   for a statement that writes many rows of another domain at once (the initiation group
 *   commit). `plan` also leases to this process's worker the webhooks it has room for, and
 *   `committed` hands them over, so they go out without a claim round trip.
 * Payloads never hold personal data (see events.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import type { OutboxMessage } from './events.js';
import { newMessageId } from './signing.js';
import type { LeasedMessage } from './types.js';

/** The channel the workers LISTEN on; a NOTIFY inside a transaction fires at commit. */
export const OUTBOX_CHANNEL = 'hub_outbox';

/** Writes the messages; returns their rows' ids. */
export async function enqueue(q: Queryable, messages: readonly OutboxMessage[]): Promise<string[]> {
  const ids: string[] = [];
  for (const m of messages) {
    const id = randomUUID();
    ids.push(id);
    // Behind a FAILED (or HELD) message of the same transaction to the same recipient, it is
    // HELD: it goes out after that one, once the failed one is redelivered.
    await q.query(
      `INSERT INTO deliveries (id, message_id, channel, event, organization_id, email_to, transaction_ref, payload,
                               status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8,
               CASE WHEN EXISTS (
                 SELECT 1 FROM deliveries f
                  WHERE f.transaction_ref = $7 AND f.channel = $3 AND f.status IN ('FAILED', 'HELD')
                    AND f.organization_id IS NOT DISTINCT FROM $5 AND f.email_to IS NOT DISTINCT FROM $6)
               THEN 'HELD' ELSE 'PENDING' END)`,
      [
        id,
        newMessageId(),
        m.channel,
        m.event,
        m.channel === 'webhook' ? m.organizationId : null,
        m.channel === 'email' ? m.emailTo : null,
        m.transactionRef,
        m.payload,
      ],
    );
  }
  if (messages.length > 0) await q.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
  return ids;
}

/** A worker in this process that takes freshly committed messages without claiming them. */
export interface LocalWorker {
  /** Asks the worker to look for due messages now. */
  wake(): void;
  /** Room for up to `n` messages, to be written leased for `leaseMs` (by the database's clock). */
  reserve(n: number): { count: number; leaseMs: number };
  /** The committed messages of a reserve(). */
  take(messages: LeasedMessage[]): void;
  /** Room reserved but not used. */
  cancel(n: number): void;
}

/** One outbox row as an element of a statement's jsonb input (see OUTBOX_INPUT_COLUMNS). */
export interface OutboxRow {
  delivery_id: string;
  message_id: string;
  channel: OutboxMessage['channel'];
  event: string;
  recipient_id: string | null;
  email_to: string | null;
  transaction_ref: string | null;
  payload: unknown;
  leased: boolean;
}

/** Column definitions of OutboxRow for `jsonb_to_recordset(…) AS x(…)`. */
export const OUTBOX_INPUT_COLUMNS =
  'delivery_id uuid, message_id text, channel text, event text, recipient_id uuid, email_to text, ' +
  'transaction_ref uuid, payload jsonb, leased boolean';

/**
 * SQL that writes the outbox rows of `source` (a CTE or table with OUTBOX_INPUT_COLUMNS), for use
 * as a data-modifying CTE of another statement. Leased rows become due at `leaseUntil` (an SQL
 * expression), the others at once.
 */
export function insertOutboxFrom(source: string, leaseUntil: string): string {
  return `INSERT INTO deliveries (id, message_id, channel, event, organization_id, email_to, transaction_ref,
         payload, next_attempt_at)
       SELECT delivery_id, message_id, channel, event, recipient_id, email_to, transaction_ref, payload,
              CASE WHEN leased THEN ${leaseUntil} ELSE clock_timestamp() END
         FROM ${source}`;
}

/** Rows planned for a statement: the outbox part of its input, and what it must do at commit. */
export interface OutboxPlan {
  readonly rows: readonly OutboxRow[];
  readonly messages: readonly OutboxMessage[];
  /** How long the leased rows are held, in milliseconds. */
  readonly leaseMs: number;
  /** Some rows were not leased to this process: the statement should NOTIFY the workers. */
  readonly notify: boolean;
  readonly leasedCount: number;
}

export class Outbox {
  private worker: LocalWorker | undefined;

  /** This process's worker, if it runs one. */
  attach(worker: LocalWorker): void {
    this.worker = worker;
  }

  /**
   * Ids for each message's row. With `lease`, the webhooks the local worker has room for are
   * leased to it, and the caller must settle the plan (committed or failed) once the statement ends.
   */
  plan(messages: readonly OutboxMessage[], { lease = true } = {}): OutboxPlan {
    const webhooks = messages.filter((m) => m.channel === 'webhook').length;
    const grant = (lease ? this.worker?.reserve(webhooks) : undefined) ?? { count: 0, leaseMs: 0 };
    let room = grant.count;
    const rows = messages.map((m): OutboxRow => {
      const leased = m.channel === 'webhook' && room > 0;
      if (leased) room--;
      return {
        delivery_id: randomUUID(),
        message_id: newMessageId(),
        channel: m.channel,
        event: m.event,
        recipient_id: m.channel === 'webhook' ? m.organizationId : null,
        email_to: m.channel === 'email' ? m.emailTo : null,
        transaction_ref: m.transactionRef,
        payload: m.payload,
        leased,
      };
    });
    return {
      rows,
      messages,
      leaseMs: grant.leaseMs,
      notify: grant.count < messages.length,
      leasedCount: grant.count,
    };
  }

  /**
   * The statement committed, its leases ending at `leaseUntil` (by the database's clock): the
   * leased rows that `written` says were written go to the worker; room for the others is given back.
   */
  committed(plan: OutboxPlan, leaseUntil: string, written: (index: number) => boolean): void {
    const worker = this.worker;
    if (!worker) return;
    const taken: LeasedMessage[] = [];
    plan.rows.forEach((row, i) => {
      if (row.leased && written(i)) {
        taken.push({
          id: row.delivery_id,
          messageId: row.message_id,
          message: plan.messages[i]!,
          attempts: 0,
          lease: leaseUntil,
        });
      }
    });
    if (taken.length < plan.leasedCount) worker.cancel(plan.leasedCount - taken.length);
    if (taken.length > 0) worker.take(taken);
    if (taken.length < plan.rows.length) worker.wake();
  }

  /** The statement failed: the room reserved for it is given back. */
  failed(plan: OutboxPlan): void {
    if (plan.leasedCount > 0) this.worker?.cancel(plan.leasedCount);
  }
}

/**
 * Withdraws the messages of a transaction that were not delivered (PENDING, HELD, or FAILED and
 * so waiting for a redelivery): they become CANCELLED and are never sent (a cancelled or expired
 * transaction, SPEC §11). A message being sent right now may still arrive; its outcome then
 * records only the attempt.
 */
export async function withdraw(q: Queryable, transactionRef: string): Promise<number> {
  const rows = await q.query(
    `UPDATE deliveries SET status = 'CANCELLED'
      WHERE transaction_ref = $1 AND status IN ('PENDING', 'HELD', 'FAILED') RETURNING id`,
    [transactionRef],
  );
  return rows.length;
}
