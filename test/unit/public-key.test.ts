import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseParticipantPublicKey } from '../../src/crypto/public-key.js';

// Key pairs as PEM: SPKI public, PKCS#8 private.
function pem(pair: { publicKey: KeyObject; privateKey: KeyObject }): {
  publicKey: string;
  privateKey: string;
} {
  return {
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

const x25519 = pem(generateKeyPairSync('x25519'));
const p256 = pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }));
const rsa2048 = pem(generateKeyPairSync('rsa', { modulusLength: 2048 }));
const rsa3072 = pem(generateKeyPairSync('rsa', { modulusLength: 3072 }));

function rejected(pem: string): string {
  const result = parseParticipantPublicKey(pem);
  assert.equal(result.ok, false, 'expected the key to be rejected');
  return result.ok ? '' : result.message;
}

describe('parseParticipantPublicKey accepts', () => {
  it('an X25519 SPKI key', () => {
    assert.deepEqual(parseParticipantPublicKey(x25519.publicKey), { ok: true, kind: 'X25519' });
  });

  it('a P-256 SPKI key', () => {
    assert.deepEqual(parseParticipantPublicKey(p256.publicKey), { ok: true, kind: 'P-256' });
  });

  it('RSA keys of 2048 bits and more, reporting the size', () => {
    assert.deepEqual(parseParticipantPublicKey(rsa2048.publicKey), { ok: true, kind: 'RSA', bits: 2048 });
    assert.deepEqual(parseParticipantPublicKey(rsa3072.publicKey), { ok: true, kind: 'RSA', bits: 3072 });
  });

  it('CRLF line endings, surrounding whitespace and a body on one line', () => {
    assert.equal(parseParticipantPublicKey(p256.publicKey.replace(/\n/g, '\r\n')).ok, true);
    assert.equal(parseParticipantPublicKey(`\n  ${x25519.publicKey}\n\n`).ok, true);
    const oneLine = x25519.publicKey.replace(/\n(?!-----END)/g, '').replace(/-----END/, '\n-----END');
    assert.equal(parseParticipantPublicKey(oneLine).ok, true);
  });
});

describe('parseParticipantPublicKey rejects', () => {
  it('private keys', () => {
    for (const key of [x25519, p256, rsa2048]) assert.match(rejected(key.privateKey), /not a private key/);
    const sec1 = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'sec1', format: 'pem' },
    });
    assert.match(rejected(sec1.privateKey), /not a private key/);
  });

  it('a certificate', () => {
    const cert = `-----BEGIN CERTIFICATE-----\n${Buffer.alloc(300, 7).toString('base64')}\n-----END CERTIFICATE-----\n`;
    assert.match(rejected(cert), /not a certificate/);
  });

  it('a PKCS#1 RSA PUBLIC KEY block', () => {
    const pkcs1 = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'pkcs1', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    assert.match(rejected(pkcs1.publicKey), /SubjectPublicKeyInfo/);
  });

  it('other curves: P-384, secp256k1, Ed25519, X448', () => {
    const p384 = pem(generateKeyPairSync('ec', { namedCurve: 'P-384' }));
    assert.match(rejected(p384.publicKey), /secp384r1 is not supported/);
    const k1 = pem(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }));
    assert.match(rejected(k1.publicKey), /secp256k1 is not supported/);
    const ed = pem(generateKeyPairSync('ed25519'));
    assert.match(rejected(ed.publicKey), /ed25519 keys are not supported/);
    const x448 = pem(generateKeyPairSync('x448'));
    assert.match(rejected(x448.publicKey), /x448 keys are not supported/);
  });

  it('RSA below 2048 bits', () => {
    const small = pem(generateKeyPairSync('rsa', { modulusLength: 1024 }));
    assert.match(rejected(small.publicKey), /only 1024 bits/);
  });

  it('RSA-PSS keys, which cannot do RSA-OAEP', () => {
    const pss = pem(generateKeyPairSync('rsa-pss', { modulusLength: 2048 }));
    assert.match(rejected(pss.publicKey), /rsa-pss keys are not supported/);
  });

  it('garbage, empty input and a non-string', () => {
    const requirement =
      'publicKey must be a PEM SubjectPublicKeyInfo of an X25519, P-256 or RSA (≥ 2048 bits) key';
    assert.equal(rejected('hello'), requirement);
    assert.equal(rejected(''), requirement);
    assert.equal(rejected('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'), requirement);
    assert.equal(rejected(`-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----`), requirement);
    assert.equal(rejected(42 as unknown as string), requirement);
  });

  it('a valid key with trailing DER bytes or text around the block', () => {
    const body = x25519.publicKey.replace(/-----[A-Z ]+-----|\s/g, '');
    const padded = Buffer.concat([Buffer.from(body, 'base64'), Buffer.of(0, 0)]).toString('base64');
    assert.equal(
      rejected(`-----BEGIN PUBLIC KEY-----\n${padded}\n-----END PUBLIC KEY-----\n`).length > 0,
      true,
    );
    assert.equal(parseParticipantPublicKey(`my key:\n${x25519.publicKey}`).ok, false);
    assert.equal(parseParticipantPublicKey(`${x25519.publicKey}${p256.publicKey}`).ok, false);
  });

  it('input over 16 KiB', () => {
    const huge = x25519.publicKey + ' '.repeat(16 * 1024);
    assert.match(rejected(huge), /at most 16 KiB/);
  });
});
