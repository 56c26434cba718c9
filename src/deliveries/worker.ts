/**
 * The delivery worker: claim → prepare → send → record, for webhooks and NOTIFY e-mails.
 *
 * Invariants:
 * - Claiming (store.claimDue) is one statement with FOR UPDATE SKIP LOCKED that also leases the
 *   rows, so any number of workers in any number of processes share the outbox without taking
 *   the same row twice. Nothing in memory matters for correctness: a crashed worker's leases
 *   run out and another worker (or this one, restarted) sends again with the same message id.
 * - Sending happens outside any database transaction. Recording a result is one transaction:
 *   success marks the row DELIVERED, writes the attempt and lets the transactions domain move the
 *   transaction (hooks.deliveryOutcome), all or nothing; a failure writes the attempt and plans
 *   the next one (retry schedule ±20 %, a receiver's Retry-After honoured but clamped) or FAILED.
 * - The loop never spins: it wakes on NOTIFY (new work, or a message whose predecessor was just
 *   delivered), when one of its sends ends, or at the next due time (at most `pollMs` away).
 * - stop() claims nothing more, gives back rows not yet sent, and waits (bounded) for sends in flight.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';
import type { NotifyMailer } from './email.js';
import type { DeliveryHooks } from './hooks.js';
import type { DeliveryMetrics } from './metrics.js';
import { OUTBOX_CHANNEL } from './outbox.js';
import type { WebhookPreparer } from './prepare.js';
import { nextAttemptDelay, retryAfterClamp } from './retry.js';
import type { SendResult, WebhookSender } from './sender.js';
import * as store from './store.js';

export type WorkerLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error' | 'debug'>;

export interface WorkerOptions {
  db: Database;
  preparer: WebhookPreparer;
  sender: WebhookSender;
  /** Without a mailer (no SMTP_URL) e-mails stay in the outbox, unclaimed. */
  mailer?: NotifyMailer;
  hooks: DeliveryHooks;
  metrics: DeliveryMetrics;
  log: WorkerLog;
  retrySchedule: readonly number[];
  /** Sends in flight at most. */
  concurrency?: number;
  /** Rows claimed per statement. */
  batchSize?: number;
  /** How long a claim holds a row; well above the 10 s send timeout. */
  leaseMs?: number;
  /** Longest sleep without a wake-up (catches other processes' retries without NOTIFY). */
  pollMs?: number;
  /** How long stop() waits for sends in flight. */
  stopTimeoutMs?: number;
}

export class DeliveryWorker {
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly stopTimeoutMs: number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private running: Promise<void> | undefined;
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private woken = false;
  private wakeSleeper: (() => void) | undefined;

  constructor(private readonly o: WorkerOptions) {
    this.concurrency = o.concurrency ?? 50;
    this.batchSize = o.batchSize ?? 20;
    this.leaseMs = o.leaseMs ?? 30_000;
    this.pollMs = o.pollMs ?? 1000;
    this.stopTimeoutMs = o.stopTimeoutMs ?? 10_000;
  }

  get isRunning(): boolean {
    return this.running !== undefined && !this.stopping;
  }

  async start(): Promise<void> {
    if (this.running) return;
    try {
      this.unlisten = await this.o.db.listen(OUTBOX_CHANNEL, () => this.wake());
    } catch (err) {
      this.o.log.warn({ err }, 'delivery worker: LISTEN failed; relying on polling');
    }
    this.running = this.loop();
    this.o.log.info(
      { concurrency: this.concurrency, email: this.o.mailer !== undefined },
      'delivery worker started',
    );
  }

