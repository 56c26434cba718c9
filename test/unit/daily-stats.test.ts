import assert from 'node:assert/strict';
import { it } from 'node:test';
import { zeroFilledDays } from '../../src/transactions/overview.js';

it('fills every UTC day of the window, oldest first, ending with the day now falls in', () => {
  const now = new Date('2026-03-01T00:30:00Z');
  const stats = zeroFilledDays(now, 3, []);
  assert.deepEqual(
    stats.days.map((d) => d.date),
    ['2026-02-27', '2026-02-28', '2026-03-01'],
  );
  assert.equal(stats.from, '2026-02-27');
  assert.equal(stats.to, '2026-03-01');
  for (const d of stats.days) {
    assert.equal(d.total, 0);
    assert.deepEqual(Object.values(d.byStatus), [0, 0, 0, 0, 0, 0]);
    assert.deepEqual(Object.values(d.byProtocol), [0, 0, 0, 0]);
  }
});

it('adds counts to their day by status and protocol, and leaves out days outside the window', () => {
  const now = new Date('2026-11-28T23:59:59Z');
  const stats = zeroFilledDays(now, 2, [
    { day: '2026-11-28', status: 'NEW', protocol: 'MAIN', n: 2 },
    { day: '2026-11-28', status: 'CANCELLED', protocol: 'NOTIFY', n: 1 },
    { day: '2026-11-27', status: 'NEW', protocol: 'MAIN', n: 4 },
    { day: '2026-11-20', status: 'NEW', protocol: 'MAIN', n: 9 },
  ]);
  const [yesterday, today] = stats.days;
  assert.equal(today!.total, 3);
  assert.equal(today!.byStatus.NEW, 2);
  assert.equal(today!.byStatus.CANCELLED, 1);
  assert.equal(today!.byProtocol.MAIN, 2);
  assert.equal(today!.byProtocol.NOTIFY, 1);
  assert.equal(yesterday!.total, 4);
  assert.equal(
    stats.days.reduce((n, d) => n + d.total, 0),
    7,
  );
});
