/**
 * How transactions end or change hands (SPEC §11, §12): the originator cancels, the hub expires
 * what made no progress, and a NOTIFY beneficiary that joined the hub (or was a member already)
 * takes over its transaction, which then follows MAIN. Each is one database transaction with its
 * history row and its messages; messages not sent yet of a transaction that ends are withdrawn.
 */

import type { Actor } from '../audit/store.js';
import type { SealingKeys } from '../crypto/envelope.js';
import type { Queryable } from '../db/database.js';
import { email, type OutboxMessage, trp, webhook } from '../deliveries/events.js';
import { enqueue, withdraw } from '../deliveries/outbox.js';
import { findOrganization } from '../directory/store.js';
import { AppError, notFound } from '../http/errors.js';
import type { Idempotency, IdempotencyKey } from '../idempotency/index.js';
import { auditPerson, hasEndpoint, move, next } from './moves.js';
import { lockAsParty } from './party.js';
import { sealReason } from './reasons.js';
import { FINAL_STATES, type State } from './state-machine.js';
import * as store from './store.js';

/** States in which the beneficiary has been told of the transaction. */
const NOTIFIED: readonly State[] = ['RECEIVER_NOTIFIED', 'CONFIRMED'];

export class Lifecycle {
  constructor(
    private readonly idempotency: Idempotency,
    private readonly masterKey: SealingKeys,
  ) {}

  /** The originator calls a transfer off, before a hash was shared (SPEC §11). */
  cancel(
    orgId: string,
    body: { transactionRef: string; reason?: string },
    idem?: IdempotencyKey,
    by?: Actor,
  ) {
    return this.idempotency.run(orgId, idem, async (tx) => {
      const t = await lockAsParty(tx, orgId, body.transactionRef);
      if (orgId !== t.originatorId) throw new AppError('FORBIDDEN', 'Only the originator may cancel.');
      const to = next(t, 'cancel');
      if (t.txHash !== null) {
        throw new AppError(
          'INVALID_STATE',
          `A txHash was shared: the transfer was broadcast and can no longer be cancelled; the transaction is ${t.status}.`,
        );
      }
      const sealedReason =
        body.reason === undefined ? undefined : sealReason(this.masterKey, t.ref, body.reason);
      await move(tx, t, to, { actorId: orgId, actor: t.originatorDid, sealedReason }, { sealedReason });
      await auditPerson(tx, by, 'transaction.cancelled', t.ref, orgId);
      await withdraw(tx, t.ref);
      await enqueue(tx, await this.tellOfEnd(tx, t, 'cancelled'));
      return { transactionRef: t.ref, status: 'CANCELLED' as const, protocol: t.protocol };
    });
  }

  /** Expires one transaction that made no progress for `olderThanMs`; false when none is left. */
  async expireOne(tx: Queryable, olderThanMs: number): Promise<boolean> {
    const t = await store.lockExpiring(tx, olderThanMs);
    if (!t) return false;
    await move(tx, t, next(t, 'expire'), { actorId: null, actor: 'hub' });
    await withdraw(tx, t.ref);
    await enqueue(tx, await this.tellOfEnd(tx, t, 'expired'));
    return true;
  }

