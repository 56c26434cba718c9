/** Sealed blobs in the format before key ids (version 1), as hubs before SPEC §14 wrote them. */
import { createCipheriv, randomBytes } from 'node:crypto';

export function sealV1(key: Buffer, context: string, plaintext: string): Buffer {
  const aad = (label: string) =>
    Buffer.concat([Buffer.of(1), Buffer.from(label, 'latin1'), Buffer.from(context)]);
  const dataKey = randomBytes(32);
  const keyNonce = randomBytes(12);
  const wrap = createCipheriv('aes-256-gcm', key, keyNonce).setAAD(aad('trh/pii/key\0'));
  const wrapped = Buffer.concat([wrap.update(dataKey), wrap.final()]);
  const dataNonce = randomBytes(12);
  const enc = createCipheriv('aes-256-gcm', dataKey, dataNonce).setAAD(aad('trh/pii/data\0'));
  const ciphertext = Buffer.concat([enc.update(plaintext, 'utf8'), enc.final()]);
  return Buffer.concat([
    Buffer.of(1),
    keyNonce,
    wrapped,
    wrap.getAuthTag(),
    dataNonce,
    enc.getAuthTag(),
    ciphertext,
  ]);
}
