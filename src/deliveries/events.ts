/**
 * The message contract: every webhook event and e-mail the hub sends, in one catalogue. Each
 * entry names its recipient, when it is sent, the payload a command queues (`payload`) and, for
 * webhooks, the body the receiver gets (`body`: the payload plus what the worker adds at send
 * time, in the order the body's fields go on the wire). Everything else derives from here: the
 * event-name types, the outbox message type, the receiver's known events, the OpenAPI document's
 * `webhooks` section (and so the typed client), and the docs table (kept in step by a test).
 *
 * Invariant: an outbox payload never holds personal data, nor a decline or cancel reason (SPEC §13).
 * Events whose body carries some list it in `adds`; the worker's prepare stage reads it from the
 * sealed transaction just before sending.
 */
import { type Static, type TObject, type TSchema, Type } from 'typebox';
import { DOCUMENTED_AS } from '../http/documented-as.js';
import { DeclineReason, Protocol, Ref } from '../transactions/schemas.js';
import { WalletProofSummary } from '../wallets/schemas.js';

/** Who receives a webhook: a party to the transaction, or the organization that asked (ping). */
export type Recipient = 'beneficiary' | 'originator' | 'both' | 'caller';

/** What the prepare stage adds to a payload at send time (never stored in the outbox). */
export type Addition = 'encryptedPii' | 'ivms101Data' | 'reason';

interface WebhookEventDef<P extends TObject = TObject> {
  readonly to: Recipient;
  /** When the hub sends it, for the docs and the OpenAPI document. */
  readonly when: string;
  /** What the command queues. */
  readonly payload: P;
  /** What the receiver gets; its property order is the order on the wire. */
  readonly body: TObject;
  readonly adds: readonly Addition[];
}

function webhookEvent<P extends TObject>(def: {
  to: Recipient;
  when: string;
  payload: P;
  body?: TObject;
  adds?: readonly Addition[];
}): WebhookEventDef<P> {
  return { ...def, body: def.body ?? def.payload, adds: def.adds ?? [] };
}

const Did = Type.String({ description: 'DID of the organization.' });
const NullableDid = Type.Union([Type.String(), Type.Null()], {
  description: 'DID of the beneficiary VASP; null for a NOTIFY beneficiary outside the directory.',
});

const BlockchainInfo = Type.Object({
  destination: Type.Optional(
    Type.String({
      description:
        'Destination blockchain address; absent for TRP, whose beneficiary names it when it approves.',
    }),
  ),
  origin: Type.Optional(
    Type.String({ description: 'Origin blockchain address, when the originator gave one.' }),
  ),
});

const receivedFields = {
  transactionRef: Ref,
  protocol: Protocol,
  status: Type.Literal('RECEIVER_NOTIFIED'),
  originatorVASPdid: Did,
  beneficiaryVASPdid: NullableDid,
  transactionAsset: Type.String({ description: '<chain>-<asset>, e.g. ETH-USDC.' }),
  transactionAmount: Type.String({
    description: 'Decimal string, interpreted with transactionAssetDecimals.',
  }),
  transactionAssetDecimals: Type.Integer({ description: '0 means a human-readable amount.' }),
  walletProof: Type.Optional(WalletProofSummary),
  trpPeer: Type.Optional(
    Type.Object(
      {
        host: Type.String({ description: 'The host of the peer’s callback.' }),
        certificateSubject: Type.Union([Type.String(), Type.Null()]),
        certificateFingerprint: Type.Union([
          Type.String({ description: 'SHA-256, upper-case hex pairs separated by colons.' }),
          Type.Null(),
        ]),
      },
      { description: 'TRP inbound: the peer as its client certificate names it.' },
    ),
  ),
};

const confirmedFields = {
  transactionRef: Ref,
  protocol: Type.Enum(['MAIN', 'NOTIFY'], {
    description: 'MAIN, or NOTIFY for a transaction its beneficiary claimed.',
  }),
  status: Type.Literal('CONFIRMED'),
  originatorVASPdid: Did,
  beneficiaryVASPdid: NullableDid,
};