  /**
   * A directory member becomes the beneficiary of a NOTIFY transaction through its claim link
   * (SPEC §12): `received` goes to it, `beneficiary-joined` to the originator.
   */
  async attach(tx: Queryable, ref: string, beneficiaryId: string, { ifOpen = false } = {}): Promise<void> {
    const t = await store.findTransaction(tx, ref, true);
    const org = await findOrganization(tx, beneficiaryId);
    if (!t || !org) throw notFound('The transaction');
    if (ifOpen && FINAL_STATES.includes(t.status)) return;
    // A NOTIFY that named a directory member at initiation can be claimed by that member only.
    if (t.beneficiaryId !== null && t.beneficiaryId !== org.id) throw notFound('The claim link');
    const to = next(t, 'attach');
    if (!(await store.claimBeneficiary(tx, ref, t.status, to, org))) {
      throw new AppError('INVALID_STATE', 'The transaction was claimed or changed state concurrently.');
    }
    await store.appendHistory(tx, {
      ref,
      status: to,
      actorId: org.id,
      actor: org.vaspDid,
      event: 'beneficiary-joined',
    });
    const messages: OutboxMessage[] = [];
    if (org.travelEndpoint) {
      messages.push(
        webhook('received', org.id, ref, {
          transactionRef: ref,
          protocol: t.protocol,
          status: 'RECEIVER_NOTIFIED',
          originatorVASPdid: t.originatorDid,
          beneficiaryVASPdid: org.vaspDid,
          transactionAsset: t.asset,
          transactionAmount: t.amount,
          transactionAssetDecimals: t.assetDecimals,
          ivms101_data: {
            transactionBlockchainInfo: {
              destination: t.destination!, // a NOTIFY transaction always has one
              ...(t.origin === null ? {} : { origin: t.origin }),
            },
          },
        }),
      );
    }
    if (t.originatorId !== null && (await hasEndpoint(tx, t.originatorId))) {
      messages.push(
        webhook('beneficiary-joined', t.originatorId, ref, {
          transactionRef: ref,
          beneficiaryVASPid: org.id,
          beneficiaryVASPdid: org.vaspDid,
        }),
      );
    }
    await enqueue(tx, messages);
  }

  /** What the parties hear of a transaction that ended (`t` as it was before). */
  private async tellOfEnd(
    tx: Queryable,
    t: store.TransactionRecord,
    how: 'cancelled' | 'expired',
  ): Promise<OutboxMessage[]> {
    const messages: OutboxMessage[] = [];
    const notified = NOTIFIED.includes(t.status);
    if (how === 'expired' && t.originatorId !== null && (await hasEndpoint(tx, t.originatorId))) {
      messages.push(webhook('expired', t.originatorId, t.ref, { transactionRef: t.ref, status: 'EXPIRED' }));
    }
    // A TRP peer hears in TRP: an outbound transfer it approved is canceled (a confirmation); an
    // inbound one the member never decided on is rejected.
    if (t.flow === 'TRP_OUT' && how === 'cancelled' && t.status === 'CONFIRMED') {
      messages.push(trp('trp-confirmation', t.ref, { transactionRef: t.ref, canceled: true }));
    }
    if (t.flow === 'TRP_IN' && how === 'expired') {
      messages.push(trp('trp-resolution', t.ref, { transactionRef: t.ref, decision: 'rejected' }));
    }
    if (notified) messages.push(...(await beneficiaryHearsOfEnd(tx, t, how)));
    return messages;
  }
}

/**
 * What a beneficiary that was told of a transaction hears when it ends: `cancelled` or `expired`,
 * and for an announcement that went out to an outside exchange, a short cancellation e-mail.
 * Also queued when the message that told it was delivered after the end (outcomes.ts).
 */
export async function beneficiaryHearsOfEnd(
  tx: Queryable,
  t: store.TransactionRecord,
  how: 'cancelled' | 'expired',
): Promise<OutboxMessage[]> {
  const messages: OutboxMessage[] = [];
  if (t.beneficiaryId && (await hasEndpoint(tx, t.beneficiaryId))) {
    messages.push(
      how === 'cancelled'
        ? webhook('cancelled', t.beneficiaryId, t.ref, { transactionRef: t.ref, status: 'CANCELLED' })
        : webhook('expired', t.beneficiaryId, t.ref, { transactionRef: t.ref, status: 'EXPIRED' }),
    );
  }
  if (how === 'cancelled' && t.flow === 'NOTIFY' && t.notificationEmail && t.originatorId) {
    const originator = await findOrganization(tx, t.originatorId);
    messages.push(
      email('notify-cancelled', t.notificationEmail, t.ref, {
        transactionRef: t.ref,
        transactionAsset: t.asset,
        transactionAmount: t.amount,
        originatorVASPdid: t.originatorDid,
        originatorName: originator?.name ?? t.originatorDid,
      }),
    );
  }
  return messages;
}
