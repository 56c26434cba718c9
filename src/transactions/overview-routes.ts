/** Overview routes: transfers per day (members, operator), the operator's list and per-organization counts. */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Database } from '../db/database.js';
import { sendAttachment } from '../http/attachment.js';
import { orgOf } from '../http/auth.js';
import { validationFailed } from '../http/errors.js';
import { type HubApp, jsonOrExport, problems } from '../http/types.js';
import { CSV_TYPE, fileStamp } from './csv.js';
import { adminCsv, adminList, dailyStats, orgCounts } from './overview.js';
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
        summary:
          'Every transaction, newest first, keyset-paged, or all of them as CSV: metadata only, never personal data',
        description:
          'Filters: `status`, `protocol`, `orgId` (either party). `limit` 1–200 (default 50); pass `nextCursor` back as `cursor`. ' +
          '`format=csv` answers `text/csv` (a header row, then every matching transaction, streamed) as an attachment.',
        querystring: AdminListQuery,
        response: { 200: jsonOrExport(AdminTransactionList), ...problems(400, 403) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      if (query.format !== 'csv') return adminList(db, query);
      if (query.cursor !== undefined || query.limit !== undefined) {
        throw validationFailed([
          {
            path: `/querystring/${query.cursor !== undefined ? 'cursor' : 'limit'}`,
            message: 'does not apply to format=csv (it has every row)',
          },
        ]);
      }
      return sendAttachment(reply as FastifyReply, {
        type: CSV_TYPE,
        filename: `hub-transactions-${fileStamp()}.csv`,
        body: Readable.from(adminCsv(db, query)),
      });
    },
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
