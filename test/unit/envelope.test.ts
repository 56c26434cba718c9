import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import {
  ENVELOPE_OVERHEAD,
  EnvelopeError,
  generateMasterKey,
  KeyRing,
  keyIdOf,
  MasterKey,
  openPii,
  resealPii,
  sealedUnder,
  sealPii,
} from '../../src/crypto/envelope.js';
import { sealV1 } from '../support/legacy-envelope.js';

const masterKey = randomBytes(32);
const ref = 'a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const pii = JSON.stringify({
  originator: { originatorPersons: [{ naturalPerson: { name: [{ primaryIdentifier: 'Müller' }] } }] },
  beneficiary: { beneficiaryPersons: [{ naturalPerson: { name: [{ primaryIdentifier: 'Żółć 🚀' }] } }] },
});

// Offsets of the documented layout, one representative byte of each part.
const PARTS: Record<string, number> = {
  'key id': 1,
  'key nonce': 9,
  'wrapped key': 21,
  'key tag': 53,
  'data nonce': 69,
  'data tag': 81,
  ciphertext: 97,
};

describe('envelope encryption of personal data', () => {
  it('round-trips UTF-8 text', () => {
    const blob = sealPii(masterKey, ref, pii);
    assert.equal(openPii(masterKey, ref, blob), pii);
  });

  it('round-trips an empty string', () => {
    assert.equal(openPii(masterKey, ref, sealPii(masterKey, ref, '')), '');
  });

  it('produces a versioned blob of fixed overhead', () => {
    const blob = sealPii(masterKey, ref, pii);
    assert.equal(blob[0], 2);
    assert.equal(blob.length, ENVELOPE_OVERHEAD + Buffer.byteLength(pii));
  });

  it('opens a blob handed back as a plain Uint8Array (PGlite bytea)', () => {
    const blob = sealPii(masterKey, ref, pii);
    const copy = new Uint8Array(blob.length);
    copy.set(blob);
    assert.equal(openPii(masterKey, ref, copy), pii);
  });

  it('does not contain the plaintext', () => {
    const blob = sealPii(masterKey, ref, pii);
    assert.equal(blob.includes(Buffer.from('Müller')), false);
    assert.equal(blob.includes(Buffer.from(pii)), false);
    assert.equal(blob.toString('latin1').includes('primaryIdentifier'), false);
  });

  it('uses fresh nonces and data keys for every seal', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const blob = sealPii(masterKey, ref, pii);
      for (const part of [blob.subarray(9, 21), blob.subarray(21, 53), blob.subarray(69, 81)]) {
        const hex = part.toString('hex');
        assert.equal(seen.has(hex), false);
        seen.add(hex);
      }
    }
  });

  for (const [part, offset] of Object.entries(PARTS)) {
    it(`detects a flipped bit in the ${part}`, () => {
      const blob = sealPii(masterKey, ref, pii);
      blob[offset]! ^= 0x01;
      assert.throws(() => openPii(masterKey, ref, blob), EnvelopeError);
    });
  }

  it('detects a change to the last ciphertext byte', () => {
    const blob = sealPii(masterKey, ref, pii);
    blob[blob.length - 1]! ^= 0x80;
    assert.throws(() => openPii(masterKey, ref, blob), /could not be decrypted/);
  });

  it('refuses an unknown version byte', () => {
    const blob = sealPii(masterKey, ref, pii);
    blob[0] = 3;
    assert.throws(() => openPii(masterKey, ref, blob), /unknown format version/);
  });

  it('refuses truncated and extended blobs', () => {
    const blob = sealPii(masterKey, ref, pii);
    assert.throws(() => openPii(masterKey, ref, blob.subarray(0, 50)), /truncated/);
    assert.throws(() => openPii(masterKey, ref, blob.subarray(0, blob.length - 1)), EnvelopeError);
    assert.throws(() => openPii(masterKey, ref, Buffer.concat([blob, Buffer.of(0)])), EnvelopeError);
  });

  it('refuses a blob opened under another transaction reference', () => {
    const blob = sealPii(masterKey, ref, pii);
    assert.throws(() => openPii(masterKey, `${ref}x`, blob), EnvelopeError);
    assert.throws(() => openPii(masterKey, 'other-ref', blob), EnvelopeError);
  });

  it('refuses a blob opened with another master key', () => {
    const blob = sealPii(masterKey, ref, pii);
    assert.throws(() => openPii(randomBytes(32), ref, blob), EnvelopeError);
  });

  it('refuses a wrapped key moved onto another blob', () => {
    const a = sealPii(masterKey, ref, pii);
    const b = sealPii(masterKey, ref, pii);
    a.copy(b, 9, 9, 69);
    assert.throws(() => openPii(masterKey, ref, b), EnvelopeError);
  });

  it('never puts personal data in its error message', () => {
    const blob = sealPii(masterKey, ref, pii);
    blob[100]! ^= 1;
    assert.throws(
      () => openPii(masterKey, ref, blob),
      (err: Error) => !err.message.includes('Müller'),
    );
  });

  it('refuses master keys that are not 32 bytes', () => {
    assert.throws(() => sealPii(randomBytes(16), ref, pii), /exactly 32 bytes/);
    assert.throws(() => openPii(randomBytes(31), ref, Buffer.alloc(100)), /exactly 32 bytes/);
  });

  it('refuses an empty transaction reference', () => {
    assert.throws(() => sealPii(masterKey, '', pii), /transaction reference/);
  });
});

