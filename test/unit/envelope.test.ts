import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import {
  ENVELOPE_OVERHEAD,
  EnvelopeError,
  generateMasterKey,
  MasterKey,
  openPii,
  sealPii,
} from '../../src/crypto/envelope.js';

const masterKey = randomBytes(32);
const ref = 'a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const pii = JSON.stringify({
  originator: { originatorPersons: [{ naturalPerson: { name: [{ primaryIdentifier: 'Müller' }] } }] },
  beneficiary: { beneficiaryPersons: [{ naturalPerson: { name: [{ primaryIdentifier: 'Żółć 🚀' }] } }] },
});

// Offsets of the documented layout, one representative byte of each part.
const PARTS: Record<string, number> = {
  'key nonce': 1,
  'wrapped key': 13,
  'key tag': 45,
  'data nonce': 61,
  'data tag': 73,
  ciphertext: 89,
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
    assert.equal(blob[0], 1);
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
      for (const part of [blob.subarray(1, 13), blob.subarray(13, 45), blob.subarray(61, 73)]) {
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
    blob[0] = 2;
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
    a.copy(b, 1, 1, 61);
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
