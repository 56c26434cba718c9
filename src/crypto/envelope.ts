// Envelope encryption of personal data at rest (SPEC §9).
//
// Invariants:
// - Every sealed blob has its own random 32-byte data key; the master key only ever encrypts data keys,
//   so it sees a tiny, uniform amount of plaintext whatever the volume of personal data.
// - Both AES-256-GCM layers use a fresh random 12-byte nonce and bind the format version, a layer label
//   and the transaction reference as associated data: a blob copied onto another transaction, a layer
//   swapped for the other, or a downgraded version byte all fail authentication.
// - openPii never returns unauthenticated bytes and never says which check failed (a wrong key, a wrong
//   reference and a tampered blob look the same to GCM, and we do not want to be an oracle anyway).
// - Data keys are zeroed as soon as they are used; the master key can be held in a MasterKey, whose
//   toJSON / inspect print a placeholder, so a logged configuration object does not leak it.
// - The blob names no master key: rotating HUB_MASTER_KEY means re-sealing (a later version byte can add
//   a key id). Version 1 is the only format openPii accepts.
//
// Blob layout (version 1), all offsets fixed so it can live in one `bytea` column:
//   [0]        version = 0x01
//   [1..13)    nonce of the key-wrapping layer
//   [13..45)   wrapped data key
//   [45..61)   GCM tag of the key-wrapping layer
//   [61..73)   nonce of the data layer
//   [73..89)   GCM tag of the data layer
//   [89..)     ciphertext (same length as the UTF-8 plaintext)

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { takeRandom } from './random.js';

const VERSION = 0x01;
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

const KEY_NONCE_AT = 1;
const WRAPPED_KEY_AT = KEY_NONCE_AT + NONCE_BYTES;
const KEY_TAG_AT = WRAPPED_KEY_AT + KEY_BYTES;
const DATA_NONCE_AT = KEY_TAG_AT + TAG_BYTES;
const DATA_TAG_AT = DATA_NONCE_AT + NONCE_BYTES;
const CIPHERTEXT_AT = DATA_TAG_AT + TAG_BYTES;

/** Size of everything but the ciphertext: a sealed blob is `ENVELOPE_OVERHEAD + UTF-8 length` bytes. */
export const ENVELOPE_OVERHEAD = CIPHERTEXT_AT;

/** Thrown by openPii (and by sealPii for a bad master key). The message never contains personal data. */
export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
}

const KEY_LABEL = Buffer.from('trh/pii/key\0', 'latin1');
const DATA_LABEL = Buffer.from('trh/pii/data\0', 'latin1');

// The labels differ so a wrapped key can never be accepted as data or the other way round; the ref comes
// last, after fixed-length fields, so the encoding is unambiguous.
function associatedData(version: number, label: Buffer, transactionRef: string): Buffer {
  return Buffer.concat([Buffer.of(version), label, Buffer.from(transactionRef, 'utf8')]);
}

function assertKeyLength(bytes: Buffer): void {
  if (!Buffer.isBuffer(bytes) || bytes.length !== KEY_BYTES) {
    throw new EnvelopeError(`master key must be exactly ${KEY_BYTES} bytes`);
  }
}

function keyBytes(masterKey: Buffer | MasterKey): Buffer {
  if (masterKey instanceof MasterKey) return masterKey.bytes();
  assertKeyLength(masterKey);
  return masterKey;
}

function assertRef(transactionRef: string): void {
  if (typeof transactionRef !== 'string' || transactionRef.length === 0) {
    throw new EnvelopeError('transaction reference must be a non-empty string');
  }
}

/** Encrypts `plaintext` (the pii JSON) for storage, bound to `transactionRef`. */
export function sealPii(masterKey: Buffer | MasterKey, transactionRef: string, plaintext: string): Buffer {
  const kek = keyBytes(masterKey);
  assertRef(transactionRef);
  const data = Buffer.from(plaintext, 'utf8');
  const blob = Buffer.allocUnsafe(CIPHERTEXT_AT + data.length);
  blob[0] = VERSION;

  const dataKey = takeRandom(KEY_BYTES);
  try {
    const keyNonce = takeRandom(NONCE_BYTES);
    keyNonce.copy(blob, KEY_NONCE_AT);
    const wrap = createCipheriv('aes-256-gcm', kek, keyNonce, { authTagLength: TAG_BYTES });
    wrap.setAAD(associatedData(VERSION, KEY_LABEL, transactionRef));
    const wrapped = Buffer.concat([wrap.update(dataKey), wrap.final()]);
    wrapped.copy(blob, WRAPPED_KEY_AT);
    wrap.getAuthTag().copy(blob, KEY_TAG_AT);

    const dataNonce = takeRandom(NONCE_BYTES);
    dataNonce.copy(blob, DATA_NONCE_AT);
    const enc = createCipheriv('aes-256-gcm', dataKey, dataNonce, { authTagLength: TAG_BYTES });
    enc.setAAD(associatedData(VERSION, DATA_LABEL, transactionRef));
    const head = enc.update(data);
    const tail = enc.final();
    head.copy(blob, CIPHERTEXT_AT);
    tail.copy(blob, CIPHERTEXT_AT + head.length);
    enc.getAuthTag().copy(blob, DATA_TAG_AT);
  } finally {
    dataKey.fill(0);
  }
  return blob;
}

