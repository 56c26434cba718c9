/**
 * Whether a transaction's messages got through, as a party may see it (SPEC §17 `delivery`): every
 * message the hub owes the counterparty about it. As the originator: every webhook to the
 * beneficiary (`received`, `confirmed-data`, `cancelled`, `tx-hash`, …), the NOTIFY e-mails, and
 * the TRP messages to the peer; as the beneficiary: every webhook to the originator, or to a TRP
 * peer every answer. The summary's state is the worst of the messages (failed > retrying >
 * pending > delivered), about the message it names; each message keeps its own state, attempts
 * and error class, and stays after the transaction ends (one withdrawn when it ended shows
 * `withdrawn`). Never a payload, an endpoint or a receiver's answer.
 */
import { Type } from 'typebox';
import type { Queryable } from '../db/database.js';
import { toIso } from '../db/database.js';

const ErrorClassSchema = Type.Union(
  [
    Type.Enum(['timeout', 'connection', 'http-5xx', 'http-4xx', 'refused-target', 'smtp', 'invalid-answer']),
    Type.Null(),
  ],
  {
    description:
      'What the last failed attempt ran into, as a class; never the answer itself. invalid-answer: a TRP ' +
      'peer answered 2xx with something that is not a TRP answer.',
  },
);
const NextAttempt = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const DeliveryMessage = Type.Object({
  event: Type.String({ description: 'received, confirmed-data, cancelled, tx-hash, notify, trp-inquiry, …' }),
  state: Type.Enum(['pending', 'delivered', 'retrying', 'failed', 'withdrawn'], {
    description: 'withdrawn: not sent because the transaction ended first (kept as evidence).',
  }),
  attempts: Type.Integer({ minimum: 0 }),
  lastError: ErrorClassSchema,
  nextAttemptAt: NextAttempt,
  deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const DeliverySummary = Type.Object(
  {
    state: Type.Enum(['pending', 'delivered', 'retrying', 'failed', 'not-applicable'], {
      description:
        'The worst of the messages: failed > retrying > pending > delivered. pending: not tried yet (or on its ' +
        'first try); retrying: tried and failed, another attempt is planned; failed: every attempt failed (the ' +
        'recipient can have it sent again); not-applicable: nothing is owed (no endpoint to send to, nothing ' +
        'sent yet, or every message was withdrawn when the transaction ended).',
    }),
    event: Type.Union([Type.String(), Type.Null()], {
      description: 'The message the state is about (the latest of the worst); null when not-applicable.',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    lastError: ErrorClassSchema,
    nextAttemptAt: NextAttempt,
    messages: Type.Array(DeliveryMessage, {
      description: 'Every message owed to the counterparty, in order.',
    }),
  },
  { description: 'Whether the messages the hub owes the counterparty about this transaction got through.' },
);

export type DeliveryState = 'pending' | 'delivered' | 'retrying' | 'failed' | 'not-applicable';
export type ErrorClass =
  | 'timeout'
  | 'connection'
  | 'http-5xx'
  | 'http-4xx'
  | 'refused-target'
  | 'smtp'
  | 'invalid-answer';
export type MessageState = 'pending' | 'delivered' | 'retrying' | 'failed' | 'withdrawn';

export interface MessageSummary {
  event: string;
  state: MessageState;
  attempts: number;
  lastError: ErrorClass | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

export interface Summary {
  state: DeliveryState;
  event: string | null;
  attempts: number;
  lastError: ErrorClass | null;
  nextAttemptAt: string | null;
  messages: MessageSummary[];
}

export const NOT_APPLICABLE: Summary = {
  state: 'not-applicable',
  event: null,
  attempts: 0,
  lastError: null,
  nextAttemptAt: null,
  messages: [],
};

/** The class of a failed attempt, from its recorded error and status code. Pure. */
export function errorClass(
  channel: string,
  error: string | null,
  statusCode: number | null,
): ErrorClass | null {
  if (error === null) return null;
  if (error.startsWith('timeout') || error.startsWith('not sent: no free connection')) return 'timeout';
  if (channel === 'email') return 'smtp';
  if (statusCode !== null && statusCode >= 500) return 'http-5xx';
  if (statusCode !== null && statusCode < 300) return 'invalid-answer';
  if (statusCode !== null) return 'http-4xx';
  if (error.startsWith('target refused') || error.startsWith('organization ')) return 'refused-target';
  return 'connection';
}

/**
 * SQL: a delivery row `d` of transaction `t` that the hub owes the counterparty of `viewer` (the
 * originator or the beneficiary): see the header. /identity reads of a TRP peer are the hub's own.
 */
function owedToCounterparty(viewer: string): string {
  const trpToPeer = `(d.channel = 'trp' AND d.event <> 'trp-identity')`;
  return `CASE WHEN t.originator_id = ${viewer}
                 THEN (d.channel = 'webhook' AND d.organization_id = t.beneficiary_id)
                      OR d.channel = 'email' OR ${trpToPeer}
               WHEN t.originator_id IS NULL THEN ${trpToPeer}
               ELSE d.channel = 'webhook' AND d.organization_id = t.originator_id END`;
}

/** SQL: rows of `d` that are failing: every attempt failed, or the last one did and another is planned. */
export const FAILING = `(d.status = 'FAILED' OR (d.status IN ('PENDING', 'HELD') AND d.attempts > 0))`;

/**
 * SQL condition on transaction `t` (with `$viewer` the caller's organization): a message the caller
 * cares about is failing (the list's `delivery=failing` filter).
 */
export function deliveryFailing(viewer: string): string {
  return `EXISTS (SELECT 1 FROM deliveries d WHERE d.transaction_ref = t.ref AND ${FAILING}
            AND ${owedToCounterparty(viewer)})`;
}

/** Each transaction's summary as `viewerId` (its originator or beneficiary) may see it. */
export async function deliverySummaries(
  q: Queryable,
  transactions: readonly { ref: string }[],
  viewerId: string,
): Promise<Map<string, Summary>> {
  if (transactions.length === 0) return new Map();
  const rows = await q.query(
    `SELECT d.transaction_ref, d.channel, d.event, d.status, d.attempts, d.next_attempt_at, d.last_error,
            d.delivered_at,
            (SELECT a.status_code FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1)
              AS last_status
       FROM deliveries d JOIN transactions t ON t.ref = d.transaction_ref
      WHERE d.transaction_ref = ANY ($1::uuid[]) AND ${owedToCounterparty('$2::uuid')}
      ORDER BY d.transaction_ref, d.seq`,
    [transactions.map((t) => t.ref), viewerId],
  );
  const messages = new Map<string, MessageSummary[]>();
  for (const r of rows) {
    const ref = r.transaction_ref as string;
    const list = messages.get(ref) ?? [];
    list.push(messageOf(r));
    messages.set(ref, list);
  }
  const out = new Map<string, Summary>();
  for (const [ref, list] of messages) out.set(ref, summarise(list));
  return out;
}

const RANK: Record<MessageState, number> = { withdrawn: 0, delivered: 1, pending: 2, retrying: 3, failed: 4 };

/** The summary of a transaction's messages (in order): the latest of the worst. Pure. */
export function summarise(messages: MessageSummary[]): Summary {
  let worst: MessageSummary | undefined;
  for (const m of messages) {
    if (m.state !== 'withdrawn' && (worst === undefined || RANK[m.state] >= RANK[worst.state])) worst = m;
  }
  if (worst === undefined) return { ...NOT_APPLICABLE, messages };
  return {
    state: worst.state as DeliveryState,
    event: worst.event,
    attempts: worst.attempts,
    lastError: worst.lastError,
    nextAttemptAt: worst.nextAttemptAt,
    messages,
  };
}

function messageOf(r: Record<string, unknown>): MessageSummary {
  const status = r.status as string;
  const attempts = r.attempts as number;
  const event = r.event as string;
  const lastError = errorClass(
    r.channel as string,
    (r.last_error as string | null) ?? null,
    (r.last_status as number | null) ?? null,
  );
  const base = { event, attempts, nextAttemptAt: null, deliveredAt: null };
  if (status === 'DELIVERED') {
    return { ...base, state: 'delivered', lastError: null, deliveredAt: toIso(r.delivered_at) };
  }
  if (status === 'FAILED') return { ...base, state: 'failed', lastError };
  if (status === 'CANCELLED')
    return { ...base, state: 'withdrawn', lastError: attempts === 0 ? null : lastError };
  return {
    ...base,
    state: attempts === 0 ? 'pending' : 'retrying',
    lastError: attempts === 0 ? null : lastError,
    nextAttemptAt: status === 'PENDING' && r.next_attempt_at != null ? toIso(r.next_attempt_at) : null,
  };
}
