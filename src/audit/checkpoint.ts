/**
 * Signed checkpoints (SPEC §14): the hub signs the chain's head `{ seq, hash, at }` (RFC 8785
 * JSON, Ed25519, base64 signature) so that an auditor who keeps a checkpoint outside the hub can
 * later show that the chain was rewritten or cut short, even by the database's owner. The key is
 * HUB_AUDIT_SIGNING_KEY (a PEM file) or, when that is unset, derived from the master key with
 * HKDF-SHA-256, so a hub needs no new setting; the public key travels in every checkpoint.
 */
import { createPrivateKey, createPublicKey, hkdfSync, type KeyObject, sign, verify } from 'node:crypto';
import type { Config } from '../config.js';
import { canonicalJson } from './chain.js';

export interface Checkpoint {
  seq: number;
  hash: string;
  at: string;
  /** base64 Ed25519 signature over RFC 8785 JSON of { seq, hash, at }. */
  signature: string;
  /** PEM (SPKI). */
  publicKey: string;
}

/** PKCS #8 DER prefix of an Ed25519 private key; the 32-byte seed follows (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const HKDF_INFO = 'travel-rule-hub audit signing key v1';

export class AuditSigner {
  readonly publicKeyPem: string;

  private constructor(private readonly key: KeyObject) {
    this.publicKeyPem = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  }

  /** HUB_AUDIT_SIGNING_KEY's key when set, else the one derived from the master key. */
  static forConfig(config: Pick<Config, 'auditSigningKey'>, masterKey: Buffer): AuditSigner {
    return config.auditSigningKey === undefined
      ? AuditSigner.fromMasterKey(masterKey)
      : AuditSigner.fromPem(config.auditSigningKey);
  }

  /** From a PEM private key (HUB_AUDIT_SIGNING_KEY's file); throws unless it is Ed25519. */
  static fromPem(pem: string): AuditSigner {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('is not an Ed25519 private key');
    return new AuditSigner(key);
  }

  /** Derived from the master key, for hubs without HUB_AUDIT_SIGNING_KEY. */
  static fromMasterKey(masterKey: Buffer): AuditSigner {
    const seed = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), HKDF_INFO, 32));
    const der = Buffer.concat([ED25519_PKCS8_PREFIX, seed]);
    return new AuditSigner(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
  }

  sign(head: { seq: number; hash: string }, at: string): Checkpoint {
    const body = { seq: head.seq, hash: head.hash, at };
    const signature = sign(null, Buffer.from(canonicalJson(body), 'utf8'), this.key).toString('base64');
    return { ...body, signature, publicKey: this.publicKeyPem };
  }

  /** Never the key in logs or inspection. */
  toJSON() {
    return '[AuditSigner]';
  }
  [Symbol.for('nodejs.util.inspect.custom')]() {
    return '[AuditSigner]';
  }
}

/** Whether `cp` is signed by `publicKeyPem` (the auditor's copy; the checkpoint's own otherwise). */
export function checkpointSigned(cp: Checkpoint, publicKeyPem = cp.publicKey): boolean {
  try {
    const body = canonicalJson({ seq: cp.seq, hash: cp.hash, at: cp.at });
    return verify(
      null,
      Buffer.from(body, 'utf8'),
      createPublicKey(publicKeyPem),
      Buffer.from(cp.signature, 'base64'),
    );
  } catch {
    return false;
  }
}

/** Same public key, whatever the PEM's line breaks. */
export function samePublicKey(a: string, b: string): boolean {
  try {
    return createPublicKey(a).equals(createPublicKey(b));
  } catch {
    return false;
  }
}
