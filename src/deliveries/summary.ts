/**
 * Whether a transaction's messages got through, as a party may see it (SPEC §17 `delivery`): the
 * originator about the message that tells the beneficiary (`received`, the NOTIFY e-mail, or the
 * inquiry to a TRP peer), the beneficiary about the latest message owed to the originator (a webhook,
 * or to a TRP peer the resolution). State, attempts, a class of the
 * last error and the next attempt; never a payload, an endpoint or a receiver's answer.
 */
import { Type } from 'typebox';
import type { Queryable } from '../db/database.js';
import { toIso } from '../db/database.js';

export const DeliverySummary = Type.Object(
  {
    state: Type.Enum(['pending', 'delivered', 'retrying', 'failed', 'not-applicable'], {
      description:
        'pending: not tried yet (or on its first try); retrying: tried and failed, another attempt is planned; ' +
        'failed: every attempt failed (the recipient can have it sent again); not-applicable: no such message ' +
        '(no endpoint to send to, or withdrawn when the transaction ended).',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    lastError: Type.Union(
      [
        Type.Enum([
          'timeout',
          'connection',
          'http-5xx',
          'http-4xx',
          'refused-target',
          'smtp',
          'invalid-answer',
        ]),
        Type.Null(),
      ],
      {
        description:
          'What the last failed attempt ran into, as a class; never the answer itself. invalid-answer: a TRP ' +
          'peer answered 2xx with something that is not a TRP answer.',
      },
    ),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { description: 'Whether the message that tells the counterparty got through.' },
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
export interface Summary {
  state: DeliveryState;
  attempts: number;
  lastError: ErrorClass | null;
  nextAttemptAt: string | null;
}

export const NOT_APPLICABLE: Summary = {
  state: 'not-applicable',
  attempts: 0,
  lastError: null,
  nextAttemptAt: null,
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

/** SQL: a delivery row `d` that tells the beneficiary of its transaction. */
const TELLS_BENEFICIARY = `((d.channel = 'webhook' AND d.event = 'received') OR (d.channel = 'email' AND d.event = 'notify')
  OR (d.channel = 'trp' AND d.event = 'trp-inquiry'))`;
/** SQL: a delivery row `d` that answers the TRP peer that originated its transaction. */
const ANSWERS_TRP_PEER = `(d.channel = 'trp' AND d.event = 'trp-resolution')`;

/** SQL: rows of `d` that are failing: every attempt failed, or the last one did and another is planned. */
export const FAILING = `(d.status = 'FAILED' OR (d.status IN ('PENDING', 'HELD') AND d.attempts > 0))`;

/**
 * SQL condition on transaction `t` (with `$viewer` the caller's organization): a message the caller
 * cares about is failing (the list's `delivery=failing` filter).
 */
export function deliveryFailing(viewer: string): string {
  return `EXISTS (SELECT 1 FROM deliveries d WHERE d.transaction_ref = t.ref AND ${FAILING}
            AND CASE WHEN t.originator_id = ${viewer} THEN ${TELLS_BENEFICIARY}
                     WHEN t.originator_id IS NULL THEN ${ANSWERS_TRP_PEER}
                     ELSE d.channel = 'webhook' AND d.organization_id = t.originator_id END)`;
}

/** Each transaction's summary as `viewerId` (its originator or beneficiary) may see it. */
export async function deliverySummaries(
  q: Queryable,
  transactions: readonly { ref: string; originatorId: string | null }[],
  viewerId: string,
): Promise<Map<string, Summary>> {
  const asOriginator = transactions.filter((t) => t.originatorId === viewerId).map((t) => t.ref);
  const asBeneficiary = transactions.filter((t) => t.originatorId !== viewerId && t.originatorId !== null);
  const fromTrpPeers = transactions.filter((t) => t.originatorId === null).map((t) => t.ref);
  if (transactions.length === 0) return new Map();
  const rows = await q.query(
    `SELECT DISTINCT ON (d.transaction_ref) d.transaction_ref, d.channel, d.status, d.attempts, d.next_attempt_at,
            d.last_error,
            (SELECT a.status_code FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1)
              AS last_status
       FROM deliveries d
      WHERE (d.transaction_ref = ANY ($1::uuid[]) AND ${TELLS_BENEFICIARY})
         OR (d.channel = 'webhook' AND (d.transaction_ref, d.organization_id) IN (
               SELECT (x->>'ref')::uuid, (x->>'originatorId')::uuid FROM jsonb_array_elements($2::jsonb) x))
         OR (d.transaction_ref = ANY ($3::uuid[]) AND ${ANSWERS_TRP_PEER})
      ORDER BY d.transaction_ref, d.seq DESC`,
    [
      asOriginator,
      JSON.stringify(asBeneficiary.map(({ ref, originatorId }) => ({ ref, originatorId }))),
      fromTrpPeers,
    ],
  );
  const out = new Map<string, Summary>();
  for (const r of rows) out.set(r.transaction_ref as string, summaryOf(r));
  return out;
}

function summaryOf(r: Record<string, unknown>): Summary {
  const status = r.status as string;
  const attempts = r.attempts as number;
  if (status === 'CANCELLED') return NOT_APPLICABLE;
  const lastError = errorClass(
    r.channel as string,
    (r.last_error as string | null) ?? null,
    (r.last_status as number | null) ?? null,
  );
  if (status === 'DELIVERED') return { state: 'delivered', attempts, lastError: null, nextAttemptAt: null };
  if (status === 'FAILED') return { state: 'failed', attempts, lastError, nextAttemptAt: null };
  return {
    state: attempts === 0 ? 'pending' : 'retrying',
    attempts,
    lastError: attempts === 0 ? null : lastError,
    nextAttemptAt: status === 'PENDING' && r.next_attempt_at != null ? toIso(r.next_attempt_at) : null,
  };
}
