import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RecipientGate } from '../../src/deliveries/fairness.js';

function gate(max = 2, pauses = [1000, 5000]) {
  const clock = { now: 0 };
  return { clock, g: new RecipientGate(max, pauses, 5, () => clock.now) };
}

it('admits at most the limit of sends in flight to one recipient, and others independently', () => {
  const { g } = gate(2);
  g.started('a');
  g.started('a');
  assert.equal(g.admits('a'), false);
  assert.equal(g.admits('b'), true);
  assert.deepEqual(g.blocked(), ['a']);
  g.finished('a', true);
  assert.equal(g.admits('a'), true);
  assert.deepEqual(g.blocked(), []);
});

it('opens the circuit after five failures in a row, probes once after the pause, and closes on success', () => {
  const { g, clock } = gate(10);
  for (let i = 0; i < 4; i++) {
    g.started('a');
    g.finished('a', false);
  }
  assert.equal(g.admits('a'), true, 'four failures leave it closed');
  g.started('a');
  g.finished('a', false);
  assert.equal(g.admits('a'), false, 'open after the fifth');
  assert.equal(g.openCircuits(), 1);
  clock.now = 999;
  assert.equal(g.admits('a'), false);
  clock.now = 1000;
  assert.equal(g.admits('a'), true, 'half-open: one probe');
  g.started('a');
  assert.equal(g.admits('a'), false, 'only one probe at a time');
  g.finished('a', true);
  assert.equal(g.admits('a'), true);
  g.started('a');
  g.started('a');
  assert.equal(g.admits('a'), true, 'closed again: the full limit');
});

it('opens for the next, longer pause when the probe fails, and keeps the last pause after that', () => {
  const { g, clock } = gate(10, [1000, 5000]);
  for (let i = 0; i < 5; i++) {
    g.started('a');
    g.finished('a', false);
  }
  clock.now = 1000;
  g.started('a');
  g.finished('a', false);
  clock.now = 5999;
  assert.equal(g.admits('a'), false);
  clock.now = 6000;
  assert.equal(g.admits('a'), true);
  g.started('a');
  g.finished('a', false);
  clock.now = 10_999;
  assert.equal(g.admits('a'), false);
  clock.now = 11_000;
  assert.equal(g.admits('a'), true);
});

it('does not reopen for failures of sends that were already in flight when it opened', () => {
  const { g, clock } = gate(10, [1000, 60_000]);
  for (let i = 0; i < 8; i++) g.started('a');
  for (let i = 0; i < 8; i++) g.finished('a', false);
  clock.now = 1000;
  assert.equal(g.admits('a'), true, 'the stragglers did not push the pause to the next step');
});

it('gives a slot back for a send released unsent, without counting a failure', () => {
  const { g } = gate(1);
  for (let i = 0; i < 10; i++) {
    g.started('a');
    g.released('a');
  }
  assert.equal(g.admits('a'), true);
  assert.equal(g.openCircuits(), 0);
});
