/**
 * Hub-wide counters for the operator. Read-only aggregates over the other domains' tables,
 * kept here so no domain store grows operator queries. Counts are cast to int so PGlite and
 * PostgreSQL answer with numbers alike. These scan their tables (fine for an operator's page
 * that polls every few seconds; the pending count uses the worker's partial index).
 */
import type { Queryable } from '../db/database.js';
import { STATES as STATUSES } from '../transactions/state-machine.js';
import type { HubStats } from './schemas.js';

export async function hubStats(q: Queryable): Promise<HubStats> {
  const [byStatus, pending, failed, orgs] = await Promise.all([
    q.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM transactions GROUP BY status',
    ),
    q.query<{ n: number; age: number | null }>(
      `SELECT count(*)::int AS n,
              floor(extract(epoch FROM (now() - min(created_at))))::int AS age
         FROM deliveries WHERE status IN ('PENDING', 'HELD')`,
    ),
    q.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'FAILED'`),
    q.query<{ total: number; verified: number }>(
      `SELECT count(*)::int AS total,
              (count(*) FILTER (WHERE organization_type = 'verified'))::int AS verified
         FROM organizations`,
    ),
  ]);
  const transactionsByStatus = Object.fromEntries(
    STATUSES.map((s) => [s, 0]),
  ) as HubStats['transactionsByStatus'];
  for (const row of byStatus) {
    if ((STATUSES as readonly string[]).includes(row.status)) {
      transactionsByStatus[row.status as (typeof STATUSES)[number]] = row.n;
    }
  }
  const age = pending[0]?.age ?? null;
  return {
    transactionsByStatus,
    deliveries: {
      pending: pending[0]?.n ?? 0,
      failed: failed[0]?.n ?? 0,
      oldestPendingAgeSeconds: age === null ? null : Math.max(0, age),
    },
    organizations: { total: orgs[0]?.total ?? 0, verified: orgs[0]?.verified ?? 0 },
  };
}
