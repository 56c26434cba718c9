/**
 * Audit routes: the operator's reader, checkpoint and verification, an organization's reader, and
 * the chain's kept verified state for every key.
 */
import type { FastifyReply } from 'fastify';
import { sendAttachment } from '../http/attachment.js';
import { orgOf } from '../http/auth.js';
import { type HubApp, jsonOrExport, problems } from '../http/types.js';
import { EXPORT_TYPES } from './export.js';
import {
  AdminAuditQuery,
  AuditPage,
  ChainStatusAnswer,
  CheckpointSchema,
  OrgAuditQuery,
  VerifyAnswer,
} from './schemas.js';
import type { AuditQuery, AuditService } from './service.js';

export function auditRoutes(app: HubApp, audit: AuditService) {
  const reader = async (q: AuditQuery, reply: FastifyReply) => {
    if (q.format === undefined) return audit.page(q);
    return sendAttachment(reply, {
      type: EXPORT_TYPES[q.format],
      filename: `audit.${q.format}`,
      body: audit.export(q, q.format),
    });
  };

  app.get(
    '/v1/admin/audit',
    {
      schema: {
        tags: ['operator'],
        summary:
          'The audit trail, newest first, filtered and keyset-paged; format=jsonl|csv streams an export',
        querystring: AdminAuditQuery,
        response: { 200: jsonOrExport(AuditPage, ['jsonl', 'csv']), ...problems(400) },
      },
    },
    (request, reply) => reader(request.query, reply),
  );

  app.get(
    '/v1/admin/audit/checkpoint',
    {
      schema: {
        tags: ['operator'],
        summary: 'The chain’s head, signed with the hub’s audit key (keep it outside the hub)',
        response: { 200: CheckpointSchema, ...problems() },
      },
    },
    () => audit.checkpoint(),
  );

  app.get(
    '/v1/admin/audit/verify',
    {
      schema: {
        tags: ['operator'],
        summary: 'Walk the whole chain now and name the first broken row, if any',
        response: { 200: VerifyAnswer, ...problems() },
      },
    },
    () => audit.verify(),
  );

  app.get(
    '/v1/audit',
    {
      schema: {
        tags: ['directory'],
        summary: 'Audit events about the calling organization and its transactions; format=jsonl|csv exports',
        querystring: OrgAuditQuery,
        response: { 200: jsonOrExport(AuditPage, ['jsonl', 'csv']), ...problems(400) },
      },
    },
    (request, reply) => reader({ ...request.query, organizationId: orgOf(request) }, reply),
  );

  app.get(
    '/v1/audit/status',
    {
      // Reveals no one's data and starts at most one walk per interval, whoever asks.
      config: { anyKey: true },
      schema: {
        tags: ['directory'],
        summary:
          'Whether the audit chain checked out when the hub last walked it (walked at most every few minutes)',
        description:
          'Any API key (organization keys of either scope, operator keys). The answer is the result of the ' +
          'most recent walk of this hub process, from `checkedAt`: a request after `refreshAfter` starts ' +
          'the next walk and still gets the earlier result; the operator’s verify walks at once and ' +
          'replaces it.',
        response: { 200: ChainStatusAnswer, ...problems() },
      },
    },
    () => audit.chainStatus(),
  );
}
