/**
 * The record stage: turns attempt results into database state, together. A result waits up to
 * 20 ms for others (or until 200 are waiting), and results that finish while the recording
 * transactions run wait for the next one, so under load one transaction records many deliveries
 * (a few statements whatever their number) instead of one each. On PostgreSQL two transactions
 * record at a time (every delivery is in one batch, and each locks its batch's transactions in
 * `ref` order before it writes a delivery row, so they never wait on each other in a cycle).
 *
 * Invariants:
 * - A success is DELIVERED, its attempt row and its consequences for the transaction
 *   (hooks.deliveryOutcomes, which locks the transactions first) in the same database
 *   transaction, all or nothing.
 * - If a batch cannot commit (a hook failed), each of its results is recorded on its own, so one
 *   bad delivery cannot hold up the others; a success whose consequences still fail is recorded as
 *   a failed attempt and sent again (same message id) rather than lost, even past the schedule's
 *   end: the receiver answered, so it never becomes FAILED on that account; nor does a send the
 *   hub's shutdown cut off.
 * - A failure plans the next attempt (schedule ±20 %, Retry-After honoured but clamped) or FAILED.
 * - Metrics and logs count only results whose lease still held; a late result of a worker that
 *   lost its lease changes nothing but its attempt row.
 */
import type { Database, Queryable } from '../db/database.js';
import type { DeliveryHooks, OutcomeStep } from './hooks.js';
import type { AttemptOutcome, DeliveryMetrics } from './metrics.js';
import * as store from './outcome-store.js';
import { nextAttemptDelay, retryAfterClamp } from './retry.js';
import type { LeasedMessage, SendResult, WorkerLog } from './types.js';

interface Pending {
  d: LeasedMessage;
  result: SendResult;
  /**
   * The hub's failure, not the receiver's: delivered but its consequences could not be committed,
   * or cut off by the hub's shutdown. Retried even past the schedule's end, never FAILED for it.
   */
  hubSide?: boolean;
  done: (err?: unknown) => void;
  /** performance.now() when the result was queued. */
  at: number;
}

/**
 * A batch goes when it holds MAX_BATCH results or its oldest has waited FILL_WAIT_MS. A row costs
 * less in a large batch (the statements' fixed cost is shared), and without the wait a batch
 * would hold only what finished during the one before.
 */
const MAX_BATCH = 200;
const FILL_WAIT_MS = 20;

export class ResultRecorder {
  private queue: Pending[] = [];
  private flushing = 0;
  /**
   * Recording transactions at a time. PGlite runs one at a time whatever this says, and a second
   * recorder there only splits what finished into two smaller batches (a row costs more in a small
   * batch); a server overlaps two, so the next batch does not wait for the round trips of the one before.
   */
  private readonly maxCommits: number;

  constructor(
    private readonly o: {
      db: Database;
      hooks: DeliveryHooks;
      metrics: DeliveryMetrics;
      log: WorkerLog;
      retrySchedule: readonly number[];
    },
  ) {
    this.maxCommits = o.db.kind === 'pglite' ? 1 : 2;
  }

