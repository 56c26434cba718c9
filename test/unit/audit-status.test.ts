/**
 * The kept verified state of the audit chain (src/audit/status.ts), with a clock and walks the
 * test controls: at most one walk per interval however many ask, a stale result answered at once
 * while the next walk runs, failures of that walk logged and retried, and the operator's walk
 * replacing what is kept unless a newer walk already did.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GENESIS } from '../../src/audit/chain.js';
import { ChainStatusCache } from '../../src/audit/status.js';
import type { VerifyResult } from '../../src/audit/verify.js';

const MINUTE = 60_000;

/** Walks that finish when the test says, each answering `rows` = its number. */
function controlledWalks() {
  const pending: { resolve: (r: VerifyResult) => void; reject: (e: unknown) => void }[] = [];
  let started = 0;
  const walk = () => {
    started++;
    return new Promise<VerifyResult>((resolve, reject) => pending.push({ resolve, reject }));
  };
  const result = (n: number, ok = true): VerifyResult => ({
    ok,
    rows: n,
    head: { seq: n, hash: GENESIS },
    ...(ok
      ? {}
      : { broken: { seq: n + 1, reason: `row seq ${n + 1}: hash does not match its content (changed?)` } }),
  });
  return {
    walk,
    started: () => started,
    /** Ends the oldest walk still running, or the `which`-th of them. */
    finish: (n: number, ok = true, which = 0) => pending.splice(which, 1)[0]!.resolve(result(n, ok)),
    fail: (err: unknown) => pending.shift()!.reject(err),
  };
}

/** Lets the cache's promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the audit chain’s kept verified state', () => {
  it('walks once for concurrent first requests and not again within the interval', async () => {
    const walks = controlledWalks();
    let now = Date.UTC(2026, 0, 1);
    const cache = new ChainStatusCache(walks.walk, { maxAgeMs: 5 * MINUTE, now: () => now });
    const first = Promise.all([cache.current(), cache.current(), cache.current()]);
    await settle();
    assert.equal(walks.started(), 1);
    walks.finish(7);
    const answers = await first;
    for (const a of answers) {
      assert.deepEqual(a, {
        ok: true,
        rows: 7,
        head: { seq: 7, hash: GENESIS },
        checkedAt: '2026-01-01T00:00:00.000Z',
        refreshAfter: '2026-01-01T00:05:00.000Z',
      });
    }
    now += 5 * MINUTE - 1;
    assert.equal((await cache.current()).rows, 7);
    assert.equal(walks.started(), 1, 'no walk within the interval');
  });

  it('answers a stale result at once and starts one walk for it, whose result comes next', async () => {
    const walks = controlledWalks();
    let now = Date.UTC(2026, 0, 1);
    const cache = new ChainStatusCache(walks.walk, { maxAgeMs: 5 * MINUTE, now: () => now });
    const first = cache.current();
    walks.finish(3);
    await first;
    now += 5 * MINUTE;
    const stale = await Promise.all([cache.current(), cache.current()]);
    assert.deepEqual(
      stale.map((s) => [s.rows, s.checkedAt]),
      [
        [3, '2026-01-01T00:00:00.000Z'],
        [3, '2026-01-01T00:00:00.000Z'],
      ],
    );
    assert.equal(walks.started(), 2, 'one walk for both stale requests');
    walks.finish(9, false);
    await settle();
    const fresh = await cache.current();
    assert.equal(walks.started(), 2);
    assert.deepEqual(
      [fresh.ok, fresh.rows, fresh.broken?.seq, fresh.checkedAt],
      [false, 9, 10, '2026-01-01T00:05:00.000Z'],
    );
  });

  it('logs a failed background walk, keeps the last result and tries again on the next request', async () => {
    const walks = controlledWalks();
    const errors: unknown[] = [];
    let now = Date.UTC(2026, 0, 1);
    const cache = new ChainStatusCache(walks.walk, {
      maxAgeMs: MINUTE,
      now: () => now,
      onBackgroundError: (err) => errors.push(err),
    });
    const first = cache.current();
    walks.finish(1);
    await first;
    now += MINUTE;
    await cache.current();
    walks.fail(new Error('connection lost'));
    await settle();
    assert.deepEqual(
      errors.map((e) => (e as Error).message),
      ['connection lost'],
    );
    assert.equal((await cache.current()).rows, 1, 'the last result stays');
    assert.equal(walks.started(), 3, 'the request after the failure started a new walk');
  });

  it('fails the very first request when its walk fails, and walks again for the next one', async () => {
    const walks = controlledWalks();
    const cache = new ChainStatusCache(walks.walk);
    const first = cache.current();
    walks.fail(new Error('database down'));
    await assert.rejects(first, /database down/);
    const second = cache.current();
    walks.finish(2);
    assert.equal((await second).rows, 2);
  });

  it('lets the operator’s walk replace the kept result, unless a walk that began later did', async () => {
    const walks = controlledWalks();
    let now = Date.UTC(2026, 0, 1);
    const cache = new ChainStatusCache(walks.walk, { maxAgeMs: 5 * MINUTE, now: () => now });
    const first = cache.current();
    walks.finish(1);
    await first;

    now += MINUTE;
    const operator = cache.verifyNow();
    walks.finish(4, false);
    assert.equal((await operator).ok, false);
    const seen = await cache.current();
    assert.deepEqual([seen.ok, seen.rows, seen.checkedAt], [false, 4, '2026-01-01T00:01:00.000Z']);
    assert.equal(walks.started(), 2, 'within the interval of the operator’s walk: no new walk');

    now += MINUTE;
    const older = cache.verifyNow(); // begins at 00:02
    now += MINUTE;
    const newer = cache.verifyNow(); // begins at 00:03
    walks.finish(6, true, 1); // the newer one ends first…
    await newer;
    walks.finish(5); // …and the older one's result, about an earlier head, is not kept
    assert.equal((await older).rows, 5, 'the operator still gets the walk they asked for');
    const kept = await cache.current();
    assert.deepEqual([kept.ok, kept.rows, kept.checkedAt], [true, 6, '2026-01-01T00:03:00.000Z']);
  });
});
