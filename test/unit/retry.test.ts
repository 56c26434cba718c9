import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_RETRY_SCHEDULE,
  maxAttempts,
  nextAttemptDelay,
  parseRetryAfter,
  parseRetrySchedule,
  retryAfterClamp,
} from '../../src/deliveries/retry.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('parseRetrySchedule', () => {
  it('parses the default schedule', () => {
    assert.deepEqual(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE), [
      5 * S,
      30 * S,
      2 * M,
      10 * M,
      30 * M,
      H,
      3 * H,
      6 * H,
      12 * H,
      24 * H,
    ]);
  });

  it('parses milliseconds and tolerates whitespace', () => {
    assert.deepEqual(parseRetrySchedule(' 200ms , 200ms,1 s,\t2m '), [200, 200, S, 2 * M]);
  });

  it('accepts fractional values that round to whole milliseconds', () => {
    assert.deepEqual(parseRetrySchedule('1.5s,0.5h'), [1500, 30 * M]);
  });

  it('rejects malformed lists with a message naming the setting', () => {
    for (const bad of [
      '',
      '   ',
      '5',
      '5x',
      's',
      '5s,',
      ',5s',
      '5s,,30s',
      '5s;30s',
      '-5s',
      '5 s 3',
      '1d',
      '5S',
    ]) {
      assert.throws(
        () => parseRetrySchedule(bad),
        /HUB_RETRY_SCHEDULE must be a comma-separated list of durations such as 5s,30s,2m \(units ms, s, m, h\)/,
        `"${bad}" should be rejected`,
      );
    }
  });

  it('rejects zero and sub-millisecond waits', () => {
    assert.throws(() => parseRetrySchedule('5s,0s'), /greater than zero/);
    assert.throws(() => parseRetrySchedule('0.1ms'), /greater than zero/);
  });

  it('rejects absurdly long or long lists', () => {
    assert.throws(() => parseRetrySchedule('169h'), /at most 168h/);
    assert.throws(() => parseRetrySchedule(Array(101).fill('1s').join(',')), /at most 100/);
  });
});

describe('nextAttemptDelay', () => {
  const schedule = [5 * S, 30 * S, 2 * M];

  it('sends the first attempt immediately', () => {
    assert.equal(nextAttemptDelay(schedule, 0), 0);
  });

  it('waits schedule[n-1] after the n-th failure (random 0.5 = no jitter)', () => {
    const mid = () => 0.5;
    assert.equal(nextAttemptDelay(schedule, 1, mid), 5 * S);
    assert.equal(nextAttemptDelay(schedule, 2, mid), 30 * S);
    assert.equal(nextAttemptDelay(schedule, 3, mid), 2 * M);
  });

  it('keeps jitter within ±20 %', () => {
    assert.equal(
      nextAttemptDelay(schedule, 2, () => 0),
      24 * S,
    );
    assert.equal(
      nextAttemptDelay(schedule, 2, () => 0.999999),
      36 * S,
    );
    for (let i = 0; i < 1000; i++) {
      const wait = nextAttemptDelay(schedule, 1)!;
      assert.ok(wait >= 4 * S && wait <= 6 * S, `${wait} out of range`);
    }
  });

  it('returns null once the schedule is used up', () => {
    assert.equal(maxAttempts(schedule), 4);
    assert.equal(nextAttemptDelay(schedule, 4), null);
    assert.equal(nextAttemptDelay(schedule, 50), null);
    assert.equal(nextAttemptDelay([], 1), null);
  });

  it('refuses negative or fractional attempt counts', () => {
    assert.throws(() => nextAttemptDelay(schedule, -1), RangeError);
    assert.throws(() => nextAttemptDelay(schedule, 1.5), RangeError);
  });

  it('never returns zero for a tiny step', () => {
    assert.equal(
      nextAttemptDelay([1], 1, () => 0),
      1,
    );
  });
});

describe('retryAfterClamp', () => {
  const now = Date.UTC(2025, 5, 1, 12, 0, 0);

  it('keeps the plan without a usable Retry-After', () => {
    for (const value of [undefined, '', 'soon', '-5', '1.5', 'Tue, 99 Foo 2025 00:00:00 GMT', '2025-06-01']) {
      assert.equal(retryAfterClamp(value, 30 * S, now), 30 * S, String(value));
    }
  });

  it('never retries sooner than planned', () => {
    assert.equal(retryAfterClamp('1', 30 * S, now), 30 * S);
    assert.equal(retryAfterClamp('0', 30 * S, now), 30 * S);
  });

  it('honours a longer Retry-After in seconds, up to an hour', () => {
    assert.equal(retryAfterClamp('120', 30 * S, now), 120 * S);
    assert.equal(retryAfterClamp('7200', 30 * S, now), H);
    assert.equal(retryAfterClamp('99999999999999999999999', 30 * S, now), H);
  });

  it('keeps a plan longer than an hour as the ceiling', () => {
    assert.equal(retryAfterClamp('86400', 6 * H, now), 6 * H);
    assert.equal(retryAfterClamp('60', 6 * H, now), 6 * H);
  });

  it('reads an HTTP date relative to now', () => {
    assert.equal(retryAfterClamp('Sun, 01 Jun 2025 12:05:00 GMT', 30 * S, now), 5 * M);
    assert.equal(retryAfterClamp('Sunday, 01-Jun-25 12:05:00 GMT', 30 * S, now), 5 * M);
    assert.equal(retryAfterClamp('Sun, 01 Jun 2025 11:00:00 GMT', 30 * S, now), 30 * S);
    assert.equal(retryAfterClamp('Mon, 02 Jun 2025 12:00:00 GMT', 30 * S, now), H);
  });

  it('parses Retry-After into milliseconds', () => {
    assert.equal(parseRetryAfter(' 10 ', now), 10 * S);
    assert.equal(parseRetryAfter('Sun, 01 Jun 2025 12:00:10 GMT', now), 10 * S);
    assert.equal(parseRetryAfter('nope', now), null);
  });
});
