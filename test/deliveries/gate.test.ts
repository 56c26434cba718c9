/**
 * The worker's per-recipient gate (fairness.ts) with a clock of its own: rows waiting for a send
 * slot, the recipient's pace that bounds them, and what the claims ask for.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ClaimPlanner, RecipientGate } from '../../src/deliveries/fairness.js';

function gate(max = 2, waiting = { maxWaiting: 10, maxWaitMs: 3000 }) {
  const clock = { now: 0 };
  const g = new RecipientGate<string>(max, [1000, 5000], 5, () => clock.now, waiting);
  return { clock, g };
}

/** `n` sends to `id` that start and end with `ok`. */
function answered(g: RecipientGate<string>, id: string, n: number, ok = true) {
  for (let i = 0; i < n; i++) {
    g.started(id);
    g.finished(id, ok);
  }
}

it('keeps rows beyond the in-flight limit waiting and starts them in order as sends end', () => {
  const { g } = gate(2);
  g.started('a');
  g.started('a');
  assert.equal(g.admits('a'), false);
  assert.equal(g.hold('a', 'r1'), true);
  assert.equal(g.hold('a', 'r2'), true);
  assert.deepEqual(g.next('a'), { start: [], expired: [] }, 'no slot yet');
  g.finished('a', true);
  assert.deepEqual(g.next('a'), { start: ['r1'], expired: [] });
  g.finished('a', true);
  assert.deepEqual(g.next('a'), { start: ['r2'], expired: [] });
  assert.equal(g.waitingCount(), 0);
});

it('lets a recipient hold as many waiting rows as it answered in about the last second', () => {
  const { g, clock } = gate(2, { maxWaiting: 100, maxWaitMs: 3000 });
  answered(g, 'a', 7);
  clock.now = 1500;
  assert.equal(g.cap('a'), 2 + 7, 'the limit plus its pace');
  clock.now = 2500;
  assert.equal(g.cap('a'), 2, 'nothing answered for over a second: no waiting rows');
  answered(g, 'b', 500);
  clock.now = 4500;
  assert.equal(g.cap('b'), 2, 'two windows later the pace is forgotten');
});

it('gives a recipient whose sends hang only its in-flight limit once its first second is over', () => {
  const { g, clock } = gate(2, { maxWaiting: 100, maxWaitMs: 3000 });
  g.started('h');
  g.started('h');
  assert.equal(g.headroom('h'), 2, 'a new recipient may hold the limit again as waiting rows');
  clock.now = 1000;
  assert.equal(g.headroom('h'), 0);
  assert.equal(g.hold('h', 'r'), false, 'no room: the row goes back to the outbox');
  assert.equal(g.claimLimits().get('h'), 0, 'left out of claims');
});

it('hands back rows that waited too long, and says when the next one will have', () => {
  const { g, clock } = gate(1, { maxWaiting: 10, maxWaitMs: 3000 });
  answered(g, 'a', 5);
  g.started('a');
  g.hold('a', 'r1');
  clock.now = 1000;
  g.hold('a', 'r2');
  assert.deepEqual(g.expire(), { expired: [], nextInMs: 2000 });
  clock.now = 3000;
  assert.deepEqual(g.expire(), { expired: ['r1'], nextInMs: 1000 });
  clock.now = 4000;
  g.finished('a', true);
  assert.deepEqual(g.next('a'), { start: [], expired: ['r2'] });
});

it('takes back the waiting rows of a recipient whose circuit opens, and then admits one probe', () => {
  const { g, clock } = gate(10);
  for (let i = 0; i < 5; i++) g.started('a');
  g.hold('a', 'r1');
  for (let i = 0; i < 5; i++) g.finished('a', false);
  assert.equal(g.paused('a'), true);
  assert.deepEqual(g.drop('a'), ['r1']);
  assert.equal(g.cap('a'), 0);
  clock.now = 1000;
  assert.equal(g.paused('a'), false);
  assert.equal(g.cap('a'), 1, 'half-open: one probe');
});

it('refills a recipient left out only once it has room for a batch, and looks past it for other work', () => {
  const { g, clock } = gate(2, { maxWaiting: 600, maxWaitMs: 3000 });
  const planner = new ClaimPlanner(g, 5);
  answered(g, 'a', 100);
  clock.now = 1000;
  const first = planner.shape(true, 20)!;
  assert.equal(first.limit, 20);
  assert.deepEqual(first.exclude, []);
  const took = Array.from({ length: first.caps.recipients.get('a')! }, () => 'a');
  for (let i = 0; i < 2; i++) g.started('a');
  for (let i = 2; i < took.length; i++) g.hold('a', `r${i}`);
  assert.equal(planner.took(first, took), false, 'it filled a cap: more of it may be due');
  const look = planner.shape(true, 20)!;
  assert.deepEqual(look.exclude, ['a'], 'the next look leaves it out, to see what else is due');
  assert.equal(planner.took(look, []), true, 'nothing else due');
  assert.equal(planner.shape(false, 20), undefined, 'no room for a batch of it yet');
  for (let i = 0; i < 5; i++) {
    g.finished('a', true);
    g.next('a');
  }
  assert.equal(planner.wants('a'), true);
  const refill = planner.shape(false, 20);
  assert.deepEqual([...(refill?.only ?? [])], [['a', g.headroom('a')]], 'a refill of it alone');
  assert.equal(planner.took(refill!, ['a']), false);
  assert.equal(planner.wants('a'), false, 'it got less than it asked for: nothing more of it is due');
});
