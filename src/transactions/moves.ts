/**
 * The steps every command on a transaction takes: ask the state machine, move the row if it is
 * still in the state it was read in (a conditional update: of two racing commands exactly one
 * wins), append the history row; and the rule that events go only to organizations with an endpoint.
 */
import { type Actor, recordAudit } from '../audit/store.js';
import type { Queryable } from '../db/database.js';
import { findOrganization } from '../directory/store.js';
import { AppError } from '../http/errors.js';
import { type State, type TxEvent, transition } from './state-machine.js';
import * as store from './store.js';

/** The state `event` leads to from the transaction's state, or 409 INVALID_STATE. */
export function next(t: store.TransactionRecord, event: TxEvent): State {
  const r = transition(t.status, event, t.flow);
  if (!r.ok) throw new AppError('INVALID_STATE', r.reason);
  return r.to;
}

/** Moves the transaction if it is still in the state it was read in, and appends the history row. */
export async function move(
  tx: Queryable,
  t: store.TransactionRecord,
  to: State,
  who: { actorId: string | null; actor: string; sealedReason?: Buffer; event?: string },
  extra: { sealedReason?: Buffer; txHash?: string; destination?: string } = {},
): Promise<void> {
  if (!(await store.updateStatus(tx, t.ref, t.status, to, extra))) {
    throw new AppError(
      'INVALID_STATE',
      `The transaction changed state concurrently; it is no longer ${t.status}.`,
    );
  }
  await store.appendHistory(tx, { ref: t.ref, status: to, ...who });
}

/**
 * The member that an inbound TRP transfer is for answers it (approve or decline), perhaps from its
 * `received` handler, before the hub has recorded that webhook's delivery: the answer proves it
 * was told, so the transfer becomes RECEIVER_NOTIFIED first, the state those answers move from
 * (SPEC §16). Any other transfer is returned as it is.
 */
export async function toldByAnswer(
  tx: Queryable,
  t: store.TransactionRecord,
): Promise<store.TransactionRecord> {
  return t.flow === 'TRP_IN' ? notifiedFirst(tx, t, 'hub') : t;
}

/**
 * NEW → RECEIVER_NOTIFIED by `actor`, for an answer that proves the beneficiary was told before
 * the hub recorded it; a transaction in any other state is returned as it is.
 */
export async function notifiedFirst(
  tx: Queryable,
  t: store.TransactionRecord,
  actor: string,
): Promise<store.TransactionRecord> {
  const notified = transition(t.status, 'notified', t.flow);
  if (!notified.ok) return t;
  await move(tx, t, notified.to, { actorId: null, actor });
  return { ...t, status: notified.to };
}

/** Events go only to an organization with a travelEndpoint at that moment (SPEC §8). */
export async function hasEndpoint(q: Queryable, orgId: string | null): Promise<boolean> {
  return orgId !== null && Boolean((await findOrganization(q, orgId))?.travelEndpoint);
}

/**
 * A person's action on a transaction (SPEC §17): audited as `user:<id>` with the organization it
 * acted for, in the command's own database transaction. A key's actions are the organization's and
 * are told by the transaction's history, so `by` is undefined for them and nothing is written.
 */
export async function auditPerson(
  tx: Queryable,
  by: Actor | undefined,
  action: string,
  ref: string,
  organizationId: string,
): Promise<void> {
  if (by === undefined) return;
  await recordAudit(tx, {
    actor: by,
    action,
    subjectType: 'transaction',
    subjectId: ref,
    details: { organizationId },
  });
}