  /** Stops claiming, releases what was not sent yet, waits up to stopTimeoutMs for sends in flight. */
  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  /** Asks the loop to look for work now. */
  wake(): void {
    this.woken = true;
    this.wakeSleeper?.();
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    await this.unlisten?.().catch(() => {});
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.stopTimeoutMs);
      });
      await Promise.race([Promise.allSettled([...this.inFlight.values()]), timeout]);
      clearTimeout(timer);
    }
    if (this.inFlight.size > 0) {
      this.o.log.warn(
        { inFlight: this.inFlight.size },
        'delivery worker stopped with sends in flight; their leases will run out and they will be retried',
      );
    }
    if (this.running) this.o.log.info('delivery worker stopped');
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      const room = Math.min(this.batchSize, this.concurrency - this.inFlight.size);
      let wait = this.pollMs;
      if (room > 0) {
        let claimed: store.ClaimedDelivery[];
        try {
          claimed = await store.claimDue(this.o.db, {
            limit: room,
            leaseMs: this.leaseMs,
            includeEmail: this.o.mailer !== undefined,
          });
        } catch (err) {
          this.o.log.error({ err }, 'delivery worker: claiming failed');
          await this.sleep(this.pollMs);
          continue;
        }
        if (this.stopping) {
          await this.release(claimed);
          break;
        }
        for (const d of claimed) this.launch(d);
        if (claimed.length === room) continue; // there is probably more due right now
        const next = await store.msUntilNextDue(this.o.db, this.o.mailer !== undefined).catch(() => null);
        if (next !== null) wait = Math.min(wait, Math.max(5, Math.ceil(next)));
      }
      await this.sleep(wait);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleeper = done;
    });
  }

  private launch(d: store.ClaimedDelivery): void {
    const job = this.process(d)
      .catch((err) => {
        // Recording failed (database gone?): the lease runs out and the row is retried.
        this.o.log.error({ err, deliveryId: d.id }, 'delivery worker: could not record an attempt');
      })
      .finally(() => {
        this.inFlight.delete(d.id);
        this.wake();
      });
    this.inFlight.set(d.id, job);
  }

  private async release(held: store.ClaimedDelivery[]): Promise<void> {
    if (held.length === 0) return;
    await store.releaseLeases(this.o.db, held).catch((err) => {
      this.o.log.warn({ err }, 'delivery worker: could not release leases; they will run out');
    });
  }

  private async process(d: store.ClaimedDelivery): Promise<void> {
    const result = await this.attempt(d);
    if (result === 'released') return;
    await this.record(d, result);
  }

  /** prepare + send; 'released' when the worker began stopping before anything was sent. */
  private async attempt(d: store.ClaimedDelivery): Promise<SendResult | 'released'> {
    const started = performance.now();
    if (d.channel === 'email') {
      if (this.stopping || !this.o.mailer || d.emailTo === null) return this.releaseOne(d);
      return this.o.mailer.send(d.emailTo, d.messageId, d.payload);
    }
    let prepared: Awaited<ReturnType<WebhookPreparer['prepare']>>;
    try {
      prepared = await this.o.preparer.prepare({
        organizationId: d.organizationId!,
        event: d.event,
        transactionRef: d.transactionRef,
        payload: d.payload,
      });
    } catch (err) {
      this.o.log.error({ err, deliveryId: d.id }, 'delivery worker: could not prepare a message');
      prepared = { ok: false, error: 'internal error while preparing the message' };
    }
    if (!prepared.ok) {
      return { ok: false, statusCode: null, latencyMs: performance.now() - started, error: prepared.error };
    }
    if (this.stopping) return this.releaseOne(d);
    return this.o.sender.send(prepared.url, prepared.body, d.messageId, prepared.secrets);
  }

  private async releaseOne(d: store.ClaimedDelivery): Promise<'released'> {
    await this.release([d]);
    return 'released';
  }

  private async record(d: store.ClaimedDelivery, result: SendResult): Promise<void> {
    const labels = { event: d.event, channel: d.channel };
    const seconds = result.latencyMs / 1000;
    if (result.ok) {
      try {
        await this.o.db.transaction(async (tx) => {
          const held = await store.markDelivered(tx, d, result);
          if (held) {
            await this.o.hooks.deliveryOutcome(tx, {
              event: d.event,
              channel: d.channel,
              transactionRef: d.transactionRef,
            });
          }
        });
        this.o.metrics.attempt({ ...labels, outcome: 'delivered' }, seconds);
        return;
      } catch (err) {
        // The receiver has it, but its consequences could not be committed: treat as a failed
        // attempt so it is sent again (same message id) rather than silently lost.
        this.o.log.error({ err, deliveryId: d.id }, 'delivery worker: could not record a delivery');
        result = { ...result, ok: false, error: 'delivered, but the outcome could not be recorded' };
      }
    }
    const planned = nextAttemptDelay([...this.o.retrySchedule], d.attempts + 1);
    const retryIn = planned === null ? null : retryAfterClamp(result.retryAfter, planned);
    const status = await store.markAttemptFailed(
      this.o.db,
      d,
      { statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error ?? 'failed' },
      retryIn,
    );
    const outcome = status === 'FAILED' ? 'failed' : 'retrying';
    this.o.metrics.attempt({ ...labels, outcome }, seconds);
    const fields = { deliveryId: d.id, messageId: d.messageId, event: d.event, attempts: d.attempts + 1 };
    if (status === 'FAILED') {
      this.o.log.warn({ ...fields, error: result.error }, 'delivery FAILED after its last attempt');
    } else {
      this.o.log.debug({ ...fields, error: result.error, retryInMs: retryIn }, 'delivery attempt failed');
    }
  }
}
