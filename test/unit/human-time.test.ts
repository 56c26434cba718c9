import assert from 'node:assert/strict';
import { it } from 'node:test';
import { humanTime } from '../../src/text/times.js';

it('writes a time as day, month, year and minute in UTC, with the exact ISO value beside it', () => {
  assert.equal(humanTime('2026-11-27T11:01:41.123Z'), '27 Nov 2026, 11:01 UTC (2026-11-27T11:01:41.123Z)');
  assert.equal(
    humanTime(new Date(Date.UTC(2027, 0, 3, 4, 5, 6))),
    '3 Jan 2027, 04:05 UTC (2027-01-03T04:05:06.000Z)',
  );
});

it('places a time given with an offset in UTC, whatever the zone of the process', () => {
  assert.equal(humanTime('2026-11-28T00:01:41+13:00'), '27 Nov 2026, 11:01 UTC (2026-11-27T11:01:41.000Z)');
  assert.equal(humanTime('2026-12-31T23:59:59.999Z'), '31 Dec 2026, 23:59 UTC (2026-12-31T23:59:59.999Z)');
});

it('returns a value that is not a time as it was, never "Invalid Date"', () => {
  assert.equal(humanTime('soon'), 'soon');
  assert.equal(humanTime(''), '');
});
