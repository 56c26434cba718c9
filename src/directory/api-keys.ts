/**
 * Organization API keys: `trh_` + 43 base64url characters (256 random bits), shown once and
 * stored only as SHA-256. With that much entropy a fast hash is enough and lets the
 * authenticator find a key with one index probe, no per-key salt to try.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PATTERN = /^trh_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): { key: string; prefix: string; hash: Buffer } {
  const key = `trh_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, 12), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** Constant-time comparison of a presented secret's hash with a known one. */
export function hashesMatch(presented: Buffer, known: Buffer): boolean {
  return presented.length === known.length && timingSafeEqual(presented, known);
}
