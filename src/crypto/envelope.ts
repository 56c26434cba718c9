// Envelope encryption of personal data at rest (SPEC §9, §14).
//
// Invariants:
// - Every sealed blob has its own random 32-byte data key; the master key only ever encrypts data keys,
//   so it sees a tiny, uniform amount of plaintext whatever the volume of personal data.
// - Both AES-256-GCM layers use a fresh random 12-byte nonce and bind the format version, the key id
//   (version 2), a layer label and the transaction reference as associated data: a blob copied onto
//   another transaction, a layer swapped for the other, a downgraded version byte or a rewritten key id
//   all fail authentication.
// - openPii never returns unauthenticated bytes and never says which check failed (a wrong key, a wrong
//   reference and a tampered blob look the same to GCM, and we do not want to be an oracle anyway).
// - Data keys are zeroed as soon as they are used; master keys are held in a MasterKey or a KeyRing,
//   whose toJSON / inspect print a placeholder, so a logged configuration object does not leak them.
// - A blob names the master key that sealed it (SPEC §14): an 8-byte key id, the first bytes of a
//   SHA-256 of the key (keyIdOf), never the key. openPii picks the key by that id from the ring (the
//   current key and HUB_MASTER_KEYS_PREVIOUS), so the master key can rotate and `rekey` re-seal.
//   sealPii always writes version 2 under the ring's current key. Version 1 blobs (before key ids)
//   still open: every key of the ring is tried; migration 0016 and `rekey` rewrite them.
//
// Blob layout, all offsets fixed so it can live in one `bytea` column. Version 2:
//   [0]        version = 0x02
//   [1..9)     key id of the master key that wrapped the data key
//   [9..21)    nonce of the key-wrapping layer
//   [21..53)   wrapped data key
//   [53..69)   GCM tag of the key-wrapping layer
//   [69..81)   nonce of the data layer
//   [81..97)   GCM tag of the data layer
//   [97..)     ciphertext (same length as the UTF-8 plaintext)
// Version 1 is the same without the key id (everything 8 bytes earlier).

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { takeRandom } from './random.js';

const V1 = 0x01;
const V2 = 0x02;
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Bytes of a key id in a blob (shown as 16 hex digits). */
export const KEY_ID_BYTES = 8;

/** Where the parts of a blob of each version start. */
interface Layout {
  keyNonce: number;
  wrappedKey: number;
  keyTag: number;
  dataNonce: number;
  dataTag: number;
  ciphertext: number;
}

function layout(head: number): Layout {
  const keyNonce = head;
  const wrappedKey = keyNonce + NONCE_BYTES;
  const keyTag = wrappedKey + KEY_BYTES;
  const dataNonce = keyTag + TAG_BYTES;
  const dataTag = dataNonce + NONCE_BYTES;
  return { keyNonce, wrappedKey, keyTag, dataNonce, dataTag, ciphertext: dataTag + TAG_BYTES };
}

const LAYOUT_V1 = layout(1);
const LAYOUT_V2 = layout(1 + KEY_ID_BYTES);

/** Size of everything but the ciphertext: a sealed blob is `ENVELOPE_OVERHEAD + UTF-8 length` bytes. */
export const ENVELOPE_OVERHEAD = LAYOUT_V2.ciphertext;

/** Thrown by openPii (and by sealPii for a bad master key). The message never contains personal data. */
export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
}

const KEY_LABEL = Buffer.from('trh/pii/key\0', 'latin1');
const DATA_LABEL = Buffer.from('trh/pii/data\0', 'latin1');
const KEY_ID_LABEL = Buffer.from('trh/master-key-id\0', 'latin1');

// The labels differ so a wrapped key can never be accepted as data or the other way round; the ref comes
// last, after fixed-length fields (version, key id, label), so the encoding is unambiguous.
function associatedData(header: Buffer, label: Buffer, transactionRef: string): Buffer {
  return Buffer.concat([header, label, Buffer.from(transactionRef, 'utf8')]);
}

function assertKeyLength(bytes: Buffer): void {
  if (!Buffer.isBuffer(bytes) || bytes.length !== KEY_BYTES) {
    throw new EnvelopeError(`master key must be exactly ${KEY_BYTES} bytes`);
  }
}

/** The id a blob carries for a master key: 8 bytes of a labelled SHA-256 of it, as 16 hex digits. */
export function keyIdOf(key: Buffer | MasterKey): string {
  const bytes = key instanceof MasterKey ? key.bytes() : key;
  assertKeyLength(bytes);
  return createHash('sha256')
    .update(KEY_ID_LABEL)
    .update(bytes)
    .digest()
    .subarray(0, KEY_ID_BYTES)
    .toString('hex');
}

