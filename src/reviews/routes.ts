/**
 * Reviews and the "needs my action" queue (SPEC §17): parse, authorize, call the service. Changing
 * a review needs `act` (analysts, admins, `full` keys); reading note text needs `pii`.
 */
import type { FastifyRequest } from 'fastify';
import { auditIdentity, callerOf, orgOf } from '../http/auth.js';
import { type HubApp, problems } from '../http/types.js';
import { roleMay } from '../people/roles.js';
import { RefParams } from '../transactions/schemas.js';
import { AdminQueue, Assignees, Queue, Review, ReviewRequest } from './schemas.js';
import type { ReviewCaller, ReviewService } from './service.js';

/** The caller as reviews see it; note text only for those allowed to read personal data. */
export function reviewCallerOf(request: FastifyRequest): ReviewCaller {
  const { organizationId, userId } = callerOf(request);
  const auth = request.auth;
  const { actor, ...identity } = auditIdentity(request);
  return {
    organizationId,
    userId,
    actor: actor ?? `org:${organizationId}`,
    // Keys of either scope read personal data (SPEC §13, §17); people by their role.
    readsNotes: auth?.kind === 'user' ? roleMay(auth.role, 'pii') : true,
    identity,
  };
}

export function reviewRoutes(app: HubApp, reviews: ReviewService) {
  app.post(
    '/v1/transactions/:transactionRef/review',
    {
      schema: {
        tags: ['transactions'],
        summary: 'Set the caller’s own review of a transaction: state, assignee, a note',
        description:
          'Either party reviews its own side; the counterparty never sees it. Notes are sealed at rest and ' +
          'shown only to callers allowed to read personal data. Analysts, admins and `full` keys.',
        params: RefParams,
        body: ReviewRequest,
        response: { 200: Review, ...problems(400, 403, 404, 415) },
      },
    },
    (request) => reviews.review(reviewCallerOf(request), request.params.transactionRef, request.body),
  );

  app.get(
    '/v1/reviews/assignees',
    {
      schema: {
        tags: ['transactions'],
        summary: 'Who a review can be assigned to: the organization’s analysts and admins',
        response: { 200: Assignees },
      },
    },
    (request) => reviews.assignees(orgOf(request)),
  );

  app.get(
    '/v1/queue',
    {
      schema: {
        tags: ['transactions'],
        summary: '“Needs my action”: counts of transfers to confirm, to review, and with failing deliveries',
        description: 'Each count equals the number of rows the list filter named in its description shows.',
        response: { 200: Queue },
      },
    },
    (request) => reviews.queue(orgOf(request)),
  );
}

export function adminQueueRoutes(app: HubApp, pendingApplications: () => Promise<number>) {
  app.get(
    '/v1/admin/queue',
    {
      schema: {
        tags: ['operator'],
        summary: '“Needs my action” for operators: join applications waiting for a decision',
        response: { 200: AdminQueue },
      },
    },
    async () => ({ pendingApplications: await pendingApplications() }),
  );
}
