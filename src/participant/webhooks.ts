/**
 * Participant side of the hub's webhooks: verify a delivery (Standard Webhooks signature over
 * the raw body, timestamp within tolerance, any of the secrets so rotation never drops a
 * message) before parsing it, and decrypt BASIC's `encryptedPii`.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { decryptFromHub } from '../crypto/jwe.js';

export { generateParticipantKeyPair } from '../crypto/jwe.js';
export { WebhookVerificationError };

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/** The Standard Webhooks default; the library refuses older or newer messages anyway. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Verifies a webhook and returns its parsed JSON body. `secrets`: the current `whsec_…`
 * secret, plus the previous one while a rotation overlaps. Throws WebhookVerificationError.
 */
export function verifyWebhook(
  secrets: string | readonly string[],
  rawBody: string | Buffer,
  headers: HeaderBag,
  options: { toleranceSeconds?: number; now?: number } = {},
): unknown {
  const h = pick(headers);
  if (!h['webhook-id'] || !h['webhook-timestamp'] || !h['webhook-signature']) {
    throw new WebhookVerificationError('Missing required headers');
  }
  const tolerance = Math.min(
    options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    DEFAULT_TOLERANCE_SECONDS,
  );
  const ts = Number(h['webhook-timestamp']);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (!Number.isInteger(ts) || Math.abs(now - ts) > tolerance) {
    throw new WebhookVerificationError('Message timestamp outside the tolerance');
  }
  let last: unknown;
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    try {
      return new Webhook(secret).verify(rawBody, h);
    } catch (err) {
      last = err;
    }
  }
  throw last instanceof WebhookVerificationError
    ? last
    : new WebhookVerificationError('No matching signature found');
}

/** Decrypts `ivms101_data.encryptedPii` (a JWE) with the participant's private key (PEM). */
export function decryptPii(privateKeyPem: string, encryptedPii: string): Promise<unknown> {
  return decryptFromHub(privateKeyPem, encryptedPii);
}

/** The three headers, whatever the case of their names (a plain object may say `Webhook-Id`). */
function pick(headers: HeaderBag): Record<string, string> {
  const lower =
    headers instanceof Headers
      ? undefined
      : new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const get = (name: string): string => {
    if (headers instanceof Headers) return headers.get(name) ?? '';
    const v = lower!.get(name);
    return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
  };
  return {
    'webhook-id': get('webhook-id'),
    'webhook-timestamp': get('webhook-timestamp'),
    'webhook-signature': get('webhook-signature'),
  };
}