export const WEBHOOK_EVENTS = {
  received: webhookEvent({
    to: 'beneficiary',
    when: 'A MAIN or BASIC transaction was initiated, or a TRP VASP sent an inquiry to one of the beneficiary’s travel addresses. MAIN: transfer metadata only; BASIC and TRP: the personal data too, encrypted for the beneficiary’s publicKey.',
    payload: Type.Object({
      ...receivedFields,
      ivms101_data: Type.Object({ transactionBlockchainInfo: BlockchainInfo }),
    }),
    body: Type.Object({
      ...receivedFields,
      ivms101_data: Type.Object({
        transactionBlockchainInfo: BlockchainInfo,
        encryptedPii: Type.Optional(
          Type.String({
            description:
              'BASIC and TRP: the IVMS101 personal data as a JWE (compact serialization) for the beneficiary’s publicKey.',
          }),
        ),
      }),
    }),
    adds: ['encryptedPii'],
  }),
  'confirmed-data': webhookEvent({
    to: 'beneficiary',
    when: 'The originator confirmed a MAIN transaction: the personal data, as submitted.',
    payload: Type.Object(confirmedFields),
    body: Type.Object({
      ...confirmedFields,
      ivms101Data: Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'The IVMS101 personal data as submitted.',
          [DOCUMENTED_AS]: 'Pii',
        },
      ),
    }),
    adds: ['ivms101Data'],
  }),
  declined: webhookEvent({
    to: 'originator',
    when: 'The beneficiary declined the transaction.',
    payload: Type.Object({
      transactionRef: Ref,
      status: Type.Literal('DECLINED'),
      beneficiaryVASPdid: NullableDid,
    }),
    body: Type.Object({
      transactionRef: Ref,
      status: Type.Literal('DECLINED'),
      reason: DeclineReason,
      beneficiaryVASPdid: NullableDid,
    }),
    adds: ['reason'],
  }),
  cancelled: webhookEvent({
    to: 'beneficiary',
    when: 'The originator called the transfer off; sent only when the beneficiary had been told of it.',
    payload: Type.Object({ transactionRef: Ref, status: Type.Literal('CANCELLED') }),
    body: Type.Object({
      transactionRef: Ref,
      status: Type.Literal('CANCELLED'),
      reason: Type.Optional(Type.String({ description: 'The originator’s reason, when it gave one.' })),
    }),
    adds: ['reason'],
  }),
  expired: webhookEvent({
    to: 'both',
    when: 'No state change for HUB_PENDING_EXPIRY: to the originator, and to the beneficiary if it had been told.',
    payload: Type.Object({ transactionRef: Ref, status: Type.Literal('EXPIRED') }),
  }),
  approved: webhookEvent({
    to: 'originator',
    when: 'The beneficiary VASP of a TRP transfer approved it: pay to the address it gave.',
    payload: Type.Object({
      transactionRef: Ref,
      status: Type.Literal('CONFIRMED'),
      address: Type.String({ description: 'Where to pay, as the beneficiary VASP chose it.' }),
    }),
  }),
  'beneficiary-joined': webhookEvent({
    to: 'originator',
    when: 'The beneficiary of a NOTIFY transaction joined the hub (or, a member already, claimed it): from now on it follows MAIN.',
    payload: Type.Object({
      transactionRef: Ref,
      beneficiaryVASPid: Type.String({ format: 'uuid' }),
      beneficiaryVASPdid: Did,
    }),
  }),
  'tx-hash': webhookEvent({
    to: 'beneficiary',
    when: 'The originator shared the blockchain hash of the transfer.',
    payload: Type.Object({ transactionRef: Ref, txHash: Type.String() }),
  }),
  ping: webhookEvent({
    to: 'caller',
    when: 'The organization asked for a signed test event (POST /v1/organizations/me/test-event); not retried.',
    payload: Type.Object({
      type: Type.Literal('ping'),
      organizationId: Type.String({ format: 'uuid' }),
      sentAt: Type.String({ format: 'date-time' }),
    }),
  }),
} satisfies Record<string, WebhookEventDef>;

export type WebhookEvent = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_NAMES = Object.keys(WEBHOOK_EVENTS) as WebhookEvent[];
export type WebhookPayload<E extends WebhookEvent> = Static<(typeof WEBHOOK_EVENTS)[E]['payload']>;

interface EmailEventDef<P extends TObject = TObject> {
  /** Who it goes to. */
  readonly to: string;
  readonly when: string;
  readonly payload: P;
}

