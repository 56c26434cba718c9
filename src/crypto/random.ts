/**
 * Random bytes for the hot path, taken from a pool filled by the CSPRNG a few kilobytes at a
 * time: `randomBytes(n)` costs a call into the crypto binding each time, and an initiation
 * needs four small pieces (a data key, two nonces, a message id). Each pooled byte is handed
 * out once, and the pool's copy is zeroed as it is taken, so a data key lives only in the
 * buffer returned (which its user zeroes after use). Node's `randomUUID` pools the same way.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** `n` (at most 4096) fresh random bytes, in a buffer of their own. */
export function takeRandom(n: number): Buffer {
  if (!Number.isInteger(n) || n < 0 || n > POOL_BYTES) throw new RangeError(`cannot take ${n} random bytes`);
  if (offset + n > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const out = Buffer.allocUnsafeSlow(n);
  pool.copy(out, 0, offset, offset + n);
  pool.fill(0, offset, offset + n);
  offset += n;
  return out;
}
