import assert from 'node:assert/strict';
import { it } from 'node:test';
import { claimProgress } from '../../src/claims/progress.js';

const t = (minute: number) => new Date(Date.UTC(2026, 10, 27, 11, minute)).toISOString();

it('is sent until the page is opened, then opened', () => {
  const sent = claimProgress({ sentAt: t(0), openedAt: null, applications: [], attachedAt: null });
  assert.deepEqual(sent, { state: 'sent', at: t(0), steps: [{ state: 'sent', at: t(0) }] });
  const opened = claimProgress({ sentAt: t(0), openedAt: t(2), applications: [], attachedAt: null });
  assert.equal(opened.state, 'opened');
  assert.equal(opened.at, t(2));
});

it('goes through a rejection, a new application and an approval to attached, in order', () => {
  const p = claimProgress({
    sentAt: t(0),
    openedAt: t(1),
    applications: [
      { createdAt: t(9), status: 'approved', decidedAt: t(12) },
      { createdAt: t(2), status: 'rejected', decidedAt: t(5) },
    ],
    attachedAt: t(12),
  });
  assert.deepEqual(
    p.steps.map((s) => s.state),
    ['sent', 'opened', 'applied', 'rejected', 'applied', 'approved', 'attached'],
  );
  assert.deepEqual({ state: p.state, at: p.at }, { state: 'attached', at: t(12) });
});

it('is applied while an application waits, and rejected once the operator says no', () => {
  const base = { sentAt: t(0), openedAt: t(1), attachedAt: null };
  const waiting = claimProgress({
    ...base,
    applications: [{ createdAt: t(2), status: 'pending', decidedAt: null }],
  });
  assert.deepEqual({ state: waiting.state, at: waiting.at }, { state: 'applied', at: t(2) });
  const rejected = claimProgress({
    ...base,
    applications: [{ createdAt: t(2), status: 'rejected', decidedAt: t(4) }],
  });
  assert.deepEqual({ state: rejected.state, at: rejected.at }, { state: 'rejected', at: t(4) });
});

it('is attached when a member attached through the link without an application', () => {
  const p = claimProgress({ sentAt: t(0), openedAt: t(1), applications: [], attachedAt: t(3) });
  assert.deepEqual(
    p.steps.map((s) => s.state),
    ['sent', 'opened', 'attached'],
  );
});