/** E-mails go through the outbox like webhooks; their text is composed at send time (email.ts). */
export const EMAIL_EVENTS = {
  notify: {
    to: 'the NOTIFY transaction’s notificationEmail',
    when: 'A NOTIFY transaction was initiated: announces the transfer (no personal data) with a claim link to join the hub and receive its data.',
    payload: Type.Object({
      transactionRef: Ref,
      transactionAsset: Type.String(),
      transactionAmount: Type.String(),
      destination: Type.String(),
      originatorVASPdid: Type.String(),
      originatorName: Type.String(),
      beneficiaryVASPid: Type.Union([Type.String(), Type.Null()]),
    }),
  },
  'notify-cancelled': {
    to: 'the NOTIFY transaction’s notificationEmail',
    when: 'The originator cancelled a NOTIFY transaction whose announcement went out: its claim link no longer works.',
    payload: Type.Object({
      transactionRef: Ref,
      transactionAsset: Type.String(),
      transactionAmount: Type.String(),
      originatorVASPdid: Type.String(),
      originatorName: Type.String(),
    }),
  },
  'application-received': {
    to: 'the applicant’s contactEmail',
    when: 'An outside exchange applied to join through a claim link: the application waits for the operator’s review.',
    payload: Type.Object({
      organizationName: Type.String(),
      appliedAt: Type.String({ format: 'date-time' }),
    }),
  },
  'application-approved': {
    to: 'the address the claim link went to (the NOTIFY transaction’s notificationEmail)',
    when: 'The operator approved an application to join: a single-use link (24 h) that shows the new API key and webhook secret once.',
    payload: Type.Object({
      organizationId: Type.String({ format: 'uuid' }),
      organizationName: Type.String(),
      pickupId: Type.String({ format: 'uuid' }),
      expiresAt: Type.String({ format: 'date-time' }),
    }),
  },
  'application-approved-contact': {
    to: 'the applicant’s contactEmail, when it is not the address the claim link went to',
    when: 'The operator approved an application to join: tells the contact that the organization is a member and where its credentials link went; no link.',
    payload: Type.Object({
      organizationId: Type.String({ format: 'uuid' }),
      organizationName: Type.String(),
      credentialsSentTo: Type.String(),
    }),
  },
  'application-rejected': {
    to: 'the applicant’s contactEmail',
    when: 'The operator rejected an application to join, with the operator’s reason; the claim link takes a new application.',
    payload: Type.Object({
      organizationName: Type.String(),
      reason: Type.String(),
      decidedAt: Type.Optional(Type.String({ format: 'date-time' })),
    }),
  },
  'endpoint-changed': {
    to: 'the organization’s contactEmail before the change, and the new one (at most 10 a day per organization)',
    when: 'An organization’s travelEndpoint, publicKey or contactEmail was changed: what changed (old and new endpoint, key fingerprints, contact address), by whom and when; no secrets.',
    payload: Type.Object({
      organizationId: Type.String({ format: 'uuid' }),
      organizationName: Type.String(),
      vaspDid: Type.String(),
      changes: Type.Array(
        Type.Object({
          field: Type.Enum(['travelEndpoint', 'publicKey', 'contactEmail']),
          from: Type.Union([Type.String(), Type.Null()]),
          to: Type.Union([Type.String(), Type.Null()]),
        }),
      ),
      changedBy: Type.String(),
      at: Type.String({ format: 'date-time' }),
    }),
  },
  'endpoint-down': {
    to: 'the organization’s contactEmail (at most one a day per organization)',
    when: 'The webhooks to the organization’s travelEndpoint have failed so long that the circuit breaker has been open for an hour (HUB_ENDPOINT_DOWN_AFTER): the endpoint’s host, since when it fails, the error class, how many messages wait, and where to look; no personal data.',
    payload: Type.Object({
      organizationId: Type.String({ format: 'uuid' }),
      organizationName: Type.String(),
      vaspDid: Type.String(),
      endpointHost: Type.Union([Type.String(), Type.Null()]),
      failingSince: Type.String({ format: 'date-time' }),
      openSince: Type.String({ format: 'date-time' }),
      lastError: Type.Union([Type.String(), Type.Null()]),
      waiting: Type.Integer({ minimum: 0 }),
      failed: Type.Integer({ minimum: 0 }),
    }),
  },
  'user-invitation': {
    to: 'the invited person',
    when: 'An organization admin (or a full-scope key), or an operator, invited a person (SPEC §17): a single-use link, valid 7 days, to set a name and password.',
    payload: Type.Object({
      invitationId: Type.String({ format: 'uuid' }),
      organizationName: Type.Union([Type.String(), Type.Null()], {
        description: 'null for an invitation to the hub’s operators.',
      }),
      role: Type.String(),
      expiresAt: Type.String({ format: 'date-time' }),
    }),
  },
} satisfies Record<string, EmailEventDef>;

export type EmailEvent = keyof typeof EMAIL_EVENTS;
export const EMAIL_EVENT_NAMES = Object.keys(EMAIL_EVENTS) as EmailEvent[];
export type EmailPayload<E extends EmailEvent> = Static<(typeof EMAIL_EVENTS)[E]['payload']>;

