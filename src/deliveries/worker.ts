/**
 * The delivery worker: claim → prepare → send → record, for webhooks and NOTIFY e-mails.
 *
 * Invariants:
 * - Claiming (store.claimDue) is one statement with FOR UPDATE SKIP LOCKED that also leases the
 *   rows, so any number of workers in any number of processes share the outbox without taking
 *   the same row twice. Nothing in memory matters for correctness: a crashed worker's leases
 *   run out and another worker (or this one, restarted) sends again with the same message id.
 * - Sending happens outside any database transaction. Recording (recorder.ts) is transactional:
 *   a success is DELIVERED together with its attempt row and its consequences for the transaction
 *   (hooks.deliveryOutcomes); a failure plans the next attempt or gives up (FAILED).
 * - The loop never spins: it wakes on NOTIFY (new work, or a message whose predecessor was just
 *   delivered), when a send ends while it waits for room, when a failure was recorded (its retry
 *   may be due soon), when a recipient whose rows a claim left in the outbox has room again, or at
 *   the next due time (at most `pollMs` away).
 * - Fairness (fairness.ts): a claim takes of each recipient only what the gate has room for, and
 *   leaves out recipients it has none for. Scanning past a left-out recipient's due rows costs a
 *   read of each, so the loop does it only when other work may be due (a NOTIFY, a recorded
 *   failure, the next due time or poll), not each time a busy recipient's sends free some room:
 *   then it claims for that recipient alone, through that recipient's own due index.
 * - stop() claims nothing more, gives back rows not yet sent (waiting ones included), waits
 *   (bounded) for sends in flight, then ends those still unanswered and records them as failed
 *   attempts, to be retried.
 *
 * This file is the claim loop and the worker's life cycle; the send path (dispatcher.ts) starts,
 * sends and records what a claim took.
 */
import type { Database } from '../db/database.js';
import * as store from './claim-store.js';
import { type Held, recipientOf, SendDispatcher } from './dispatcher.js';
import type { NotifyMailer } from './email.js';
import { CIRCUIT_TRIP_AFTER, ClaimPlanner, type ClaimShape, RecipientGate } from './fairness.js';
import type { DeliveryHooks } from './hooks.js';
import { OutboxMaintenance } from './maintenance.js';
import type { DeliveryMetrics } from './metrics.js';
import { type LocalWorker, OUTBOX_CHANNEL } from './outbox.js';
import type { WebhookPreparer } from './prepare.js';
import { ResultRecorder } from './recorder.js';
import type { WebhookSender } from './sender.js';
import type { LeasedMessage, TrpSender, WorkerLog } from './types.js';

export interface WorkerOptions {
  db: Database;
  preparer: WebhookPreparer;
  sender: WebhookSender;
  /** Without a mailer (no SMTP_URL) e-mails stay in the outbox, unclaimed. */
  mailer?: NotifyMailer;
  /** Without the TRP bridge (no HUB_TRP_PORT) TRP messages stay in the outbox, unclaimed. */
  trp?: TrpSender;
  hooks: DeliveryHooks;
  metrics: DeliveryMetrics;
  log: WorkerLog;
  retrySchedule: readonly number[];
  /** Sends in flight at most; twice as many claimed rows may wait for their recipient's turn (fairness.ts). */
  concurrency?: number;
  /** Sends in flight to one organization at most (HUB_MAX_INFLIGHT_PER_RECIPIENT). */
  maxInflightPerRecipient?: number;
  /** Finished sends waiting to be recorded at most; claiming pauses above it. */
  maxUnrecorded?: number;
  /** Rows claimed per statement. */
  batchSize?: number;
  /** How long a claim holds a row; well above the 10 s send timeout. */
  leaseMs?: number;
  /**
   * How long a claimed row may wait for its recipient's turn before it goes back to the outbox
   * (default: a tenth of the lease). A send may take most of the lease: the sender's two deadlines
   * and the address check (sender.ts).
   */
  maxWaitMs?: number;
  /** Longest sleep without a wake-up (catches other processes' retries without NOTIFY). */
  pollMs?: number;
  /** How long stop() waits for sends in flight. */
  stopTimeoutMs?: number;
  /** Outcomes recorded between two vacuums of the outbox at most (maintenance.ts). */
  vacuumAfterRows?: number;
}

/** How long stop() waits, after ending the sends still in flight, for their outcomes to be recorded. */
const ABORTED_RECORD_MS = 5_000;