/** The key id a blob names, or null for a version 1 blob (sealed before key ids). */
export function sealedUnder(blob: Uint8Array): string | null {
  if (blob.length < LAYOUT_V2.ciphertext || blob[0] !== V2) return null;
  return Buffer.from(blob.buffer, blob.byteOffset + 1, KEY_ID_BYTES).toString('hex');
}

/** What seals and opens: a ring of master keys, or one key (a ring of one). */
export type SealingKeys = Buffer | MasterKey | KeyRing;

function ringOf(keys: SealingKeys): KeyRing {
  return keys instanceof KeyRing ? keys : KeyRing.of(keys);
}

function assertRef(transactionRef: string): void {
  if (typeof transactionRef !== 'string' || transactionRef.length === 0) {
    throw new EnvelopeError('transaction reference must be a non-empty string');
  }
}

/** Encrypts `plaintext` (the pii JSON) for storage under the current master key, bound to `transactionRef`. */
export function sealPii(keys: SealingKeys, transactionRef: string, plaintext: string): Buffer {
  const ring = ringOf(keys);
  assertRef(transactionRef);
  const kek = ring.current.bytes();
  const at = LAYOUT_V2;
  const data = Buffer.from(plaintext, 'utf8');
  const blob = Buffer.allocUnsafe(at.ciphertext + data.length);
  blob[0] = V2;
  ring.currentIdBytes.copy(blob, 1);
  const header = blob.subarray(0, at.keyNonce);

  const dataKey = takeRandom(KEY_BYTES);
  try {
    const keyNonce = takeRandom(NONCE_BYTES);
    keyNonce.copy(blob, at.keyNonce);
    const wrap = createCipheriv('aes-256-gcm', kek, keyNonce, { authTagLength: TAG_BYTES });
    wrap.setAAD(associatedData(header, KEY_LABEL, transactionRef));
    const wrapped = Buffer.concat([wrap.update(dataKey), wrap.final()]);
    wrapped.copy(blob, at.wrappedKey);
    wrap.getAuthTag().copy(blob, at.keyTag);

    const dataNonce = takeRandom(NONCE_BYTES);
    dataNonce.copy(blob, at.dataNonce);
    const enc = createCipheriv('aes-256-gcm', dataKey, dataNonce, { authTagLength: TAG_BYTES });
    enc.setAAD(associatedData(header, DATA_LABEL, transactionRef));
    const head = enc.update(data);
    const tail = enc.final();
    head.copy(blob, at.ciphertext);
    tail.copy(blob, at.ciphertext + head.length);
    enc.getAuthTag().copy(blob, at.dataTag);
  } finally {
    dataKey.fill(0);
  }
  return blob;
}

const OPEN_FAILED =
  'personal data could not be decrypted: wrong master key or transaction reference, or the stored blob was altered';

/**
 * Decrypts a blob made by sealPii for the same transaction, with the key of the ring it names.
 * Throws EnvelopeError on any mismatch, and names the key id when the ring lacks that key.
 * Takes a Uint8Array as well as a Buffer, since PGlite returns `bytea` as Uint8Array and pg as Buffer.
 */
export function openPii(keys: SealingKeys, transactionRef: string, blob: Uint8Array): string {
  const ring = ringOf(keys);
  assertRef(transactionRef);
  if (!(blob instanceof Uint8Array)) {
    throw new EnvelopeError('sealed personal data must be a Buffer or Uint8Array');
  }
  const version = blob[0];
  if (blob.length > 0 && version !== V1 && version !== V2) {
    throw new EnvelopeError(`sealed personal data has an unknown format version (${version})`);
  }
  const at = version === V2 ? LAYOUT_V2 : LAYOUT_V1;
  if (blob.length < at.ciphertext) {
    throw new EnvelopeError(`sealed personal data is truncated (${blob.length} bytes)`);
  }
  const bytes = Buffer.isBuffer(blob) ? blob : Buffer.from(blob.buffer, blob.byteOffset, blob.length);
  if (version === V1) {
    for (const key of ring.all()) {
      const text = tryOpen(key.bytes(), at, bytes, transactionRef);
      if (text !== undefined) return text;
    }
    throw new EnvelopeError(OPEN_FAILED);
  }
  const id = bytes.subarray(1, 1 + KEY_ID_BYTES).toString('hex');
  const key = ring.byId(id);
  if (key === undefined) {
    throw new EnvelopeError(
      `sealed under master key ${id}, which is neither HUB_MASTER_KEY nor in HUB_MASTER_KEYS_PREVIOUS`,
    );
  }
  const text = tryOpen(key.bytes(), at, bytes, transactionRef);
  if (text === undefined) throw new EnvelopeError(OPEN_FAILED);
  return text;
}

