// Standard Webhooks signatures for outgoing deliveries (SPEC §8), with node:crypto HMAC rather than the
// `standardwebhooks` package, which signs in pure JS about six times slower; tests verify our output with
// that package, as a participant would.
//
// Invariants:
// - Secrets are `whsec_` + canonical base64 of 24–64 random bytes (the convention's bounds); we mint 32.
// - The signed content is exactly `${msgId}.${timestamp}.${body}`, UTF-8, where body is the very string
//   sent on the wire. One `v1,<base64>` per secret, space-separated, so that during a rotation a receiver
//   holding either the new or the old secret verifies the same request.
// - Message ids carry no '.', space or comma, so they cannot shift the signed string or the header syntax,
//   and are the same on every retry of a delivery so receivers can de-duplicate.

import { createHmac, randomBytes } from 'node:crypto';
import { takeRandom } from '../crypto/random.js';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const MESSAGE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** A new webhook secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key inside a `whsec_` secret. Throws on anything that is not one of ours. */
export function decodeWebhookSecret(secret: string): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) {
    throw new Error('webhook secret must start with whsec_');
  }
  const base64 = secret.slice(SECRET_PREFIX.length);
  const key = Buffer.from(base64, 'base64');
  if (key.toString('base64') !== base64 || key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    throw new Error(
      `webhook secret must be whsec_ followed by base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes`,
    );
  }
  return key;
}

function signOne(key: Buffer, signedPrefix: string, body: string): string {
  return `v1,${createHmac('sha256', key).update(signedPrefix, 'utf8').update(body, 'utf8').digest('base64')}`;
}

/**
 * The `webhook-signature` header value: `v1,<sig>` for each secret, space-separated, in the given order
 * (put the newest secret first). Duplicated secrets are signed once.
 */
export function signatureHeader(
  secrets: string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
): string {
  if (secrets.length === 0) throw new Error('at least one webhook secret is needed to sign');
  if (!MESSAGE_ID.test(msgId))
    throw new Error('webhook message id must be 1–128 characters of [A-Za-z0-9_-]');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('webhook timestamp must be a whole number of seconds since the epoch');
  }
  const signedPrefix = `${msgId}.${timestampSeconds}.`;
  return [...new Set(secrets)].map((s) => signOne(decodeWebhookSecret(s), signedPrefix, body)).join(' ');
}

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** The three Standard Webhooks headers for one attempt; `timestampSeconds` is the attempt's time. */
export function webhookHeaders(
  secrets: string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
): WebhookHeaders {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(secrets, msgId, timestampSeconds, body),
  };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * `msg_` + a 26-character ULID (Crockford base32): 48 bits of milliseconds then 80 random bits, so ids
 * sort roughly by creation time and collide with negligible probability across processes.
 */
export function newMessageId(now: number = Date.now()): string {
  let time = '';
  let ms = Math.floor(now);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[ms % 32]! + time;
    ms = Math.floor(ms / 32);
  }
  const random = takeRandom(10);
  let rest = '';
  // Two 40-bit halves: each fits exactly in a double, and 40 bits are 8 base32 digits.
  for (let half = 0; half < 2; half++) {
    let bits = 0;
    for (let i = 0; i < 5; i++) bits = bits * 256 + random[half * 5 + i]!;
    let chunk = '';
    for (let i = 0; i < 8; i++) {
      chunk = CROCKFORD[bits % 32]! + chunk;
      bits = Math.floor(bits / 32);
    }
    rest += chunk;
  }
  return `msg_${time}${rest}`;
}
