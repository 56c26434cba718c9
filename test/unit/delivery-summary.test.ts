/** The `delivery` summary of every message owed to a counterparty (SPEC §17): pure rules. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type MessageSummary, summarise } from '../../src/deliveries/summary.js';

const m = (event: string, state: MessageSummary['state'], attempts = 1): MessageSummary => ({
  event,
  state,
  attempts,
  lastError: state === 'failed' || state === 'retrying' ? 'http-5xx' : null,
  nextAttemptAt: state === 'retrying' ? '2026-11-27T10:00:00.000Z' : null,
  deliveredAt: state === 'delivered' ? '2026-11-27T09:00:00.000Z' : null,
});

describe('delivery summary', () => {
  it('is the worst message: failed > retrying > pending > delivered', () => {
    const cases: [MessageSummary[], string, string | null][] = [
      [[m('received', 'delivered')], 'delivered', 'received'],
      [[m('received', 'delivered'), m('confirmed-data', 'pending', 0)], 'pending', 'confirmed-data'],
      [[m('received', 'delivered'), m('confirmed-data', 'retrying')], 'retrying', 'confirmed-data'],
      [[m('received', 'failed', 4), m('cancelled', 'retrying')], 'failed', 'received'],
      [[m('received', 'retrying'), m('cancelled', 'pending', 0)], 'retrying', 'received'],
    ];
    for (const [messages, state, event] of cases) {
      const s = summarise(messages);
      assert.deepEqual([s.state, s.event], [state, event], JSON.stringify(messages));
      assert.deepEqual(s.messages, messages, 'every message, in order');
    }
  });

  it('names the latest of equally bad messages, with its attempts, error and next attempt', () => {
    const s = summarise([
      m('received', 'delivered'),
      m('confirmed-data', 'delivered'),
      m('tx-hash', 'delivered'),
    ]);
    assert.equal(s.event, 'tx-hash');
    const r = summarise([m('received', 'retrying', 2), m('tx-hash', 'retrying', 3)]);
    assert.deepEqual(
      [r.event, r.attempts, r.lastError, r.nextAttemptAt],
      ['tx-hash', 3, 'http-5xx', '2026-11-27T10:00:00.000Z'],
    );
  });

  it('leaves withdrawn messages out of the state but keeps them as evidence', () => {
    const withdrawn = m('received', 'withdrawn', 2);
    const s = summarise([withdrawn]);
    assert.deepEqual([s.state, s.event, s.attempts], ['not-applicable', null, 0]);
    assert.deepEqual(s.messages, [withdrawn]);
    const mixed = summarise([m('received', 'delivered'), m('confirmed-data', 'withdrawn')]);
    assert.equal(mixed.state, 'delivered');
    assert.equal(mixed.event, 'received');
  });

  it('is not-applicable with no message at all', () => {
    assert.deepEqual(summarise([]), {
      state: 'not-applicable',
      event: null,
      attempts: 0,
      lastError: null,
      nextAttemptAt: null,
      messages: [],
    });
  });
});