const OPEN_FAILED =
  'personal data could not be decrypted: wrong master key or transaction reference, or the stored blob was altered';

/**
 * Decrypts a blob made by sealPii for the same transaction. Throws EnvelopeError on any mismatch.
 * Takes a Uint8Array as well as a Buffer, since PGlite returns `bytea` as Uint8Array and pg as Buffer.
 */
export function openPii(masterKey: Buffer | MasterKey, transactionRef: string, blob: Uint8Array): string {
  const kek = keyBytes(masterKey);
  assertRef(transactionRef);
  if (!(blob instanceof Uint8Array)) {
    throw new EnvelopeError('sealed personal data must be a Buffer or Uint8Array');
  }
  if (blob.length < CIPHERTEXT_AT) {
    throw new EnvelopeError(`sealed personal data is truncated (${blob.length} bytes)`);
  }
  if (blob[0] !== VERSION) {
    throw new EnvelopeError(`sealed personal data has an unknown format version (${blob[0]})`);
  }
  const bytes = Buffer.isBuffer(blob) ? blob : Buffer.from(blob.buffer, blob.byteOffset, blob.length);

  let dataKey: Buffer;
  try {
    const unwrap = createDecipheriv('aes-256-gcm', kek, bytes.subarray(KEY_NONCE_AT, WRAPPED_KEY_AT), {
      authTagLength: TAG_BYTES,
    });
    unwrap.setAAD(associatedData(VERSION, KEY_LABEL, transactionRef));
    unwrap.setAuthTag(bytes.subarray(KEY_TAG_AT, DATA_NONCE_AT));
    dataKey = Buffer.concat([unwrap.update(bytes.subarray(WRAPPED_KEY_AT, KEY_TAG_AT)), unwrap.final()]);
  } catch {
    throw new EnvelopeError(OPEN_FAILED);
  }

  try {
    const dec = createDecipheriv('aes-256-gcm', dataKey, bytes.subarray(DATA_NONCE_AT, DATA_TAG_AT), {
      authTagLength: TAG_BYTES,
    });
    dec.setAAD(associatedData(VERSION, DATA_LABEL, transactionRef));
    dec.setAuthTag(bytes.subarray(DATA_TAG_AT, CIPHERTEXT_AT));
    const plain = Buffer.concat([dec.update(bytes.subarray(CIPHERTEXT_AT)), dec.final()]);
    const text = plain.toString('utf8');
    plain.fill(0);
    return text;
  } catch {
    throw new EnvelopeError(OPEN_FAILED);
  } finally {
    dataKey.fill(0);
  }
}

/** A fresh master key, base64 of 32 random bytes: the form HUB_MASTER_KEY takes (and its saved file). */
export function generateMasterKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

const REDACTED = 'MasterKey(<redacted>)';

/**
 * Holds the master key so that it cannot end up in a log line or a JSON dump of the configuration:
 * the bytes sit in a private field, and toJSON / util.inspect / toString print a placeholder.
 * sealPii and openPii take either this or a raw 32-byte Buffer.
 */
export class MasterKey {
  readonly #bytes: Buffer;

  private constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  /**
   * Decodes HUB_MASTER_KEY. Strict: canonical base64 (standard alphabet, padded) of exactly 32 bytes,
   * because Buffer.from(…, 'base64') silently skips bad characters and a typo would otherwise become a
   * different, valid-looking key that cannot open anything stored so far.
   */
  static fromBase64(text: string): MasterKey {
    const trimmed = typeof text === 'string' ? text.trim() : '';
    const bytes = Buffer.from(trimmed, 'base64');
    if (bytes.length !== KEY_BYTES || bytes.toString('base64') !== trimmed) {
      bytes.fill(0);
      throw new EnvelopeError(`HUB_MASTER_KEY must be the base64 encoding of exactly ${KEY_BYTES} bytes`);
    }
    return new MasterKey(bytes);
  }

  static fromBuffer(bytes: Buffer): MasterKey {
    assertKeyLength(bytes);
    return new MasterKey(Buffer.from(bytes));
  }

  /** The raw key, for node:crypto only. Never log or serialise it. */
  bytes(): Buffer {
    return this.#bytes;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return REDACTED;
  }
}
