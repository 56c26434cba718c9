/**
 * How TRP transfers move (SPEC §16): what a TRP peer's answers do to a transaction, and the
 * member's approval of an inbound one. The TRP bridge (src/trp/) speaks the protocol and calls
 * these inside its database transactions; states, history rows and messages stay this domain's.
 * Each move is idempotent for a repeated answer: a transaction already past the state the answer
 * moves from is left as it is.
 */

import type { Actor } from '../audit/store.js';
import type { SealingKeys } from '../crypto/envelope.js';
import type { Queryable } from '../db/database.js';
import { type OutboxMessage, trp, webhook } from '../deliveries/events.js';
import { enqueue, withdraw } from '../deliveries/outbox.js';
import { AppError, notFound } from '../http/errors.js';
import type { Idempotency, IdempotencyKey } from '../idempotency/index.js';
import { auditPerson, hasEndpoint, move, next, notifiedFirst, toldByAnswer } from './moves.js';
import { lockAsParty } from './party.js';
import { sealReason } from './reasons.js';
import { transition } from './state-machine.js';
import * as store from './store.js';

/**
 * A peer's resolution: not decided yet, approved with the address to pay, or rejected (with its
 * text; `refused`: the peer refused the inquiry itself, with this HTTP status).
 */
export type PeerResolution =
  | { kind: 'pending' }
  | { kind: 'approved'; address: string }
  | { kind: 'rejected'; reason: string | null; refused?: number };

export class TrpMoves {
  constructor(
    private readonly idempotency: Idempotency,
    private readonly masterKey: SealingKeys,
  ) {}

  /** The peer took our inquiry (outbound): the beneficiary was told; and it may have decided at once. */
  async inquiryAnswered(tx: Queryable, ref: string, resolution: PeerResolution): Promise<void> {
    const t = await this.notified(tx, await this.lock(tx, ref));
    if (resolution.kind !== 'pending') await this.resolve(tx, t, resolution);
  }

  /**
   * The peer posted its decision to our callback (outbound). It may come before the worker has
   * recorded the inquiry's answer: a decision proves the inquiry arrived, so it notifies first.
   */
  async resolved(tx: Queryable, ref: string, resolution: Exclude<PeerResolution, { kind: 'pending' }>) {
    await this.resolve(tx, await this.notified(tx, await this.lock(tx, ref)), resolution);
  }

  /** NEW → RECEIVER_NOTIFIED when the peer has the inquiry; any other state stays. */
  private notified(tx: Queryable, t: store.TransactionRecord): Promise<store.TransactionRecord> {
    return notifiedFirst(tx, t, t.beneficiaryDid ?? 'trp');
  }

  /** The peer posted its confirmation (inbound): the hash of the transfer, or that it called it off. */
  async confirmed(
    tx: Queryable,
    ref: string,
    c: { txid: string } | { canceled: string | null },
  ): Promise<void> {
    const t = await this.lock(tx, ref);
    if ('txid' in c) {
      if (t.txHash !== null || !transition(t.status, 'share_tx_hash', t.flow).ok) return;
      if (!(await store.setTxHash(tx, ref, c.txid))) return;
      if (t.beneficiaryId && (await hasEndpoint(tx, t.beneficiaryId))) {
        await enqueue(tx, [
          webhook('tx-hash', t.beneficiaryId, ref, { transactionRef: ref, txHash: c.txid }),
        ]);
      }
      return;
    }
    const cancelled = transition(t.status, 'peer_cancelled', t.flow);
    if (!cancelled.ok) return;
    const sealedReason = c.canceled ? sealReason(this.masterKey, ref, c.canceled) : undefined;
    await move(
      tx,
      t,
      cancelled.to,
      { actorId: null, actor: t.originatorDid, sealedReason },
      { sealedReason },
    );
    await withdraw(tx, ref);
    const told = t.status === 'RECEIVER_NOTIFIED' || t.status === 'CONFIRMED';
    if (told && t.beneficiaryId && (await hasEndpoint(tx, t.beneficiaryId))) {
      await enqueue(tx, [
        webhook('cancelled', t.beneficiaryId, ref, { transactionRef: ref, status: 'CANCELLED' }),
      ]);
    }
  }

