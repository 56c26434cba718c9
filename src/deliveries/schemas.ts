/** Request and response shapes of the delivery API: validator, OpenAPI document and type at once. */
import { type Static, type TSchema, Type } from 'typebox';
import { EMAIL_EVENT_NAMES, TRP_MESSAGE_NAMES, WEBHOOK_EVENT_NAMES } from './events.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

// Enums, not unions of literals: a wrong value in a query is then one problem naming the allowed values.
export const DeliveryStatus = Type.Enum(['PENDING', 'DELIVERED', 'FAILED', 'HELD', 'CANCELLED'], {
  description:
    'PENDING (queued or retrying), DELIVERED (2xx / accepted), FAILED (schedule used up), HELD (waits ' +
    'behind an earlier FAILED message of the same transaction to the same recipient; goes out after it ' +
    'once that one is redelivered), CANCELLED (withdrawn unsent: its transaction was cancelled or expired).',
});

export const WebhookEventName = Type.Enum([...WEBHOOK_EVENT_NAMES.filter((e) => e !== 'ping')], {
  description: 'Webhook event; the delivery goes to `{travelEndpoint}/v1/notify/{event}`.',
});

const DeliveryEventName = Type.Enum(
  [...WEBHOOK_EVENT_NAMES.filter((e) => e !== 'ping'), ...TRP_MESSAGE_NAMES],
  {
    description: 'A webhook event, or (channel `trp`) a TRP message: docs/webhooks.md, docs/trp.md.',
  },
);

const DeliveryChannel = Type.Enum(['webhook', 'trp'], {
  description:
    'webhook: the webhooks owed to the calling organization (the default); trp: the TRP messages the hub owes ' +
    'TRP VASPs for the organization’s TRP transfers (inquiries, resolutions, confirmations, identity reads).',
});

export const Attempt = Type.Object({
  at: Type.String({ format: 'date-time' }),
  statusCode: Nullable(
    Type.Integer({ description: 'HTTP status (SMTP reply code for e-mail); null when none.' }),
  ),
  latencyMs: Type.Integer(),
  error: Nullable(Type.String()),
});

const common = {
  id: Type.String({ format: 'uuid' }),
  messageId: Type.String({ description: 'The `webhook-id`: the same on every attempt, for de-duplication.' }),
  transactionRef: Nullable(Type.String({ format: 'uuid' })),
  status: DeliveryStatus,
  attempts: Type.Integer({ description: 'Attempts made since the delivery was queued or last redelivered.' }),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'PENDING only.' })),
  lastError: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  deliveredAt: Nullable(Type.String({ format: 'date-time' })),
  attemptLog: Type.Array(Attempt, { description: 'Every attempt, oldest first.' }),
};

export const Delivery = Type.Object(
  { ...common, channel: DeliveryChannel, event: Type.String() },
  {
    description:
      'A webhook owed to the calling organization, or a TRP message owed to a TRP VASP for one of its ' +
      'transfers (without its payload).',
  },
);
export type Delivery = Static<typeof Delivery>;

export const Cursor = Type.Optional(
  Type.String({ maxLength: 200, description: '`nextCursor` of the previous page.' }),
);
const Limit = Type.Optional(
  Type.String({ pattern: '^(?:[1-9][0-9]?|100)$', description: '1–100, default 50' }),
);

export const DeliveryQuery = Type.Object(
  {
    transactionRef: Type.Optional(Type.String({ format: 'uuid' })),
    status: Type.Optional(DeliveryStatus),
    event: Type.Optional(DeliveryEventName),
    channel: Type.Optional(DeliveryChannel),
    limit: Limit,
    cursor: Cursor,
  },
  { additionalProperties: false },
);
export type DeliveryQuery = Static<typeof DeliveryQuery>;

export const DeliveryList = Type.Object({
  deliveries: Type.Array(Delivery),
  nextCursor: Nullable(Type.String()),
});

export const DeliveryParams = Type.Object(
  { id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const EmailQuery = Type.Object(
  {
    status: Type.Optional(DeliveryStatus),
    transactionRef: Type.Optional(Type.String({ format: 'uuid' })),
    limit: Limit,
    cursor: Cursor,
  },
  { additionalProperties: false },
);
export type EmailQuery = Static<typeof EmailQuery>;

export const Email = Type.Object(
  {
    ...common,
    event: Type.Enum([...EMAIL_EVENT_NAMES], { description: 'Which e-mail (docs/webhooks.md).' }),
    to: Type.String({ description: 'The address it goes to.' }),
  },
  { description: 'An e-mail the hub sends (the NOTIFY announcement, notices) and its delivery state.' },
);
export type Email = Static<typeof Email>;

export const EmailList = Type.Object({
  emails: Type.Array(Email),
  nextCursor: Nullable(Type.String()),
  smtpConfigured: Type.Boolean({ description: 'false: e-mails wait in the outbox until SMTP_URL is set.' }),
});

export const TestEventResult = Type.Object({
  delivered: Type.Boolean({ description: 'true when the endpoint answered 2xx.' }),
  url: Nullable(Type.String({ description: 'Where the ping went.' })),
  messageId: Type.String(),
  statusCode: Nullable(Type.Integer()),
  latencyMs: Type.Integer(),
  error: Nullable(Type.String()),
});
export type TestEventResult = Static<typeof TestEventResult>;

const Count = Type.Integer({ minimum: 0 });
const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const MessageCounts = Type.Object(
  { delivered: Count, pending: Count, retrying: Count, failed: Count },
  {
    description:
      'Messages by state: pending (not tried yet), retrying (tried, failed, another attempt planned), failed (gave up; can be redelivered). Withdrawn ones are left out.',
  },
);

export const EndpointHealth = Type.Object({
  host: Type.Union([Type.String(), Type.Null()], {
    description: 'The travelEndpoint’s host; null without one.',
  }),
  circuit: Type.Enum(['closed', 'open'], {
    description:
      'open: the last 5 attempts in a row failed (read from the recorded attempts, as every worker’s breaker counts).',
  }),
  failuresInARow: Count,
  failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'The first failed attempt since the last successful one.',
  }),
  openSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the circuit opened (the 5th failure in a row); null while closed.',
  }),
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
    { description: 'The class of the last failed attempt of the run; never the answer itself.' },
  ),
  lastAttemptAt: Time,
});
export type EndpointHealth = Static<typeof EndpointHealth>;

export const OrganizationDeliveryHealth = Type.Object({
  organizationId: Type.String({ format: 'uuid' }),
  messages: MessageCounts,
  endpoint: EndpointHealth,
  endpointDownNoticeSentAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When its contact was last e-mailed that the endpoint is down (at most daily).',
  }),
});
export type OrganizationDeliveryHealth = Static<typeof OrganizationDeliveryHealth>;
