/**
 * Decline and cancel reasons at rest (SPEC §13): sealed like personal data, since a description
 * often names a sanctioned person. The transaction's reference is bound as associated data, in a
 * context of its own, so a reason can never be opened as the transaction's personal data or the
 * other way round.
 */
import { openPii, type SealingKeys, sealPii } from '../crypto/envelope.js';
import type { DeclineCategory } from './decline.js';

export type DeclineReason = { category: DeclineCategory; description: string };

export const context = (ref: string) => `reason:${ref}`;

export function sealReason(masterKey: SealingKeys, ref: string, reason: unknown): Buffer {
  return sealPii(masterKey, context(ref), JSON.stringify(reason));
}

export function openReason<T = unknown>(masterKey: SealingKeys, ref: string, sealed: Uint8Array): T {
  return JSON.parse(openPii(masterKey, context(ref), sealed)) as T;
}
