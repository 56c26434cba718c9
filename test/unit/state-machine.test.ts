import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENTS, PROTOCOLS, STATES, transition } from '../../src/transactions/state-machine.js';

/** The legal moves of SPEC §7, written out independently of the module's table. */
const LEGAL: Record<string, string> = {
  'NEW notified MAIN': 'RECEIVER_NOTIFIED',
  'NEW notified BASIC': 'RECEIVER_NOTIFIED',
  'NEW notified NOTIFY': 'RECEIVER_NOTIFIED',
  'RECEIVER_NOTIFIED data_delivered BASIC': 'CONFIRMED',
  'RECEIVER_NOTIFIED confirm MAIN': 'CONFIRMED',
  'CONFIRMED decline MAIN': 'DECLINED',
  'CONFIRMED decline BASIC': 'DECLINED',
  'CONFIRMED decline NOTIFY': 'DECLINED',
  'NEW share_tx_hash MAIN': 'NEW',
  'NEW share_tx_hash BASIC': 'NEW',
  'NEW share_tx_hash NOTIFY': 'NEW',
  'RECEIVER_NOTIFIED share_tx_hash MAIN': 'RECEIVER_NOTIFIED',
  'RECEIVER_NOTIFIED share_tx_hash BASIC': 'RECEIVER_NOTIFIED',
  'RECEIVER_NOTIFIED share_tx_hash NOTIFY': 'RECEIVER_NOTIFIED',
  'CONFIRMED share_tx_hash MAIN': 'CONFIRMED',
  'CONFIRMED share_tx_hash BASIC': 'CONFIRMED',
  'CONFIRMED share_tx_hash NOTIFY': 'CONFIRMED',
};

describe('transaction state machine', () => {
  for (const from of STATES) {
    for (const event of EVENTS) {
      for (const protocol of PROTOCOLS) {
        const key = `${from} ${event} ${protocol}`;
        const expected = LEGAL[key];
        it(expected ? `allows ${key} → ${expected}` : `refuses ${key}`, () => {
          const r = transition(from, event, protocol);
          if (expected) {
            assert.deepEqual(r, { ok: true, to: expected });
          } else {
            assert.equal(r.ok, false);
            if (!r.ok) {
              assert.equal(r.from, from);
              assert.match(r.reason, new RegExp(from), 'the message names the current state');
            }
          }
        });
      }
    }
  }

  it('has no way out of DECLINED', () => {
    for (const event of EVENTS)
      for (const p of PROTOCOLS) assert.equal(transition('DECLINED', event, p).ok, false);
  });
});
