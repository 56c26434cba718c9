import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatTimeIn } from '../../ui/src/format.js';

const AT = '2026-11-27T11:01:41.123Z';

it('writes a time in UTC with its zone, whatever the locale', () => {
  assert.equal(formatTimeIn(AT, 'utc'), '27 Nov 2026, 11:01:41 UTC');
  assert.equal(
    formatTimeIn(AT, 'utc', { locale: 'en-US', localZone: 'America/New_York' }),
    '27 Nov 2026, 11:01:41 UTC',
  );
  assert.equal(formatTimeIn('2026-01-05T00:00:09Z', 'utc'), '5 Jan 2026, 00:00:09 UTC');
});

it('writes a local time with the zone’s abbreviation or offset', () => {
  assert.equal(
    formatTimeIn(AT, 'local', { locale: 'en-US', localZone: 'America/New_York' }),
    'Nov 27, 2026, 06:01:41 AM EST',
  );
  assert.match(
    formatTimeIn(AT, 'local', { locale: 'en-GB', localZone: 'Asia/Singapore' }),
    /^27 Nov 2026, 19:01:41 (SGT|GMT\+8)$/,
  );
  assert.match(
    formatTimeIn(AT, 'local', { locale: 'en-GB', localZone: 'Asia/Kolkata' }),
    /16:31:41 (IST|GMT\+5:30)$/,
  );
});

it('writes a clock time alone, still with its zone', () => {
  assert.equal(formatTimeIn(AT, 'utc', { date: false }), '11:01:41 UTC');
  assert.equal(
    formatTimeIn(AT, 'local', { locale: 'en-GB', localZone: 'Europe/Berlin', date: false }),
    '12:01:41 CET',
  );
});

it('gives back what it cannot read', () => {
  assert.equal(formatTimeIn('not a time', 'utc'), 'not a time');
});