  /** The member approves an inbound TRP transfer with the address to pay (SPEC §16). */
  approve(
    orgId: string,
    body: { transactionRef: string; address: string },
    idem?: IdempotencyKey,
    by?: Actor,
  ) {
    return this.idempotency.run(orgId, idem, async (tx) => {
      const locked = await lockAsParty(tx, orgId, body.transactionRef);
      if (orgId !== locked.beneficiaryId)
        throw new AppError('FORBIDDEN', 'Only the beneficiary may approve.');
      const t = await toldByAnswer(tx, locked);
      const to = next(t, 'approve');
      const actor = t.beneficiaryDid ?? orgId;
      await move(tx, t, to, { actorId: orgId, actor }, { destination: body.address });
      await auditPerson(tx, by, 'transaction.approved', t.ref, orgId);
      await enqueue(tx, [trp('trp-resolution', t.ref, { transactionRef: t.ref, decision: 'approved' })]);
      return {
        transactionRef: t.ref,
        status: 'CONFIRMED' as const,
        protocol: 'TRP' as const,
        address: body.address,
      };
    });
  }

  private async resolve(
    tx: Queryable,
    t: store.TransactionRecord,
    resolution: Exclude<PeerResolution, { kind: 'pending' }>,
  ): Promise<void> {
    const messages: OutboxMessage[] = [];
    if ((t.status === 'CANCELLED' || t.status === 'EXPIRED') && resolution.kind === 'approved') {
      // Called off (or expired) before the peer decided: its approval is answered with TRP's cancellation.
      messages.push(trp('trp-confirmation', t.ref, { transactionRef: t.ref, canceled: true }));
    } else if (resolution.kind === 'approved') {
      const approved = transition(t.status, 'peer_approved', t.flow);
      if (!approved.ok) return;
      const actor = t.beneficiaryDid ?? 'trp';
      await move(tx, t, approved.to, { actorId: null, actor }, { destination: resolution.address });
      if (t.originatorId !== null && (await hasEndpoint(tx, t.originatorId))) {
        messages.push(
          webhook('approved', t.originatorId, t.ref, {
            transactionRef: t.ref,
            status: 'CONFIRMED',
            address: resolution.address,
          }),
        );
      }
      if (t.txHash !== null)
        messages.push(trp('trp-confirmation', t.ref, { transactionRef: t.ref, txid: t.txHash }));
    } else {
      const rejected = transition(t.status, 'peer_rejected', t.flow);
      if (!rejected.ok) return;
      const reason =
        resolution.refused === undefined
          ? {
              category: 'COMPLIANCE_CHECK_FAILED' as const,
              description: resolution.reason || 'Rejected by the beneficiary VASP, without a reason.',
            }
          : {
              category: 'TECHNICAL_ISSUE' as const,
              description: `The beneficiary VASP refused the inquiry (HTTP ${resolution.refused}).`,
            };
      const sealedReason = sealReason(this.masterKey, t.ref, reason);
      const actor = t.beneficiaryDid ?? 'trp';
      await move(tx, t, rejected.to, { actorId: null, actor, sealedReason }, { sealedReason });
      if (t.originatorId !== null && (await hasEndpoint(tx, t.originatorId))) {
        messages.push(
          webhook('declined', t.originatorId, t.ref, {
            transactionRef: t.ref,
            status: 'DECLINED',
            beneficiaryVASPdid: t.beneficiaryDid,
          }),
        );
      }
    }
    await enqueue(tx, messages);
  }

  /**
   * Takes the transaction's row. Every writer takes it before any other row of the transfer (the
   * delivery recorder does, hooks.ts), so a callback that is recorded while the worker records the
   * same transfer's delivery waits instead of deadlocking.
   */
  async lock(tx: Queryable, ref: string): Promise<store.TransactionRecord> {
    const t = await store.findTransaction(tx, ref, true);
    if (!t) throw notFound('The transaction');
    return t;
  }
}
