/** Shapes of the operator's hub-wide counters. */
import { type Static, Type } from 'typebox';

const Count = Type.Integer({ minimum: 0 });

export const HubStats = Type.Object({
  transactionsByStatus: Type.Object(
    {
      NEW: Count,
      RECEIVER_NOTIFIED: Count,
      CONFIRMED: Count,
      DECLINED: Count,
      CANCELLED: Count,
      EXPIRED: Count,
    },
    { description: 'Transactions in each state, hub-wide.' },
  ),
  deliveries: Type.Object(
    {
      pending: Type.Integer({
        minimum: 0,
        description: 'Queue depth: webhooks and e-mails not yet delivered (PENDING and HELD).',
      }),
      failed: Type.Integer({ minimum: 0, description: 'Deliveries whose retry schedule is used up.' }),
      oldestPendingAgeSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
        description: 'Age of the oldest pending delivery since it was queued; null when none is pending.',
      }),
    },
    { description: 'The delivery queue (webhooks and NOTIFY e-mails).' },
  ),
  organizations: Type.Object({ total: Count, verified: Count }),
});
export type HubStats = Static<typeof HubStats>;
