/**
 * The people domain's secrets at rest: the TOTP secret is sealed under the master key with the user
 * id as its context (listed in keys/sealed.ts, so `rekey` re-seals it); recovery codes and
 * invitation tokens are kept as SHA-256 (each carries 80 bits or more of entropy, used once).
 */
import { createHash, randomBytes } from 'node:crypto';
import { base32Encode } from './totp.js';

export const totpContext = (userId: string) => `totp:${userId}`;

/** Ten codes of 16 base32 characters (80 bits), shown as four groups of four. */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const code = base32Encode(randomBytes(10)).toLowerCase();
    return code.match(/.{4}/g)!.join('-');
  });
}

/** What is stored of a recovery code: dashes, spaces and case do not matter. */
export function recoveryCodeHash(code: string): Buffer {
  return createHash('sha256').update(code.replace(/[\s-]/g, '').toLowerCase()).digest();
}
