/**
 * The OpenAPI document's `webhooks` section, made from the event catalogue: one POST per event
 * with its body schema (a component named e.g. `ConfirmedDataWebhook`, so generated clients get
 * a type per body) and the Standard Webhooks headers a receiver verifies before parsing.
 */
import { WEBHOOK_EVENT_NAMES, WEBHOOK_EVENTS, webhookSchemaName } from './events.js';

const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    description: 'Message id (`msg_…`): the same on every attempt of a message; de-duplicate on it.',
  },
  { name: 'webhook-timestamp', description: 'Unix seconds of this attempt.' },
  {
    name: 'webhook-signature',
    description:
      '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}">` keyed with your `whsec_` ' +
      'secret; one per active secret, space-separated, while a rotation overlaps.',
  },
].map((h) => ({ in: 'header', required: true, schema: { type: 'string' }, ...h }));

const RECIPIENT: Record<string, string> = {
  beneficiary: 'the beneficiary',
  originator: 'the originator',
  caller: 'the organization that asked for it',
};

export function webhooksDocument(): { webhooks: Record<string, unknown>; schemas: Record<string, unknown> } {
  const webhooks: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const event of WEBHOOK_EVENT_NAMES) {
    const def = WEBHOOK_EVENTS[event];
    const name = webhookSchemaName(event);
    schemas[name] = def.body;
    webhooks[event] = {
      post: {
        operationId: `webhook-${event}`,
        tags: ['webhooks'],
        summary: `POST {travelEndpoint}/v1/notify/${event} to ${RECIPIENT[def.to]}`,
        description: `${def.when} Signed with Standard Webhooks; any 2xx counts as delivered, anything else is retried.`,
        parameters: SIGNATURE_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
        },
        responses: { '200': { description: 'Processed (any 2xx answer counts).' } },
      },
    };
  }
  return { webhooks, schemas };
}