export class DeliveryWorker implements LocalWorker {
  private readonly concurrency: number;
  private readonly maxUnrecorded: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly stopTimeoutMs: number;
  /** Slots promised to new messages of this process that are being committed (see reserve). */
  private reserved = 0;
  private starting: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private woken = false;
  /** The loop sleeps until sends or recordings in flight free room for a claim. */
  private waitingForRoom = false;
  /** Starts, sends and records what the loop claimed (dispatcher.ts). */
  private readonly sends: SendDispatcher;
  private readonly maintenance: OutboxMaintenance;
  /** Per-recipient limits, waiting rows and circuit breakers (fairness.ts). */
  private readonly gate: RecipientGate<Held>;
  /** What the next claim asks for (fairness.ts). */
  private readonly planner: ClaimPlanner;
  /**
   * Work other than that of recipients a claim left out may be due: set by wake() and by the
   * time coming (`lookAgainAt`), cleared by a claim that took all it was allowed to see. Without
   * it, the loop only refills recipients it left out (ClaimPlanner).
   */
  private lookAround = true;
  private lookAgainAt = 0;
  /** Counts wake() calls: a wake during a claim keeps `lookAround`. */
  private wakes = 0;
  private wakeSleeper: (() => void) | undefined;

  constructor(private readonly o: WorkerOptions) {
    // Sends free their slot before they are recorded, so concurrency bounds only the sends
    // waiting for answers. The sender caps connections per receiver, so a large concurrency
    // queues on one slow receiver instead of opening hundreds of sockets to it.
    this.concurrency = o.concurrency ?? 400;
    this.maxUnrecorded = o.maxUnrecorded ?? 1000;
    this.batchSize = o.batchSize ?? 200;
    this.leaseMs = o.leaseMs ?? 30_000;
    this.pollMs = o.pollMs ?? 1000;
    this.stopTimeoutMs = o.stopTimeoutMs ?? 10_000;
    this.maintenance = new OutboxMaintenance(o.db, o.log, o.vacuumAfterRows);
    this.gate = new RecipientGate<Held>(
      o.maxInflightPerRecipient ?? 16,
      o.retrySchedule,
      CIRCUIT_TRIP_AFTER,
      Date.now,
      {
        // A busy recipient is refilled a batch at a time while two more batches are still waiting.
        maxWaiting: 3 * this.batchSize,
        maxWaitMs: o.maxWaitMs ?? this.leaseMs / 10,
      },
    );
    this.planner = new ClaimPlanner(this.gate, this.batchSize);
    this.sends = new SendDispatcher({
      db: o.db,
      preparer: o.preparer,
      sender: o.sender,
      mailer: o.mailer,
      trp: o.trp,
      log: o.log,
      recorder: new ResultRecorder(o),
      maintenance: this.maintenance,
      gate: this.gate,
      planner: this.planner,
      stopping: () => this.stopping,
      roomFreed: () => this.roomFreed(),
      nudge: () => this.nudge(),
      wake: () => this.wake(),
    });
  }

  get isRunning(): boolean {
    return this.running !== undefined && !this.stopping;
  }

  /** Starts once; a stop that comes while it starts wins (no loop, no LISTEN left behind). */
  start(): Promise<void> {
    this.starting ??= this.begin();
    return this.starting;
  }

  private async begin(): Promise<void> {
    await this.o.sender.load();
    if (this.stopping) return;
    try {
      this.unlisten = await this.o.db.listen(OUTBOX_CHANNEL, () => this.wake());
    } catch (err) {
      this.o.log.warn({ err }, 'delivery worker: LISTEN failed; relying on polling');
    }
    if (this.stopping) return;
    this.running = this.loop();
    this.o.log.info(
      { concurrency: this.concurrency, email: this.o.mailer !== undefined },
      'delivery worker started',
    );
  }

  /**
   * Stops claiming, releases what was not sent yet, waits up to stopTimeoutMs for sends in flight,
   * then ends the rest and records them; resolves before the caller closes the database.
   */
  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  /** Asks the loop to look for work now. */
  wake(): void {
    this.wakes++;
    this.lookAround = true;
    this.nudge();
  }

  /** Wakes the loop without saying that new work may be due (room was freed). */
  private nudge(): void {
    this.woken = true;
    this.wakeSleeper?.();
  }

  /**
   * Hand-off, for messages this process is about to commit (new initiations): reserves room for
   * up to `n` of them and says for how long to write them leased to this worker. The caller writes
   * that many leased until the database's clock plus `leaseMs`, then gives the committed rows and
   * that time to take() (or the count back to cancel()). They go out at once, without a claim
   * round trip; if this process dies first, their lease runs out and any worker sends them, as
   * with a claimed row.
   * Rows beyond the room, or while the worker is not running, are written due and claimed as usual.
   */
  reserve(n: number): { count: number; leaseMs: number } {
    const count = this.isRunning ? Math.max(0, Math.min(n, this.freeSlots())) : 0;
    this.reserved += count;
    return { count, leaseMs: this.leaseMs };
  }

  /** The committed webhooks of a reserve(), leased to this worker: sent now (or released, if stopping). */
  take(messages: LeasedMessage[]): void {
    this.reserved = Math.max(0, this.reserved - messages.length);
    if (this.stopping || !this.running) {
      void this.sends.release(messages);
      return;
    }
    this.sends.launchAll(messages);
  }