interface TrpMessageDef<P extends TSchema = TSchema> {
  readonly when: string;
  readonly payload: P;
}

/**
 * What the hub owes a TRP peer (SPEC §16), through the outbox like webhooks. The payload names the
 * transfer and what to say; the TRP bridge builds the request at send time (the peer's URL, the
 * headers, the IVMS101 data from the sealed transaction, the callbacks).
 */
export const TRP_MESSAGES = {
  'trp-inquiry': {
    when: 'A member initiated a TRP transfer: the inquiry, with the personal data, to the travel address’s URL.',
    payload: Type.Object({ transactionRef: Ref }),
  },
  'trp-resolution': {
    when: 'A member approved (with the payment address) or declined an inbound TRP transfer, or it expired undecided: to the peer’s callback.',
    // The address is the transaction's destination; a rejection's text is its sealed reason, read at send time.
    payload: Type.Object({ transactionRef: Ref, decision: Type.Enum(['approved', 'rejected']) }),
  },
  'trp-confirmation': {
    when: 'The originator shared the hash, or cancelled, after the peer approved: `txid` or `canceled` to the approval’s callback.',
    // A cancellation's text is the transaction's sealed reason, read at send time.
    payload: Type.Union([
      Type.Object({ transactionRef: Ref, txid: Type.String() }),
      Type.Object({ transactionRef: Ref, canceled: Type.Literal(true) }),
    ]),
  },
  'trp-identity': {
    when: 'A TRP transfer began (either way): the peer’s /identity is read, for its name and LEI.',
    payload: Type.Object({ transactionRef: Ref }),
  },
} satisfies Record<string, TrpMessageDef>;

export type TrpEvent = keyof typeof TRP_MESSAGES;
export const TRP_MESSAGE_NAMES = Object.keys(TRP_MESSAGES) as TrpEvent[];
export type TrpPayload<E extends TrpEvent> = Static<(typeof TRP_MESSAGES)[E]['payload']>;

/** A message the hub owes someone, from the command that queues it to the attempt that records it. */
export type WebhookMessage = {
  [E in WebhookEvent]: {
    channel: 'webhook';
    event: E;
    organizationId: string;
    transactionRef: string | null;
    payload: WebhookPayload<E>;
  };
}[WebhookEvent];

export type EmailMessage = {
  [E in EmailEvent]: {
    channel: 'email';
    event: E;
    emailTo: string;
    transactionRef: string | null;
    payload: EmailPayload<E>;
  };
}[EmailEvent];

export type TrpMessage = {
  [E in TrpEvent]: {
    channel: 'trp';
    event: E;
    transactionRef: string;
    payload: TrpPayload<E>;
  };
}[TrpEvent];

export type OutboxMessage = WebhookMessage | EmailMessage | TrpMessage;

/** A TRP message, typed by its event. */
export function trp<E extends TrpEvent>(
  event: E,
  transactionRef: string,
  payload: TrpPayload<E>,
): TrpMessage {
  return { channel: 'trp', event, transactionRef, payload } as TrpMessage;
}

/** A webhook message, typed by its event. */
export function webhook<E extends WebhookEvent>(
  event: E,
  organizationId: string,
  transactionRef: string | null,
  payload: WebhookPayload<E>,
): WebhookMessage {
  return { channel: 'webhook', event, organizationId, transactionRef, payload } as WebhookMessage;
}

/** An e-mail message, typed by its event. */
export function email<E extends EmailEvent>(
  event: E,
  emailTo: string,
  transactionRef: string | null,
  payload: EmailPayload<E>,
): EmailMessage {
  return { channel: 'email', event, emailTo, transactionRef, payload } as EmailMessage;
}

/** Each event's wire order, worked out once (bodyFieldOrder). */
const fieldOrders = new Map<WebhookEvent, readonly string[]>();

/** The wire order of an event's body (jsonb does not keep the order a payload was written in). */
export function bodyFieldOrder(event: WebhookEvent): readonly string[] {
  let order = fieldOrders.get(event);
  if (!order) {
    order = Object.keys(WEBHOOK_EVENTS[event].body.properties);
    fieldOrders.set(event, order);
  }
  return order;
}

/** Component name of an event's body in the OpenAPI document, e.g. `ConfirmedDataWebhook`. */
export function webhookSchemaName(event: WebhookEvent): string {
  return `${event.replace(/(^|-)([a-z])/g, (_, _dash, c: string) => c.toUpperCase())}Webhook`;
}
