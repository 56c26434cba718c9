/**
 * What delivered messages do to their transactions (SPEC §7): an acknowledged `received` webhook
 * or an accepted NOTIFY e-mail notifies the receiver; BASIC then confirms at once, since its data
 * went with `received`. Called by the delivery worker inside the database transaction that marks
 * the messages DELIVERED, so the moves commit with them. Set-based (the worker records in
 * batches): the transactions are locked and moved together, each move decided by the state
 * machine. A repeated delivery (after a crash) finds its transaction already moved and changes nothing.
 */
import type { Queryable } from '../db/database.js';
import type { OutboxMessage } from '../deliveries/events.js';
import type { Delivered } from '../deliveries/hooks.js';
import { type State, transition } from './state-machine.js';
import * as store from './store.js';

/** Does delivering this message tell the beneficiary about its transaction? */
function notifies(m: OutboxMessage): boolean {
  return (
    (m.channel === 'webhook' && m.event === 'received') || (m.channel === 'email' && m.event === 'notify')
  );
}

export async function applyDeliveryOutcomes(tx: Queryable, delivered: readonly Delivered[]): Promise<void> {
  const refs = [
    ...new Set(
      delivered
        .map((d) => d.message)
        .filter(notifies)
        .flatMap((m) => (m.transactionRef === null ? [] : [m.transactionRef])),
    ),
  ];
  if (refs.length === 0) return;
  const finals: { ref: string; from: State; to: State }[] = [];
  const steps: { ref: string; status: State }[] = [];
  for (const t of await store.lockStates(tx, refs)) {
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
}
