// JWE to participants (SPEC §8, BASIC `encryptedPii`): the pii JSON encrypted for the beneficiary's key.
//
// Invariants:
// - The algorithm follows from the key, never from the caller: ECDH-ES+A256KW for X25519 and P-256,
//   RSA-OAEP-256 for RSA; content is always A256GCM; the protected header says `cty: application/json`.
// - A key is used only after parseParticipantPublicKey accepted it, so a directory entry that slipped past
//   validation fails here with the same message instead of producing a JWE nobody can open.
// - Imported keys are cached by PEM in a small LRU map: a beneficiary's key serves many transactions, and
//   importing is the slow part. Only successful imports stay cached.
// - decryptFromHub (the participant's side) accepts only the algorithms the hub produces for that key.

import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, importSPKI } from 'jose';
import { type ParticipantKeyKind, parseParticipantPublicKey } from './public-key.js';

export type ParticipantJweAlg = 'ECDH-ES+A256KW' | 'RSA-OAEP-256';
export const JWE_ENC = 'A256GCM';
export const JWE_CTY = 'application/json';

const KEY_CACHE_MAX = 1000;

type ImportedKey = { alg: ParticipantJweAlg; key: Awaited<ReturnType<typeof importSPKI>> };
const keyCache = new Map<string, Promise<ImportedKey>>();

function algFor(kind: ParticipantKeyKind): ParticipantJweAlg {
  return kind === 'RSA' ? 'RSA-OAEP-256' : 'ECDH-ES+A256KW';
}

function importParticipantKey(publicKeyPem: string): Promise<ImportedKey> {
  const cached = keyCache.get(publicKeyPem);
  if (cached) {
    // Re-insert so the map's insertion order doubles as recency order.
    keyCache.delete(publicKeyPem);
    keyCache.set(publicKeyPem, cached);
    return cached;
  }
  const check = parseParticipantPublicKey(publicKeyPem);
  if (!check.ok) return Promise.reject(new Error(check.message));
  const alg = algFor(check.kind);
  // The promise is cached, not the key, so concurrent first uses of one key import it once.
  const pending = importSPKI(publicKeyPem.trim(), alg).then((key) => ({ alg, key }));
  pending.catch(() => {
    if (keyCache.get(publicKeyPem) === pending) keyCache.delete(publicKeyPem);
  });
  keyCache.set(publicKeyPem, pending);
  if (keyCache.size > KEY_CACHE_MAX) {
    const oldest = keyCache.keys().next().value;
    if (oldest !== undefined) keyCache.delete(oldest);
  }
  return pending;
}

/** JWE compact serialization of `JSON.stringify(payload)` for the holder of `publicKeyPem`. */
export async function encryptForParticipant(publicKeyPem: string, payload: unknown): Promise<string> {
  const json = JSON.stringify(payload);
  if (json === undefined) throw new TypeError('payload must be JSON-serialisable');
  const { alg, key } = await importParticipantKey(publicKeyPem);
  return new CompactEncrypt(new TextEncoder().encode(json))
    .setProtectedHeader({ alg, enc: JWE_ENC, cty: JWE_CTY })
    .encrypt(key);
}

function algForPrivateKey(key: KeyObject): ParticipantJweAlg {
  const type = key.asymmetricKeyType;
  if (type === 'x25519') return 'ECDH-ES+A256KW';
  if (type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ECDH-ES+A256KW';
  if (type === 'rsa') return 'RSA-OAEP-256';
  throw new Error('private key must be an X25519, P-256 or RSA key');
}

/**
 * Participant side: opens a JWE made by encryptForParticipant and parses its JSON. Takes any PEM private
 * key node:crypto reads (PKCS#8, SEC1, PKCS#1). Throws if the JWE was not made for this key.
 */
export async function decryptFromHub(privateKeyPem: string, jwe: string): Promise<unknown> {
  const key = createPrivateKey(privateKeyPem);
  const { plaintext } = await compactDecrypt(jwe, key, {
    keyManagementAlgorithms: [algForPrivateKey(key)],
    contentEncryptionAlgorithms: [JWE_ENC],
  });
  return JSON.parse(new TextDecoder().decode(plaintext));
}

/** A fresh X25519 key pair for a participant: SPKI public and PKCS#8 private, both PEM. */
export function generateParticipantKeyPair(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('x25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

/** Forgets every cached key (tests, or after a bulk key change). */
export function clearParticipantKeyCache(): void {
  keyCache.clear();
}
