/**
 * Writing to the outbox. Commands call `enqueue` with the Queryable of their own database
 * transaction, so a message exists exactly when the state change that caused it commits.
 * Payloads never carry personal data; `prepare` in the worker adds it at send time.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { newMessageId } from './signing.js';

/** Webhook events (path `/v1/notify/<event>`) and the NOTIFY e-mail. */
export type WebhookEvent = 'received' | 'confirmed-data' | 'declined' | 'tx-hash' | 'ping';

export type OutboxMessage =
  | {
      channel: 'webhook';
      event: WebhookEvent;
      organizationId: string;
      transactionRef: string | null;
      payload: Record<string, unknown>;
    }
  | {
      channel: 'email';
      event: 'notify';
      emailTo: string;
      transactionRef: string;
      payload: Record<string, unknown>;
    };

/** An outbox row as written: its ids and its message. */
export interface WrittenMessage {
  deliveryId: string;
  messageId: string;
  message: OutboxMessage;
}

/** The channel the worker LISTENs on; NOTIFY inside the transaction fires at commit. */
export const OUTBOX_CHANNEL = 'hub_outbox';

export async function enqueue(q: Queryable, messages: OutboxMessage[]): Promise<string[]> {
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
