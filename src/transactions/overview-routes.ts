/** Overview routes: transfers per day (members, operator), the operator's list and per-organization counts. */
import type { Database } from '../db/database.js';
import { orgOf } from '../http/auth.js';
import { type HubApp, problems } from '../http/types.js';
import { adminList, dailyStats, orgCounts } from './overview.js';
import {
  AdminDailyQuery,
  AdminListQuery,
  AdminTransactionList,
  DailyQuery,
  DailyStats,
  OrgCountsQuery,
  OrgTransactionCounts,
} from './overview-schemas.js';

export function overviewRoutes(app: HubApp, db: Database) {
  app.get(
    '/v1/transactions/stats/daily',
    {
      schema: {
        tags: ['transactions'],
        summary: 'The caller’s transfers per UTC day, by current status and protocol, zero-filled',
        description:
          'Both directions (as originator and as beneficiary); `days` (1–366, default 30) ends today in UTC.',
        querystring: DailyQuery,
        response: { 200: DailyStats, ...problems(400) },
      },
    },
    (request) => dailyStats(db, { days: request.query.days, organizationId: orgOf(request) }),
  );
}

export function adminOverviewRoutes(app: HubApp, db: Database) {
  const tags = ['operator'];
  app.get(
    '/v1/admin/transactions',
    {
      schema: {
        tags,
        summary: 'Every transaction, newest first, keyset-paged: metadata only, never personal data',
        description:
          'Filters: `status`, `protocol`, `orgId` (either party). `limit` 1–200 (default 50); pass `nextCursor` back as `cursor`.',
        querystring: AdminListQuery,
        response: { 200: AdminTransactionList, ...problems(400, 403) },
      },
    },
    (request) => adminList(db, request.query),
  );

  app.get(
    '/v1/admin/transactions/stats/daily',
    {
      schema: {
        tags,
        summary:
          'Transfers per UTC day across the hub (or of one organization), by status and protocol, zero-filled',
        querystring: AdminDailyQuery,
        response: { 200: DailyStats, ...problems(400, 403) },
      },
    },
    (request) => dailyStats(db, { days: request.query.days, organizationId: request.query.orgId }),
  );

  app.get(
    '/v1/admin/transactions/counts',
    {
      schema: {
        tags,
        summary: 'An organization’s transactions by status, as originator and as beneficiary',
        querystring: OrgCountsQuery,
        response: { 200: OrgTransactionCounts, ...problems(400, 403) },
      },
    },
    (request) => orgCounts(db, request.query.orgId),
  );
}
