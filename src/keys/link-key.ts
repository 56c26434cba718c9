/**
 * The key link tokens are derived from (claim links, credentials links, TRP callbacks; see
 * claims/tokens.ts). It used to be drawn from the master key each time; with rotation it must
 * outlive the master key, since a token minted under one key may have to be composed again
 * (an e-mail retry, a later TRP message) after the rotation. So it is kept in `hub_keys`, sealed
 * under the master key (rekey re-seals it), and made once: as the same HKDF of the then current
 * master key as before, so every token minted before it existed stays the same.
 */
import { hkdfSync } from 'node:crypto';
import { currentKeyBytes, openPii, type SealingKeys, sealPii } from '../crypto/envelope.js';
import type { Queryable } from '../db/database.js';
import { toBuffer } from '../db/database.js';

const NAME = 'link-tokens';

/** Associated data of a sealed hub key. */
export const hubKeyContext = (name: string) => `hub-key:${name}`;

export function loadLinkKey(db: Queryable, keys: SealingKeys): Promise<Buffer> {
  return loadHubKey(db, keys, NAME, 'trh/link-tokens');
}

/**
 * A key of the hub's own that must outlive master-key rotation (link tokens, the customer-name
 * index): made once as the HKDF of the then current master key with `info`, kept sealed in
 * `hub_keys` (rekey re-seals it), and read back from there ever after.
 */
export async function loadHubKey(
  db: Queryable,
  keys: SealingKeys,
  name: string,
  info: string,
): Promise<Buffer> {
  const derived = Buffer.from(hkdfSync('sha256', currentKeyBytes(keys), Buffer.alloc(0), info, 32));
  await db.query('INSERT INTO hub_keys (name, sealed_key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    sealPii(keys, hubKeyContext(name), derived.toString('base64')),
  ]);
  const rows = await db.query('SELECT sealed_key FROM hub_keys WHERE name = $1', [name]);
  if (rows[0] === undefined) return derived; // a database that keeps nothing (the OpenAPI document's)
  return Buffer.from(openPii(keys, hubKeyContext(name), toBuffer(rows[0]!.sealed_key)), 'base64');
}
