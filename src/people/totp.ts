/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 6 digits, 30-second
 * steps, and a code accepted from one step before to one after the current one (clock drift). The
 * caller remembers the last step it accepted and passes it in, so a code is good only once.
 * Secrets are 160 bits (RFC 4226 §4), shown as base32 (RFC 4648) in an otpauth:// URL, the form
 * authenticator apps read from a QR code. Pure: time comes in as an argument.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { base32nopad } from '@scure/base';

export const TOTP = { digits: 6, periodSeconds: 30, window: 1, algorithm: 'SHA1' } as const;

/** Base32 (RFC 4648 alphabet) without padding, as authenticator apps take a secret. */
export function base32Encode(bytes: Uint8Array): string {
  return base32nopad.encode(bytes);
}

/** Base32 without padding, spaces or case mattering; undefined for anything else. */
export function base32Decode(text: string): Buffer | undefined {
  try {
    return Buffer.from(base32nopad.decode(text.replace(/[\s=]/g, '').toUpperCase()));
  } catch {
    return undefined;
  }
}

/** A new secret, base32. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** HOTP (RFC 4226 §5.3) of `counter` under `key`, `digits` long; the hash is SHA-1 unless said. */
export function hotp(key: Buffer, counter: number, digits: number = TOTP.digits, hash = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(hash, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The time step of a moment (ms since the epoch). */
export function timeStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP.periodSeconds);
}

/**
 * The step whose code `code` is, within ±1 step of `nowMs` and after `lastStep` (a code once
 * accepted, or an older one, is refused); undefined when there is none.
 */
export function verifyTotp(
  secret: string,
  code: string,
  nowMs: number,
  lastStep: number | null,
): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const key = base32Decode(secret);
  if (!key) return undefined;
  const now = timeStep(nowMs);
  let found: number | undefined;
  // Every candidate is computed and compared, so the time taken says nothing about which matched.
  for (let step = now - TOTP.window; step <= now + TOTP.window; step++) {
    const match = timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code));
    if (match && (lastStep === null || step > lastStep) && found === undefined) found = step;
  }
  return found;
}

/** The otpauth:// URL an authenticator app reads (Key Uri Format). */
export function otpauthUrl(issuer: string, account: string, secret: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const params = new URLSearchParams({
    secret,
    issuer,
    algorithm: TOTP.algorithm,
    digits: String(TOTP.digits),
    period: String(TOTP.periodSeconds),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
