/**
 * What delivered messages do to their transactions (SPEC §7): an acknowledged `received` webhook
 * or an accepted NOTIFY e-mail notifies the receiver; BASIC then confirms at once, since its data
 * went with `received`. Called by the delivery worker inside the database transaction that marks
 * the messages DELIVERED, so the moves commit with them. Set-based (the worker records in
 * batches): the transactions are locked and moved together, each move decided by the state
 * machine. The transactions are locked before the delivery rows are written (hooks.ts says why).
 * A repeated delivery (after a crash) finds its transaction already moved and changes nothing.
 */
import type { Queryable } from '../db/database.js';
import type { OutboxMessage } from '../deliveries/events.js';
import type { OutcomeStep } from '../deliveries/hooks.js';
import { enqueue } from '../deliveries/outbox.js';
import { beneficiaryHearsOfEnd } from './lifecycle.js';
import { type State, transition } from './state-machine.js';
import * as store from './store.js';

/** Does delivering this message tell the beneficiary about its transaction? */
function notifies(m: OutboxMessage): boolean {
  return (
    (m.channel === 'webhook' && m.event === 'received') || (m.channel === 'email' && m.event === 'notify')
  );
}

/**
 * Locks the transactions of a batch being recorded (hooks.ts: before any delivery row) and returns
 * the step that moves those whose notifying message was delivered.
 */
export async function lockForOutcomes(tx: Queryable, batch: readonly OutboxMessage[]): Promise<OutcomeStep> {
  const refs = [...new Set(batch.flatMap((m) => (m.transactionRef === null ? [] : [m.transactionRef])))];
  const locked = refs.length === 0 ? [] : await store.lockStates(tx, refs);
  return async (delivered) => {
    const told = new Set(
      delivered
        .map((d) => d.message)
        .filter(notifies)
        .map((m) => m.transactionRef),
    );
    const finals: { ref: string; from: State; to: State }[] = [];
    const steps: { ref: string; status: State }[] = [];
    for (const t of locked) {
      if (!told.has(t.ref)) continue;
      const notified = transition(t.status, 'notified', t.flow);
      if (!notified.ok) continue;
      steps.push({ ref: t.ref, status: notified.to });
      let to = notified.to;
      const confirmed = transition(to, 'data_delivered', t.flow);
      if (confirmed.ok) {
        to = confirmed.to;
        steps.push({ ref: t.ref, status: to });
      }
      finals.push({ ref: t.ref, from: t.status, to });
    }
    if (finals.length > 0) await store.applyHubMoves(tx, finals, steps);
    // A message that told the beneficiary, delivered although its transaction ended while it was
    // in flight: the beneficiary hears of the end after all.
    const ended = new Map(
      locked.filter((t) => t.status === 'CANCELLED' || t.status === 'EXPIRED').map((t) => [t.ref, t.status]),
    );
    const late: OutboxMessage[] = [];
    for (const { message: m, withdrawn } of delivered) {
      if (!withdrawn || !notifies(m) || m.transactionRef === null) continue;
      const end = ended.get(m.transactionRef);
      const t = end && (await store.findTransaction(tx, m.transactionRef));
      if (t)
        late.push(...(await beneficiaryHearsOfEnd(tx, t, end === 'CANCELLED' ? 'cancelled' : 'expired')));
    }
    if (late.length > 0) await enqueue(tx, late);
  };
}
