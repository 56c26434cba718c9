import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { takeRandom } from '../../src/crypto/random.js';

describe('pooled random bytes', () => {
  it('hands out each byte once: many takes, across pool refills, never repeat', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const b = takeRandom(12);
      assert.equal(b.length, 12);
      seen.add(b.toString('hex'));
    }
    assert.equal(seen.size, 5000);
    const whole = takeRandom(4096);
    assert.equal(whole.length, 4096);
    assert.ok(whole.some((byte) => byte !== 0));
    assert.notDeepEqual(takeRandom(32), takeRandom(32));
  });

  it('returns buffers of their own (a zeroed data key does not touch the next one)', () => {
    const key = takeRandom(32);
    const next = takeRandom(32);
    const copy = Buffer.from(next);
    key.fill(0);
    assert.deepEqual(next, copy);
    assert.equal(key.buffer === next.buffer, false);
  });

  it('refuses sizes it cannot serve', () => {
    assert.equal(takeRandom(0).length, 0);
    assert.throws(() => takeRandom(4097), RangeError);
    assert.throws(() => takeRandom(-1), RangeError);
    assert.throws(() => takeRandom(1.5), RangeError);
  });
});