  /** Room reserved but not used (the write failed). */
  cancel(n: number): void {
    this.reserved = Math.max(0, this.reserved - n);
  }

  /**
   * Rows this worker can take now, each to send or to wait for its recipient's turn: up to
   * `concurrency` sends and twice as many waiting rows, while finished sends are recorded fast enough.
   */
  private freeSlots(): number {
    if (this.sends.unrecorded >= this.maxUnrecorded) return 0;
    const sends = this.sends.sending + this.reserved;
    return Math.max(0, Math.min(this.concurrency - sends, 2 * this.concurrency - this.gate.waitingCount()));
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.starting?.catch(() => {});
    await this.running;
    await this.sends.release(this.gate.drop().map((h) => h.d));
    await this.unlisten?.().catch(() => {});
    await this.sends.settle(this.stopTimeoutMs);
    if (this.sends.inFlightCount > 0) {
      // Sends still waiting for an answer end now, as failures that are recorded (and retried):
      // left to finish later, their answers would find the database closed and be lost.
      this.o.log.warn(
        { inFlight: this.sends.inFlightCount },
        'delivery worker stopping: ending sends still waiting for an answer; they will be retried',
      );
      await this.sends.cutOff();
      await this.sends.settle(ABORTED_RECORD_MS);
    }
    if (this.sends.inFlightCount > 0) {
      this.o.log.warn(
        { inFlight: this.sends.inFlightCount },
        'delivery worker stopped with outcomes unrecorded; their leases will run out and they will be retried',
      );
    }
    if (this.running) this.o.log.info('delivery worker stopped');
  }

  private async loop(): Promise<void> {
    let backlog = false;
    while (!this.stopping) {
      this.woken = false;
      const expiry = this.expireWaiting();
      if (performance.now() >= this.lookAgainAt) this.lookAround = true;
      const lookAround = this.lookAround;
      const wakes = this.wakes;
      // A send's slot is free once its answer is in: recording happens meanwhile, in batches.
      const free = this.freeSlots();
      // With a backlog, claim whole batches: a claim per finished send would cost a query each.
      const waitForRoom: boolean = free === 0 || (backlog && free < this.batchSize && this.sends.sending > 0);
      const shape: ClaimShape | undefined = waitForRoom
        ? undefined
        : this.planner.shape(lookAround, Math.min(this.batchSize, free));
      if (shape) {
        let claimed: LeasedMessage[];
        try {
          const started = performance.now();
          claimed = shape.only
            ? await store.claimDueFor(this.o.db, { recipients: shape.only, leaseMs: this.leaseMs })
            : await store.claimDue(this.o.db, {
                limit: shape.limit,
                leaseMs: this.leaseMs,
                channels: this.channels(),
                excludeRecipients: shape.exclude,
                caps: shape.caps,
              });
          this.maintenance.afterClaim(performance.now() - started);
        } catch (err) {
          this.o.log.error({ err }, 'delivery worker: claiming failed');
          await this.sleep(this.pollMs);
          continue;
        }
        if (this.stopping) {
          await this.sends.release(claimed);
          break;
        }
        const complete = this.planner.took(shape, claimed.map(recipientOf));
        this.sends.launchAll(claimed);
        backlog = claimed.length === shape.limit;
        if (lookAround && !complete) continue; // more may be due right now, past what it took
        if (lookAround && this.wakes === wakes) {
          this.lookAround = false;
          this.lookAgainAt = performance.now() + this.pollMs;
          if (this.woken) continue; // work arrived while claiming: no need to ask when the next is due
          const next = await store.msUntilNextDue(this.o.db, this.channels()).catch(() => null);
          if (next !== null) {
            this.lookAgainAt = Math.min(this.lookAgainAt, performance.now() + Math.max(5, next));
          }
        }
      }
      let wait = Math.min(this.pollMs, expiry ?? this.pollMs);
      if (!this.lookAround) wait = Math.min(wait, Math.max(1, this.lookAgainAt - performance.now()));
      this.waitingForRoom = waitForRoom;
      await this.sleep(wait);
      this.waitingForRoom = false;
    }
  }

  /** Gives back the rows that waited too long; returns ms until the next one will have, if any. */
  private expireWaiting(): number | undefined {
    const { expired, nextInMs } = this.gate.expire();
    this.sends.giveBack(expired);
    return nextInMs === undefined ? undefined : Math.max(1, nextInMs);
  }

  /**
   * A send or a recording finished: its room matters only to a loop that is waiting for room.
   * Waking the loop otherwise would cost a claim per message that finds nothing (one statement
   * per webhook when handed-off messages are the whole load).
   */
  private roomFreed(): void {
    if (this.waitingForRoom) this.nudge();
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

  /** The channels this worker sends on: webhooks always, e-mail with a mailer, TRP with the bridge. */
  private channels(): string[] {
    return ['webhook', ...(this.o.mailer ? ['email'] : []), ...(this.o.trp ? ['trp'] : [])];
  }
}
