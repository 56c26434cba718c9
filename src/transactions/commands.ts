/**
 * The commands of the parties on an existing transaction (SPEC §6, §7): confirm, decline, share
 * the hash (lifecycle.ts has cancel, claim and expiry). Each is
 * one database transaction that locks the row if the caller is a party, asks the state machine,
 * changes the row conditionally, appends history and queues its messages in the outbox: all or
 * nothing. Of two racing commands exactly one moves the transaction; the other sees 409.
 */
import { type Actor, recordAudit } from '../audit/store.js';
import type { SealingKeys } from '../crypto/envelope.js';
import type { Queryable } from '../db/database.js';
import { type OutboxMessage, trp, webhook } from '../deliveries/events.js';
import { enqueue } from '../deliveries/outbox.js';
import { AppError } from '../http/errors.js';
import type { Idempotency, IdempotencyKey } from '../idempotency/index.js';
import type { DeclineCategory } from './decline.js';
import { auditPerson, hasEndpoint, move, next, toldByAnswer } from './moves.js';
import { lockAsParty } from './party.js';
import { sealReason } from './reasons.js';
import * as store from './store.js';

export class TransactionCommands {
  constructor(
    private readonly idempotency: Idempotency,
    private readonly masterKey: SealingKeys,
  ) {}

  confirm(
    orgId: string,
    body: { transactionRef: string; txHash?: string },
    idem?: IdempotencyKey,
    by?: Actor,
  ) {
    return this.idempotency.run(orgId, idem, async (tx) => {
      const t = await lockAsParty(tx, orgId, body.transactionRef);
      if (orgId !== t.originatorId) throw new AppError('FORBIDDEN', 'Only the originator may confirm.');
      const to = next(t, 'confirm');
      // MAIN, or a NOTIFY transaction its beneficiary claimed (the state machine allows no other).
      const protocol = t.protocol as 'MAIN' | 'NOTIFY';
      if (body.txHash !== undefined && t.txHash !== null && t.txHash !== body.txHash) {
        throw new AppError('ALREADY_EXISTS', 'A different txHash is already set for this transaction.');
      }
      await move(tx, t, to, { actorId: orgId, actor: t.originatorDid }, { txHash: body.txHash });
      await auditPerson(tx, by, 'transaction.confirmed', t.ref, orgId);
      const setsTxHash = body.txHash !== undefined && t.txHash === null;
      if (setsTxHash) await auditTxHash(tx, orgId, t.ref, by);
      const messages: OutboxMessage[] = [];
      if (t.beneficiaryId && (await hasEndpoint(tx, t.beneficiaryId))) {
        messages.push(
          webhook('confirmed-data', t.beneficiaryId, t.ref, {
            transactionRef: t.ref,
            protocol,
            status: 'CONFIRMED',
            originatorVASPdid: t.originatorDid,
            beneficiaryVASPdid: t.beneficiaryDid,
          }),
        );
        if (setsTxHash && body.txHash !== undefined) {
          messages.push(
            webhook('tx-hash', t.beneficiaryId, t.ref, { transactionRef: t.ref, txHash: body.txHash }),
          );
        }
      }
      await enqueue(tx, messages);
      return { transactionRef: t.ref, status: 'CONFIRMED' as const, protocol };
    });
  }

  decline(
    orgId: string,
    body: { transactionRef: string; reason: { category: DeclineCategory; description: string } },
    idem?: IdempotencyKey,
    by?: Actor,
  ) {
    const reason = { category: body.reason.category, description: body.reason.description };
    return this.idempotency.run(orgId, idem, async (tx) => {
      const locked = await lockAsParty(tx, orgId, body.transactionRef);
      if (orgId !== locked.beneficiaryId)
        throw new AppError('FORBIDDEN', 'Only the beneficiary may decline.');
      const t = await toldByAnswer(tx, locked);
      const to = next(t, 'decline');
      const sealedReason = sealReason(this.masterKey, t.ref, reason);
      await move(
        tx,
        t,
        to,
        { actorId: orgId, actor: t.beneficiaryDid ?? orgId, sealedReason },
        { sealedReason },
      );
      await auditPerson(tx, by, 'transaction.declined', t.ref, orgId);
      if (t.flow === 'TRP_IN') {
        // The originator is a TRP peer: it hears of the decline as TRP's rejection.
        await enqueue(tx, [trp('trp-resolution', t.ref, { transactionRef: t.ref, decision: 'rejected' })]);
      } else if (t.originatorId !== null && (await hasEndpoint(tx, t.originatorId))) {
        await enqueue(tx, [
          webhook('declined', t.originatorId, t.ref, {
            transactionRef: t.ref,
            status: 'DECLINED',
            beneficiaryVASPdid: t.beneficiaryDid,
          }),
        ]);
      }
      return {
        transactionRef: t.ref,
        status: 'DECLINED' as const,
        reason,
        message: 'The transaction was declined and cannot be processed again; the originator is informed.',
      };
    });
  }

  shareTxHash(
    orgId: string,
    body: { transactionRef: string; txHash: string },
    idem?: IdempotencyKey,
    by?: Actor,
  ) {
    return this.idempotency.run(orgId, idem, async (tx) => {
      const t = await lockAsParty(tx, orgId, body.transactionRef);
      if (orgId !== t.originatorId) throw new AppError('FORBIDDEN', 'Only the originator may set txHash.');
      next(t, 'share_tx_hash');
      const result = { transactionRef: t.ref, txHash: body.txHash, status: t.status };
      if (t.txHash === body.txHash) return result;
      if (t.txHash !== null || !(await store.setTxHash(tx, t.ref, body.txHash))) {
        throw new AppError('ALREADY_EXISTS', 'A different txHash is already set for this transaction.');
      }
      await auditTxHash(tx, orgId, t.ref, by);
      if (t.flow === 'TRP_OUT') {
        // The beneficiary is a TRP peer: it hears of the hash as TRP's confirmation, once it approved
        // (before that, the approval's handling sends it).
        if (t.status === 'CONFIRMED') {
          await enqueue(tx, [trp('trp-confirmation', t.ref, { transactionRef: t.ref, txid: body.txHash })]);
        }
      } else if (t.beneficiaryId && (await hasEndpoint(tx, t.beneficiaryId))) {
        await enqueue(tx, [
          webhook('tx-hash', t.beneficiaryId, t.ref, { transactionRef: t.ref, txHash: body.txHash }),
        ]);
      }
      return result;
    });
  }
}

/** By the originator, after initiation: through confirm or the tx-hash command. */
async function auditTxHash(tx: Queryable, orgId: string, ref: string, by?: Actor): Promise<void> {
  await recordAudit(tx, {
    actor: by ?? `org:${orgId}`,
    action: 'transaction.tx_hash_set',
    subjectType: 'transaction',
    subjectId: ref,
    ...(by ? { details: { organizationId: orgId } } : {}),
  });
}
