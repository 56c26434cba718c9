import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EVENTS,
  FINAL_STATES,
  FLOWS,
  flowOf,
  STATES,
  transition,
} from '../../src/transactions/state-machine.js';

/**
 * The legal moves of SPEC §7, §11, §12 and §16, written out independently of the module's table:
 * `from event flows → to`. Everything not listed is refused.
 */
const RULES: [string, string, string, string][] = [
  ['NEW', 'notified', 'MAIN BASIC NOTIFY TRP_IN TRP_OUT', 'RECEIVER_NOTIFIED'],
  ['NEW', 'attach', 'NOTIFY', 'RECEIVER_NOTIFIED'],
  ['NEW', 'share_tx_hash', '*', 'NEW'],
  ['NEW', 'cancel', 'MAIN BASIC NOTIFY NOTIFY_CLAIMED TRP_OUT', 'CANCELLED'],
  ['NEW', 'peer_cancelled', 'TRP_IN', 'CANCELLED'],
  ['NEW', 'expire', '*', 'EXPIRED'],
  ['RECEIVER_NOTIFIED', 'data_delivered', 'BASIC', 'CONFIRMED'],
  ['RECEIVER_NOTIFIED', 'confirm', 'MAIN NOTIFY_CLAIMED', 'CONFIRMED'],
  ['RECEIVER_NOTIFIED', 'approve', 'TRP_IN', 'CONFIRMED'],
  ['RECEIVER_NOTIFIED', 'peer_approved', 'TRP_OUT', 'CONFIRMED'],
  ['RECEIVER_NOTIFIED', 'decline', 'TRP_IN', 'DECLINED'],
  ['RECEIVER_NOTIFIED', 'peer_rejected', 'TRP_OUT', 'DECLINED'],
  ['RECEIVER_NOTIFIED', 'attach', 'NOTIFY', 'RECEIVER_NOTIFIED'],
  ['RECEIVER_NOTIFIED', 'share_tx_hash', '*', 'RECEIVER_NOTIFIED'],
  ['RECEIVER_NOTIFIED', 'cancel', 'MAIN BASIC NOTIFY NOTIFY_CLAIMED TRP_OUT', 'CANCELLED'],
  ['RECEIVER_NOTIFIED', 'peer_cancelled', 'TRP_IN', 'CANCELLED'],
  ['RECEIVER_NOTIFIED', 'expire', '*', 'EXPIRED'],
  ['CONFIRMED', 'decline', 'MAIN BASIC NOTIFY_CLAIMED', 'DECLINED'],
  ['CONFIRMED', 'share_tx_hash', '*', 'CONFIRMED'],
  ['CONFIRMED', 'cancel', 'MAIN BASIC NOTIFY NOTIFY_CLAIMED TRP_OUT', 'CANCELLED'],
  ['CONFIRMED', 'peer_cancelled', 'TRP_IN', 'CANCELLED'],
];

const LEGAL = new Map<string, string>();
for (const [from, event, flows, to] of RULES) {
  for (const flow of flows === '*' ? FLOWS : flows.split(' ')) LEGAL.set(`${from} ${event} ${flow}`, to);
}

describe('transaction state machine', () => {
  for (const from of STATES) {
    for (const event of EVENTS) {
      for (const flow of FLOWS) {
        const key = `${from} ${event} ${flow}`;
        const expected = LEGAL.get(key);
        it(expected ? `allows ${key} → ${expected}` : `refuses ${key}`, () => {
          const r = transition(from, event, flow);
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

  it('has no way out of a final state', () => {
    for (const from of FINAL_STATES)
      for (const event of EVENTS) for (const f of FLOWS) assert.equal(transition(from, event, f).ok, false);
  });

  it('names the flow of a transaction from its protocol, claim and direction', () => {
    assert.equal(flowOf({ protocol: 'MAIN', claimed: false, inbound: false }), 'MAIN');
    assert.equal(flowOf({ protocol: 'NOTIFY', claimed: false, inbound: false }), 'NOTIFY');
    assert.equal(flowOf({ protocol: 'NOTIFY', claimed: true, inbound: false }), 'NOTIFY_CLAIMED');
    assert.equal(flowOf({ protocol: 'TRP', claimed: false, inbound: true }), 'TRP_IN');
    assert.equal(flowOf({ protocol: 'TRP', claimed: false, inbound: false }), 'TRP_OUT');
  });
});