describe('MasterKey', () => {
  it('decodes a generated key and seals with it like the raw bytes', () => {
    const text = generateMasterKey();
    const key = MasterKey.fromBase64(text);
    const blob = sealPii(key, ref, pii);
    assert.equal(openPii(Buffer.from(text, 'base64'), ref, blob), pii);
  });

  it('refuses base64 of the wrong length or with junk characters', () => {
    assert.throws(() => MasterKey.fromBase64(randomBytes(16).toString('base64')), /HUB_MASTER_KEY/);
    assert.throws(() => MasterKey.fromBase64(`${generateMasterKey()}!`), /HUB_MASTER_KEY/);
    assert.throws(() => MasterKey.fromBase64(''), /HUB_MASTER_KEY/);
  });

  it('never shows its bytes in JSON, inspect or string form', () => {
    const text = generateMasterKey();
    const key = MasterKey.fromBase64(text);
    const hex = Buffer.from(text, 'base64').toString('hex');
    for (const shown of [
      JSON.stringify({ key }),
      inspect({ key }, { depth: 5, showHidden: true }),
      `${key}`,
    ]) {
      assert.equal(shown.includes(text), false);
      assert.equal(shown.includes(hex), false);
      assert.match(shown, /redacted/);
    }
  });
});

describe('master key rotation (key ids)', () => {
  const key1 = randomBytes(32);
  const key2 = randomBytes(32);

  it('names the sealing key by an id derived from it, which does not contain the key', () => {
    const id = keyIdOf(key1);
    assert.match(id, /^[0-9a-f]{16}$/);
    assert.equal(keyIdOf(Buffer.from(key1)), id);
    assert.notEqual(keyIdOf(key2), id);
    assert.equal(key1.toString('hex').includes(id), false);
    assert.equal(sealedUnder(sealPii(key1, ref, pii)), id);
  });

  it('seals under the current key of a ring and opens with whichever key a blob names', () => {
    const old = sealPii(key1, ref, pii);
    const ring = KeyRing.of(key2, [key1]);
    const fresh = sealPii(ring, ref, pii);
    assert.equal(sealedUnder(fresh), keyIdOf(key2));
    assert.equal(openPii(ring, ref, old), pii);
    assert.equal(openPii(ring, ref, fresh), pii);
    assert.equal(openPii(key2, ref, fresh), pii);
  });

  it('names the missing key when the ring lacks it', () => {
    const old = sealPii(key1, ref, pii);
    assert.throws(
      () => openPii(key2, ref, old),
      (err: Error) => err instanceof EnvelopeError && err.message.includes(keyIdOf(key1)),
    );
  });

  it('refuses a blob whose key id was rewritten to another key of the ring', () => {
    const blob = sealPii(key1, ref, pii);
    Buffer.from(keyIdOf(key2), 'hex').copy(blob, 1);
    assert.throws(() => openPii(KeyRing.of(key2, [key1]), ref, blob), /could not be decrypted/);
  });

  it('opens a version 1 blob with any key of the ring, and re-seals it as version 2', () => {
    const legacy = sealV1(key1, ref, pii);
    assert.equal(sealedUnder(legacy), null);
    const ring = KeyRing.of(key2, [key1]);
    assert.equal(openPii(ring, ref, legacy), pii);
    assert.throws(() => openPii(key2, ref, legacy), /could not be decrypted/);
    const resealed = resealPii(ring, ref, legacy)!;
    assert.equal(sealedUnder(resealed), keyIdOf(key2));
    assert.equal(openPii(key2, ref, resealed), pii);
  });

  it('re-seals only what is not under the current key yet', () => {
    const ring = KeyRing.of(key2, [key1]);
    assert.equal(resealPii(ring, ref, sealPii(key2, ref, pii)), undefined);
    const moved = resealPii(ring, ref, sealPii(key1, ref, pii))!;
    assert.equal(openPii(key2, ref, moved), pii);
  });

  it('never shows its keys in JSON, inspect or string form', () => {
    const ring = KeyRing.of(key1, [key2]);
    for (const shown of [
      JSON.stringify({ ring }),
      inspect({ ring }, { depth: 5, showHidden: true }),
      `${ring}`,
    ]) {
      for (const key of [key1, key2]) {
        assert.equal(shown.includes(key.toString('hex')), false);
        assert.equal(shown.includes(key.toString('base64')), false);
      }
    }
  });
});
