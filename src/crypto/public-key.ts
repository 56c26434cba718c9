// Validation of a participant's `publicKey` (SPEC §5), run whenever a directory entry sets one.
//
// Invariants:
// - Only a single PEM block labelled exactly `PUBLIC KEY` (SubjectPublicKeyInfo) is accepted. node:crypto's
//   createPublicKey alone would also take private keys (deriving the public half), certificates and PKCS#1
//   `RSA PUBLIC KEY`, so the label is checked first and the DER is parsed as SPKI explicitly.
// - The DER must be exactly what node:crypto writes back for the parsed key, so trailing bytes or odd
//   encodings are refused rather than silently ignored.
// - Accepted keys are the ones encryptForParticipant can use: X25519, EC P-256, RSA (not RSA-PSS) of at
//   least 2048 bits. Everything else gets one short message, never the parser's internals.

import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

export const MAX_PUBLIC_KEY_PEM_BYTES = 16 * 1024;
export const MIN_RSA_BITS = 2048;

export type ParticipantKeyKind = 'X25519' | 'P-256' | 'RSA';

export type PublicKeyCheck =
  | { ok: true; kind: ParticipantKeyKind; bits?: number }
  | { ok: false; message: string };

const REQUIREMENT =
  'publicKey must be a PEM SubjectPublicKeyInfo of an X25519, P-256 or RSA (≥ 2048 bits) key';

// One PEM block and nothing else but whitespace. Line breaks inside are not enforced (CRLF, one long line
// and 64-column lines all occur once a key has been through a web form or a JSON string); the base64 is.
const PEM_BLOCK = /^\s*-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----\s*$/;
const ANY_PEM_LABEL = /-----BEGIN ([A-Z0-9 ]+)-----/;

function fail(message: string): PublicKeyCheck {
  return { ok: false, message };
}

/** Checks a PEM public key from a participant and says which kind it is. Never throws. */
export function parseParticipantPublicKey(pem: string): PublicKeyCheck {
  if (typeof pem !== 'string' || pem.trim() === '') return fail(REQUIREMENT);
  if (Buffer.byteLength(pem, 'utf8') > MAX_PUBLIC_KEY_PEM_BYTES) {
    return fail(`publicKey must be at most ${MAX_PUBLIC_KEY_PEM_BYTES / 1024} KiB`);
  }

  const block = PEM_BLOCK.exec(pem);
  if (!block) {
    const label = ANY_PEM_LABEL.exec(pem)?.[1];
    if (label?.includes('PRIVATE')) return fail('publicKey must be a public key, not a private key');
    if (label === 'CERTIFICATE') return fail(`${REQUIREMENT}, not a certificate`);
    return fail(REQUIREMENT);
  }

  const base64 = block[1]!.replace(/\s+/g, '');
  const der = Buffer.from(base64, 'base64');
  // Buffer's decoder skips junk and stray padding; re-encoding catches a body that is not clean base64.
  if (der.length === 0 || der.toString('base64') !== base64) return fail(REQUIREMENT);

  let key: KeyObject;
  try {
    key = createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    return fail(REQUIREMENT);
  }
  if (!key.export({ type: 'spki', format: 'der' }).equals(der)) return fail(REQUIREMENT);

  switch (key.asymmetricKeyType) {
    case 'x25519':
      return { ok: true, kind: 'X25519' };
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'prime256v1') return { ok: true, kind: 'P-256' };
      return fail(`${REQUIREMENT}; the EC curve ${curve ?? '(explicit parameters)'} is not supported`);
    }
    case 'rsa': {
      const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
      if (bits < MIN_RSA_BITS) return fail(`${REQUIREMENT}; this RSA key has only ${bits} bits`);
      return { ok: true, kind: 'RSA', bits };
    }
    default:
      return fail(`${REQUIREMENT}; ${key.asymmetricKeyType ?? 'this'} keys are not supported`);
  }
}

/**
 * A short, stable name of a public key for people to compare (e-mails, the audit): `SHA256:`
 * and the base64 of the SHA-256 of its SubjectPublicKeyInfo DER. A key that does not parse is
 * named by the hash of its text.
 */
export function keyFingerprint(pem: string): string {
  let der: Buffer;
  try {
    der = createPublicKey(pem).export({ type: 'spki', format: 'der' });
  } catch {
    der = Buffer.from(pem, 'utf8');
  }
  return `SHA256:${createHash('sha256').update(der).digest('base64').replace(/=+$/, '')}`;
}
