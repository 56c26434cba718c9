/**
 * The prepare stage of a webhook attempt: from an outbox row to the exact request to send.
 * Everything is read at attempt time, never at queueing time: the recipient's current
 * `travelEndpoint` (so fixing an endpoint lets pending deliveries through), its current
 * `publicKey` (BASIC), its active signing secrets (rotation) and, for the two events that carry
 * it, the personal data, decrypted from the sealed transaction just before sending. Outbox
 * payloads themselves never hold personal data. The recipient comes from the directory's cache,
 * which every directory change clears in every process (see directory/cache.ts).
 */

import { encryptForParticipant } from '../crypto/jwe.js';
import { type Ivms101Version, render } from '../ivms101/message.js';
import { bodyFieldOrder, WEBHOOK_EVENTS, type WebhookEvent, type WebhookMessage } from './events.js';
import type { DeliveryHooks } from './hooks.js';
import { checkWebhookTarget } from './ssrf.js';

/** What the worker reads about a recipient: the directory. */
export interface RecipientSource {
  /** The organization's current endpoint and key; undefined when it does not exist. */
  recipient(
    organizationId: string,
  ): Promise<
    { travelEndpoint: string | null; publicKey: string | null; ivms101Version: Ivms101Version } | undefined
  >;
  webhookSecrets(organizationId: string): Promise<string[]>;
}

interface Recipient {
  travelEndpoint: string | null;
  publicKey: string | null;
  /** The IVMS101 version it receives personal data in (SPEC §18). */
  ivms101Version: Ivms101Version;
  secrets: string[];
}

/** What the deliveries of one claim read about their recipients, read once per recipient. */
export type RecipientMemo = Map<string, Promise<Recipient | undefined>>;

export type PreparedWebhook =
  | { ok: true; url: string; body: string; secrets: string[] }
  | { ok: false; error: string };

/** The body in the catalogue's field order (jsonb forgets the order a payload was written in). */
function ordered(event: WebhookEvent, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of bodyFieldOrder(event)) if (k in body) out[k] = body[k];
  for (const [k, v] of Object.entries(body)) if (!(k in out)) out[k] = v;
  return out;
}

/** `{travelEndpoint}/v1/notify/{event}`, whatever trailing slashes the endpoint has. */
export function notifyUrl(travelEndpoint: string, event: string): string {
  return `${travelEndpoint.replace(/\/+$/, '')}/v1/notify/${event}`;
}

export class WebhookPreparer {
  constructor(
    private readonly directory: RecipientSource,
    private readonly hooks: DeliveryHooks,
    private readonly allowPrivate: boolean,
  ) {}

  async prepare(m: WebhookMessage, memo?: RecipientMemo): Promise<PreparedWebhook> {
    const recipient = await this.recipient(m.organizationId, memo);
    if (!recipient) return { ok: false, error: 'organization no longer exists' };
    if (!recipient.travelEndpoint) return { ok: false, error: 'organization has no travelEndpoint' };
    const url = notifyUrl(recipient.travelEndpoint, m.event);
    const target = await checkWebhookTarget(url, { allowPrivate: this.allowPrivate });
    if (!target.ok) return { ok: false, error: `target refused: ${target.reason}` };
    const body =
      WEBHOOK_EVENTS[m.event].adds.length === 0
        ? { ok: true as const, value: m.payload as Record<string, unknown> }
        : await this.withAdditions(m, recipient);
    if (!body.ok) return body;
    const secrets = recipient.secrets;
    if (secrets.length === 0) return { ok: false, error: 'organization has no active webhook secret' };
    return { ok: true, url, body: JSON.stringify(ordered(m.event, body.value)), secrets };
  }

  /** The payload with what its event adds at send time (events.ts `adds`). */
  private async withAdditions(
    m: WebhookMessage,
    recipient: Recipient,
  ): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; error: string }> {
    let body: Record<string, unknown> = m.payload;
    for (const addition of WEBHOOK_EVENTS[m.event].adds) {
      if (
        addition === 'encryptedPii' &&
        m.event === 'received' &&
        (m.payload.protocol === 'BASIC' || m.payload.protocol === 'TRP')
      ) {
        if (!recipient.publicKey) {
          return { ok: false, error: `organization has no publicKey for ${m.payload.protocol} data` };
        }
        const pii = render(await this.hooks.readPii(requireRef(m.transactionRef)), recipient.ivms101Version);
        const data = m.payload.ivms101_data;
        const encryptedPii = await encryptForParticipant(recipient.publicKey, pii);
        body = { ...body, ivms101_data: { ...data, encryptedPii } };
      } else if (addition === 'ivms101Data') {
        const pii = await this.hooks.readPii(requireRef(m.transactionRef));
        body = { ...body, ivms101Data: render(pii, recipient.ivms101Version) };
      } else if (addition === 'reason') {
        const reason = await this.hooks.readReason(requireRef(m.transactionRef));
        if (reason !== undefined) body = { ...body, reason };
      }
    }
    return { ok: true, value: body };
  }

  /** The recipient's current endpoint, key and secrets; shared through `memo` within one claim. */
  private recipient(organizationId: string, memo?: RecipientMemo): Promise<Recipient | undefined> {
    const known = memo?.get(organizationId);
    if (known) return known;
    const reading = (async () => {
      const r = await this.directory.recipient(organizationId);
      if (!r) return undefined;
      const secrets = r.travelEndpoint ? await this.directory.webhookSecrets(organizationId) : [];
      return {
        travelEndpoint: r.travelEndpoint,
        publicKey: r.publicKey,
        ivms101Version: r.ivms101Version,
        secrets,
      };
    })();
    memo?.set(organizationId, reading);
    return reading;
  }
}

function requireRef(ref: string | null): string {
  if (ref === null) throw new Error('a delivery carrying personal data must name its transaction');
  return ref;
}