/** The plaintext, or undefined when authentication fails under this key. */
function tryOpen(kek: Buffer, at: Layout, bytes: Buffer, transactionRef: string): string | undefined {
  const header = bytes.subarray(0, at.keyNonce);
  let dataKey: Buffer;
  try {
    const unwrap = createDecipheriv('aes-256-gcm', kek, bytes.subarray(at.keyNonce, at.wrappedKey), {
      authTagLength: TAG_BYTES,
    });
    unwrap.setAAD(associatedData(header, KEY_LABEL, transactionRef));
    unwrap.setAuthTag(bytes.subarray(at.keyTag, at.dataNonce));
    dataKey = Buffer.concat([unwrap.update(bytes.subarray(at.wrappedKey, at.keyTag)), unwrap.final()]);
  } catch {
    return undefined;
  }

  try {
    const dec = createDecipheriv('aes-256-gcm', dataKey, bytes.subarray(at.dataNonce, at.dataTag), {
      authTagLength: TAG_BYTES,
    });
    dec.setAAD(associatedData(header, DATA_LABEL, transactionRef));
    dec.setAuthTag(bytes.subarray(at.dataTag, at.ciphertext));
    const plain = Buffer.concat([dec.update(bytes.subarray(at.ciphertext)), dec.final()]);
    const text = plain.toString('utf8');
    plain.fill(0);
    return text;
  } catch {
    return undefined;
  } finally {
    dataKey.fill(0);
  }
}

/**
 * The blob re-sealed under the ring's current key, or undefined when it already is (rekey). Throws
 * like openPii when no key of the ring opens it.
 */
export function resealPii(keys: SealingKeys, transactionRef: string, blob: Uint8Array): Buffer | undefined {
  const ring = ringOf(keys);
  if (sealedUnder(blob) === ring.currentId) return undefined;
  return sealPii(ring, transactionRef, openPii(ring, transactionRef, blob));
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

/**
 * The master keys the hub holds: the current one (HUB_MASTER_KEY or its file), which seals, and the
 * previous ones (HUB_MASTER_KEYS_PREVIOUS), which only open what they sealed until `rekey` re-seals it.
 * Redacts itself like MasterKey.
 */
export class KeyRing {
  readonly current: MasterKey;
  readonly currentId: string;
  /** The current key id as the bytes a blob carries (made once: sealPii runs per initiation). */
  readonly currentIdBytes: Buffer;
  readonly #byId: Map<string, MasterKey>;

  private constructor(current: MasterKey, previous: readonly MasterKey[]) {
    this.current = current;
    this.currentId = keyIdOf(current);
    this.currentIdBytes = Buffer.from(this.currentId, 'hex');
    this.#byId = new Map([[this.currentId, current]]);
    for (const key of previous) {
      const id = keyIdOf(key);
      if (!this.#byId.has(id)) this.#byId.set(id, key);
    }
  }

  static of(current: Buffer | MasterKey, previous: readonly (Buffer | MasterKey)[] = []): KeyRing {
    const hold = (k: Buffer | MasterKey) => (k instanceof MasterKey ? k : MasterKey.fromBuffer(k));
    return new KeyRing(hold(current), previous.map(hold));
  }

  byId(id: string): MasterKey | undefined {
    return this.#byId.get(id);
  }

  /** Every key, the current one first. */
  all(): MasterKey[] {
    return [...this.#byId.values()];
  }

  /** Ids of every key, the current one first. */
  ids(): string[] {
    return [...this.#byId.keys()];
  }

  toJSON(): string {
    return 'KeyRing(<redacted>)';
  }

  toString(): string {
    return 'KeyRing(<redacted>)';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'KeyRing(<redacted>)';
  }
}

/** The current master key's bytes, for keys derived from it (HKDF): link tokens, request fingerprints. */
export function currentKeyBytes(keys: SealingKeys): Buffer {
  if (keys instanceof KeyRing) return keys.current.bytes();
  if (keys instanceof MasterKey) return keys.bytes();
  assertKeyLength(keys);
  return keys;
}
