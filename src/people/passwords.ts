/**
 * Password hashing with Node's built-in scrypt (RFC 7914), no native add-on to build.
 *
 * Parameters: N = 2^15, r = 8, p = 3, a 16-byte random salt, a 32-byte output. That is one of the
 * settings OWASP's Password Storage Cheat Sheet lists as equivalent to its scrypt minimum
 * (N = 2^17, r = 8, p = 1): 32 MiB of memory per hash (128·N·r bytes) and three passes, well under
 * a second on a server core, and it runs on libuv's thread pool, not on the event loop.
 *
 * A hash is stored as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64, no padding), so stronger
 * parameters can come later while old hashes still verify. Verification compares in constant
 * time. `verifyNothing` spends the same work when there is no account to check against, so an
 * unknown e-mail takes as long to refuse as a wrong password.
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { validationFailed } from '../http/errors.js';

export const PASSWORD_PARAMS = { logN: 15, r: 8, p: 3, saltBytes: 16, keyBytes: 32 } as const;

/** At least this many characters (SPEC §17); at most so many, so nobody hashes a megabyte. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/** Refuses a password of the wrong length (400), naming the field it came in. */
export function checkPassword(password: string, path = '/password'): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw validationFailed([{ path, message: `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }]);
  }
}

function derive(password: string, salt: Buffer, logN: number, r: number, p: number, keyBytes: number) {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 };
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyBytes, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const { logN, r, p, saltBytes, keyBytes } = PASSWORD_PARAMS;
  const salt = randomBytes(saltBytes);
  const key = await derive(password, salt, logN, r, p, keyBytes);
  return ['scrypt', logN, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const ENCODED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{32,})$/;

/** True when `password` is the one `encoded` was made from; false for anything else, a malformed hash included. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const m = ENCODED.exec(encoded);
  if (!m) return false;
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  const key = await derive(password, Buffer.from(m[4]!, 'base64url'), logN, r, p, expected.length);
  return timingSafeEqual(key, expected);
}

let dummy: Promise<string> | undefined;

/** The work of one verification, against no account: always false. */
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(18).toString('base64'));
  await verifyPassword(password, await dummy);
  return false;
}
