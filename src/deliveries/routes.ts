/** Delivery routes: a recipient's webhooks and redelivery, the signed test event, the operator's e-mails. */
import { actorOf, orgOf } from '../http/auth.js';
import { type HubApp, problems } from '../http/types.js';
import {
  Delivery,
  DeliveryList,
  DeliveryParams,
  DeliveryQuery,
  Email,
  EmailList,
  EmailQuery,
  TestEventResult,
} from './schemas.js';
import type { DeliveryService } from './service.js';

export function deliveryRoutes(app: HubApp, deliveries: DeliveryService) {
  const tags = ['webhooks'];

  app.get(
    '/v1/webhooks/deliveries',
    {
      schema: {
        tags,
        summary:
          'Webhooks owed to the calling organization (or TRP messages of its transfers), newest first, with every attempt',
        description:
          'Filters: `transactionRef`, `status`, `event`, `channel` (`trp`: the messages the hub owes TRP VASPs ' +
          'for the organization’s TRP transfers). Keyset pagination: pass `nextCursor` back as `cursor`. ' +
          'Payloads are not shown.',
        querystring: DeliveryQuery,
        response: { 200: DeliveryList, ...problems(400) },
      },
    },
    (request) => deliveries.list(orgOf(request), request.query),
  );

  app.post(
    '/v1/webhooks/deliveries/:id/redeliver',
    {
      schema: {
        tags,
        summary:
          'Queue a FAILED delivery (webhook or TRP message) again (same message id, fresh retry schedule)',
        params: DeliveryParams,
        response: { 202: Delivery, ...problems(400, 404, 409) },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return deliveries.redeliver(orgOf(request), request.params.id);
    },
  );

  app.post(
    '/v1/organizations/me/test-event',
    {
      schema: {
        tags,
        summary: 'Send a signed `ping` to the calling organization’s endpoint now and report the outcome',
        description:
          'POSTs `{ type: "ping", organizationId, sentAt }` to `{travelEndpoint}/v1/notify/ping`, signed ' +
          'like every webhook. Not retried and not recorded as a delivery.',
        response: { 200: TestEventResult, ...problems() },
      },
    },
    (request) => deliveries.testEvent(orgOf(request)),
  );
}

export function adminDeliveryRoutes(app: HubApp, deliveries: DeliveryService) {
  app.get(
    '/v1/admin/emails',
    {
      schema: {
        tags: ['operator'],
        summary: 'NOTIFY e-mails and their delivery state, newest first',
        querystring: EmailQuery,
        response: { 200: EmailList, ...problems(400, 403) },
      },
    },
    (request) => deliveries.emails(request.query),
  );

  app.post(
    '/v1/admin/emails/:id/redeliver',
    {
      schema: {
        tags: ['operator'],
        summary: 'Queue a FAILED NOTIFY e-mail again (same Message-ID, fresh retry schedule)',
        params: DeliveryParams,
        response: { 202: Email, ...problems(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return deliveries.redeliverEmail(request.params.id, actorOf(request));
    },
  );
}