  /** Resolves once the result is committed (or rejects when the database cannot be written). */
  record(d: LeasedMessage, result: SendResult, hubSide = false): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        d,
        result,
        hubSide,
        done: (err) => (err === undefined ? resolve() : reject(err)),
        at: performance.now(),
      });
      if (this.flushing < this.maxCommits) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing++;
    try {
      while (this.queue.length > 0) {
        // Let pending I/O (other sends finishing) run first: PGlite executes a whole transaction
        // without giving the event loop a turn, so without this every batch would hold one result.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.queue.length === 0) break; // the other recorder took them
        const wait =
          this.queue.length >= MAX_BATCH ? 0 : this.queue[0]!.at + FILL_WAIT_MS - performance.now();
        if (wait > 0) {
          await new Promise((resolve) => setTimeout(resolve, wait));
          continue;
        }
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await this.commit(batch);
        } catch {
          for (const item of batch) await this.commitAlone(item);
        }
      }
    } finally {
      this.flushing--;
    }
  }

  /** One item on its own; a success whose consequences fail becomes a failed attempt. */
  private async commitAlone(item: Pending): Promise<void> {
    try {
      await this.commit([item]);
      return;
    } catch (err) {
      if (!item.result.ok) return item.done(err);
      // The receiver has it, but its consequences could not be committed: send it again later.
      this.o.log.error({ err, deliveryId: item.d.id }, 'delivery worker: could not record a delivery');
    }
    const retry: Pending = {
      ...item,
      hubSide: true,
      result: { ...item.result, ok: false, error: 'delivered, but the outcome could not be recorded' },
    };
    try {
      await this.commit([retry]);
    } catch (err) {
      item.done(err);
    }
  }

  /** Records the batch in one transaction; settles every item when it commits. */
  private async commit(batch: Pending[]): Promise<void> {
    const outcomes = await this.o.db.transaction(async (tx) => {
      // Their transactions first (hooks.ts says why), then the delivery rows.
      const consequences = await this.o.hooks.deliveryOutcomes(
        tx,
        batch.map((i) => i.d.message),
      );
      const delivered = await this.recordSuccesses(
        tx,
        batch.filter((i) => i.result.ok),
        consequences,
      );
      const failed = await this.recordFailures(
        tx,
        batch.filter((i) => !i.result.ok),
      );
      return new Map([...delivered, ...failed]);
    });
    for (const item of batch) {
      const outcome = outcomes.get(item.d.id);
      if (outcome) this.report(item, outcome);
      item.done();
    }
  }

  private async recordSuccesses(
    tx: Queryable,
    items: Pending[],
    consequences: OutcomeStep,
  ): Promise<[string, AttemptOutcome][]> {
    const held = await store.markDeliveredMany(
      tx,
      items.map((i) => ({ d: i.d, attempt: { ...attemptOf(i.result), error: null } })),
    );
    const answers = new Map(items.map((i) => [i.d.id, i.result.answer]));
    await consequences(
      held.map(({ d, withdrawn }) => ({ message: d.message, answer: answers.get(d.id), withdrawn })),
    );
    return held.map(({ d }) => [d.id, 'delivered']);
  }

  private async recordFailures(tx: Queryable, items: Pending[]): Promise<[string, AttemptOutcome][]> {
    const schedule = [...this.o.retrySchedule];
    const planned = items.map((i) => {
      const wait =
        nextAttemptDelay(schedule, i.d.attempts + 1) ??
        (i.hubSide ? nextAttemptDelay(schedule, schedule.length) : null);
      return {
        d: i.d,
        attempt: { ...attemptOf(i.result), error: i.result.error ?? 'failed' },
        retryInMs: wait === null ? null : retryAfterClamp(i.result.retryAfter, wait),
      };
    });
    const statuses = await store.markFailedMany(tx, planned);
    return [...statuses].map(([id, status]) => [id, status === 'FAILED' ? 'failed' : 'retrying']);
  }

  private report({ d, result }: Pending, outcome: AttemptOutcome): void {
    const { event, channel } = d.message;
    this.o.metrics.attempt({ event, channel, outcome }, result.latencyMs / 1000);
    if (outcome === 'delivered') return;
    const fields = {
      deliveryId: d.id,
      messageId: d.messageId,
      event,
      attempts: d.attempts + 1,
      error: result.error,
    };
    if (outcome === 'failed') this.o.log.warn(fields, 'delivery FAILED after its last attempt');
    else this.o.log.debug(fields, 'delivery attempt failed; retrying');
  }
}

function attemptOf(r: SendResult): { statusCode: number | null; latencyMs: number } {
  return { statusCode: r.statusCode, latencyMs: r.latencyMs };
}
