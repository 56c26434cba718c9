import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeProtectedHeader } from 'jose';
import { decryptFromHub, encryptForParticipant, generateParticipantKeyPair } from '../../src/crypto/jwe.js';

const payload = {
  originator: { originatorPersons: [{ naturalPerson: { name: [{ primaryIdentifier: 'Müller' }] } }] },
  accountNumber: ['0xabc'],
};

function pemPair(type: 'ec' | 'rsa'): { publicKeyPem: string; privateKeyPem: string } {
  const pair =
    type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

const cases = [
  { name: 'X25519', keys: generateParticipantKeyPair(), alg: 'ECDH-ES+A256KW' },
  { name: 'P-256', keys: pemPair('ec'), alg: 'ECDH-ES+A256KW' },
  { name: 'RSA', keys: pemPair('rsa'), alg: 'RSA-OAEP-256' },
];

describe('JWE for participants', () => {
  for (const { name, keys, alg } of cases) {
    it(`round-trips a payload through a ${name} key`, async () => {
      const jwe = await encryptForParticipant(keys.publicKeyPem, payload);
      assert.equal(jwe.split('.').length, 5);
      assert.deepEqual(await decryptFromHub(keys.privateKeyPem, jwe), payload);
    });

    it(`uses ${alg} with A256GCM and a JSON content type for ${name}`, async () => {
      const header = decodeProtectedHeader(await encryptForParticipant(keys.publicKeyPem, payload));
      assert.equal(header.alg, alg);
      assert.equal(header.enc, 'A256GCM');
      assert.equal(header.cty, 'application/json');
    });
  }

  it('generates X25519 key pairs as SPKI and PKCS#8 PEM', () => {
    const { publicKeyPem, privateKeyPem } = generateParticipantKeyPair();
    assert.match(publicKeyPem, /^-----BEGIN PUBLIC KEY-----\n/);
    assert.match(privateKeyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.notEqual(generateParticipantKeyPair().publicKeyPem, publicKeyPem);
  });

  it('encrypts differently each time, also with a cached key', async () => {
    const { publicKeyPem } = generateParticipantKeyPair();
    const [a, b] = await Promise.all([
      encryptForParticipant(publicKeyPem, payload),
      encryptForParticipant(publicKeyPem, payload),
    ]);
    assert.notEqual(a, b);
    assert.notEqual(await encryptForParticipant(publicKeyPem, payload), a);
  });

  it('does not reveal the payload in the serialization', async () => {
    const jwe = await encryptForParticipant(generateParticipantKeyPair().publicKeyPem, payload);
    const decoded = jwe
      .split('.')
      .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
      .join('');
    assert.equal(decoded.includes('Müller'), false);
    assert.equal(decoded.includes('originator'), false);
  });

  it('cannot be opened with another participant key', async () => {
    const jwe = await encryptForParticipant(generateParticipantKeyPair().publicKeyPem, payload);
    await assert.rejects(decryptFromHub(generateParticipantKeyPair().privateKeyPem, jwe));
  });

  it('refuses an X25519 JWE offered to an RSA key', async () => {
    const jwe = await encryptForParticipant(generateParticipantKeyPair().publicKeyPem, payload);
    await assert.rejects(decryptFromHub(pemPair('rsa').privateKeyPem, jwe));
  });

  it('refuses a key that fails validation, with the validation message', async () => {
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await assert.rejects(encryptForParticipant(ed, payload), /not supported/);
    await assert.rejects(encryptForParticipant('garbage', payload), /SubjectPublicKeyInfo/);
  });

  it('refuses a payload that has no JSON form', async () => {
    await assert.rejects(
      encryptForParticipant(generateParticipantKeyPair().publicKeyPem, undefined),
      TypeError,
    );
  });
});
