/**
 * Organization API keys: `trh_` + 43 base64url characters (256 random bits), shown once and
 * stored only as SHA-256. With that much entropy a fast hash is enough and lets the
 * authenticator find a key with one index probe, no per-key salt to try.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PATTERN = /^trh_[A-Za-z0-9_-]{43}$/;
/** Named operators' keys: `trh_op_` + 256 random bits, stored like organization keys. */
export const OPERATOR_KEY_PATTERN = /^trh_op_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): { key: string; prefix: string; hash: Buffer } {
  return keyWith('trh_');
}

export function generateOperatorKey(): { key: string; prefix: string; hash: Buffer } {
  return keyWith('trh_op_');
}

function keyWith(start: string): { key: string; prefix: string; hash: Buffer } {
  const key = `${start}${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, start.length + 8), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** Constant-time comparison of a presented secret's hash with a known one. */
export function hashesMatch(presented: Buffer, known: Buffer): boolean {
  return presented.length === known.length && timingSafeEqual(presented, known);
}
