/**
 * Erasure of a transaction's personal data (SPEC §14), by the retention sweep once the last state
 * change is older than HUB_RETENTION, or at once by an operator. In one database transaction: the
 * sealed blobs emptied, `piiErasedAt` set, the Idempotency-Key answers about the transaction
 * deleted (an answer may quote a reason, and a replay would bring back what was erased), and an
 * audit row. The metadata and the state history stay. Erasing twice changes nothing.
 *
 * The sweep runs in every process that runs a delivery worker, at least every 10 s (a Periodic,
 * deliveries/periodic.ts), in batches, each transaction in its own database transaction; rows
 * another sweeper holds are skipped (SKIP LOCKED) and erased rows are no longer due, so each is
 * erased exactly once.
 */
import { type Actor, recordAudit } from '../audit/store.js';
import { openPii, type SealingKeys } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import type { WorkerLog } from '../deliveries/types.js';
import { AppError, notFound } from '../http/errors.js';
import { context as answerContext } from '../idempotency/index.js';
import { deleteEntries } from '../transactions/name-store.js';
import * as store from './store.js';

const BATCH = 100;
const MAX_BATCHES = 50;

export interface Erased {
  transactionRef: string;
  piiErasedAt: string;
}

export class Erasure {
  constructor(
    private readonly db: Database,
    private readonly keys: SealingKeys,
  ) {}

  /** An operator's erasure of one transaction, now. */
  eraseNow(ref: string, actor: Actor, reason: string): Promise<Erased> {
    return this.db.transaction(async (tx) => {
      const t = await store.lockTransaction(tx, ref);
      if (!t) throw notFound('The transaction');
      if (t.piiErasedAt !== null) return { transactionRef: t.ref, piiErasedAt: t.piiErasedAt };
      return this.erase(tx, t, actor, { cause: 'operator', reason });
    });
  }

  /**
   * Erases what is due, batch after batch until one comes back short (a backlog, such as when
   * retention is first turned on), at most MAX_BATCHES.
   */
  async eraseDue(retentionMs: number, log: WorkerLog): Promise<void> {
    let n = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const erased = await this.sweep(retentionMs, BATCH);
      n += erased;
      if (erased < BATCH) break;
    }
    if (n > 0) log.info({ erased: n }, 'retention: personal data erased');
  }

  /** Erases up to `limit` transactions that are due, each in its own database transaction; how many. */
  private async sweep(retentionMs: number, limit: number): Promise<number> {
    let n = 0;
    for (; n < limit; n++) {
      const done = await this.db.transaction(async (tx) => {
        const [t] = await store.dueForErasure(tx, retentionMs, 1);
        if (!t) return false;
        await this.erase(tx, t, 'hub', {
          cause: 'retention',
          retentionSeconds: Math.round(retentionMs / 1000),
        });
        return true;
      });
      if (!done) break;
    }
    return n;
  }

  private async erase(
    tx: Queryable,
    t: store.ErasureSubject,
    actor: Actor,
    details: Record<string, unknown>,
  ): Promise<Erased> {
    const piiErasedAt = await store.eraseSealed(tx, t.ref);
    // The customer-name index goes with the names it was made of.
    await deleteEntries(tx, t.ref);
    for (const answer of await store.answersOf(tx, t.parties, t.ref)) {
      if (this.mentions(answer, t.ref)) await store.deleteAnswer(tx, answer.organizationId, answer.key);
    }
    await recordAudit(tx, {
      actor,
      action: 'transaction.pii_erased',
      subjectType: 'transaction',
      subjectId: t.ref,
      details,
    });
    return { transactionRef: t.ref, piiErasedAt };
  }

  /** Whether a stored answer is about the transaction (it names its reference). */
  private mentions(answer: store.AnswerRecord, ref: string): boolean {
    if (answer.response?.includes(ref)) return true;
    if (answer.sealed === null) return false;
    try {
      return openPii(this.keys, answerContext(answer.organizationId, answer.key), answer.sealed).includes(
        ref,
      );
    } catch (err) {
      // An answer no configured key opens cannot be checked: keep the erasure from half-happening.
      throw new AppError(
        'INTERNAL',
        'An Idempotency-Key answer could not be opened to check it.',
        undefined,
        {
          cause: err,
        },
      );
    }
  }
}
