/**
 * The worker's send path: the rows the claim loop (worker.ts) claimed, or that new initiations
 * handed over, are started here. A webhook or a TRP message passes its recipient's gate
 * (fairness.ts; a TRP peer is a recipient by its host) or waits there for its turn; then each row
 * is prepared and sent outside any database transaction, and
 * its outcome goes to the recorder (recorder.ts). Every row is a job in `inFlight` until its
 * outcome is recorded or its lease given back, so that the worker's stop() can wait for them, and
 * then end the sends still unanswered (cutOff), which are recorded as failed attempts.
 */
import type { Database } from '../db/database.js';
import { releaseLeases, trpRecipient } from './claim-store.js';
import type { NotifyMailer } from './email.js';
import type { ClaimPlanner, RecipientGate } from './fairness.js';
import type { OutboxMaintenance } from './maintenance.js';
import type { RecipientMemo, WebhookPreparer } from './prepare.js';
import type { ResultRecorder } from './recorder.js';
import type { WebhookSender } from './sender.js';
import type { LeasedMessage, SendResult, TrpSender, WorkerLog } from './types.js';

/** A claimed row waiting in the gate, with what its claim read about its recipient. */
export interface Held {
  d: LeasedMessage;
  batch: RecipientMemo;
}

/** What the send path shares with the worker around it. */
export interface DispatcherOptions {
  db: Database;
  preparer: WebhookPreparer;
  sender: WebhookSender;
  mailer?: NotifyMailer;
  trp?: TrpSender;
  log: WorkerLog;
  recorder: ResultRecorder;
  maintenance: OutboxMaintenance;
  /** Per-recipient limits, waiting rows and circuit breakers (fairness.ts). */
  gate: RecipientGate<Held>;
  /** What the next claim asks for (fairness.ts). */
  planner: ClaimPlanner;
  /** The worker has begun to stop: nothing more is sent, and rows not sent yet go back. */
  stopping: () => boolean;
  /** A send or a recording finished (DeliveryWorker.roomFreed). */
  roomFreed: () => void;
  /** Wakes the claim loop without saying that new work may be due (room was freed). */
  nudge: () => void;
  /** Asks the claim loop to look for work now. */
  wake: () => void;
}

export class SendDispatcher {
  /** Every claimed row until its outcome is recorded (or it is released). */
  private readonly inFlight = new Set<Promise<void>>();
  /** stop() has ended the sends still waiting for an answer. */
  private cuttingOff = false;
  /** Rows being prepared and sent: what the worker's `concurrency` limits. */
  private sendsRunning = 0;
  /** Recipients whose sends ended this turn: their waiting rows start at its end (startFreed). */
  private readonly freed = new Set<string>();

  constructor(private readonly o: DispatcherOptions) {}

  /** Rows being prepared and sent. */
  get sending(): number {
    return this.sendsRunning;
  }

  /** Claimed rows whose outcome is not recorded yet (nor their lease given back), sends included. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Finished sends whose outcome is being recorded. */
  get unrecorded(): number {
    return this.inFlight.size - this.sendsRunning;
  }

  /** Waits until nothing is in flight (every outcome recorded), or `ms`. */
  async settle(ms: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([Promise.allSettled([...this.inFlight]), timeout]);
    clearTimeout(timer);
  }

  /** Ends the sends still waiting for an answer: they fail, and are recorded as the hub's doing. */
  async cutOff(): Promise<void> {
    this.cuttingOff = true;
    await Promise.all([this.o.sender.abortAll(), this.o.mailer?.abortAll(), this.o.trp?.abortAll()]);
  }

  /** Waiting rows go back to the outbox, due at once; their recipients are claimed for again later. */
  giveBack(held: readonly Held[]): void {
    if (held.length === 0) return;
    for (const h of held) {
      const id = recipientOf(h.d);
      if (id !== undefined) this.o.planner.gaveBack(id);
    }
    void this.release(held.map((h) => h.d));
  }

  /**
   * Starts the sends of one claim (or hand-over), sharing what they read about a recipient. A
   * webhook whose recipient is at its in-flight limit waits for its turn in the gate, or, if the
   * gate has no room for it (the recipient is paused or slow), goes back to the outbox, due at once.
   */
  launchAll(messages: LeasedMessage[]): void {
    const batch: RecipientMemo = new Map();
    const refused: Held[] = [];
    const waiting = new Set<string>();
    for (const d of messages) {
      const id = recipientOf(d);
      if (id !== undefined) {
        if (this.o.gate.hasWaiting(id) || !this.o.gate.admits(id)) {
          if (this.o.gate.hold(id, { d, batch })) waiting.add(id);
          else refused.push({ d, batch });
          continue;
        }
        this.o.gate.started(id);
      }
      this.launch(d, batch);
    }
    this.giveBack(refused);
    // Rows queued behind older waiting ones, in case a slot is free (none, in the usual case).
    for (const id of waiting) this.startWaiting(id);
  }

  /** Starts the waiting rows of `recipient` that it has slots for; gives back those that waited too long. */
  private startWaiting(recipient: string): void {
    const { start, expired } = this.o.gate.next(recipient);
    for (const h of start) this.launch(h.d, h.batch);
    this.giveBack(expired);
  }

  /** `batch` is shared by the rows of one claim: what they read about a recipient is read once. */
  private launch(d: LeasedMessage, batch: RecipientMemo): void {
    this.sendsRunning++;
    // A set of jobs, not a map by row: a row claimed again while its first send still runs (its
    // lease ran out) is two jobs, and stop() waits for both.
    const job: Promise<void> = this.process(d, batch)
      .catch((err) => {
        // Recording failed (database gone?): the lease runs out and the row is retried.
        this.o.log.error({ err, deliveryId: d.id }, 'delivery worker: could not record an attempt');
      })
      .finally(() => {
        this.inFlight.delete(job);
        this.o.roomFreed();
      });
    this.inFlight.add(job);
  }

  /**
   * A send to `recipient` ended: the gate learns of it, its next waiting rows start (or all go back
   * if its circuit opened), and the loop claims for it again once it has room for a good share of
   * its cap, if a claim left rows of it in the outbox.
   */
  private sent(recipient: string, result: SendResult | 'released' | undefined): void {
    if (result === 'released') this.o.gate.released(recipient);
    else this.o.gate.finished(recipient, result?.ok === true);
    if (this.o.stopping()) return;
    if (this.o.gate.paused(recipient)) {
      this.giveBack(this.o.gate.drop(recipient));
      return;
    }
    this.freed.add(recipient);
    if (this.freed.size === 1) setImmediate(() => this.startFreed());
    if (this.o.planner.wants(recipient)) this.o.nudge();
  }

  /**
   * Starts the waiting rows of the recipients whose sends ended during this turn of the event loop,
   * together once the turn's answers are all read, rather than one by one between them.
   */
  private startFreed(): void {
    const freed = [...this.freed];
    this.freed.clear();
    if (this.o.stopping()) return;
    for (const id of freed) this.startWaiting(id);
  }

  async release(held: LeasedMessage[]): Promise<void> {
    if (held.length === 0) return;
    await releaseLeases(this.o.db, held).catch((err) => {
      this.o.log.warn({ err }, 'delivery worker: could not release leases; they will run out');
    });
  }

  private async process(d: LeasedMessage, batch: RecipientMemo): Promise<void> {
    let result: Awaited<ReturnType<SendDispatcher['attempt']>> | undefined;
    try {
      result = await this.attempt(d, batch);
    } finally {
      this.sendsRunning--;
      this.o.roomFreed();
      const recipient = recipientOf(d);
      if (recipient !== undefined) this.sent(recipient, result);
    }
    if (result === 'released') return;
    // A failure once stop() cut the sends off is the hub's doing: never the attempt that gives up.
    await this.o.recorder.record(d, result, this.cuttingOff && !result.ok);
    this.o.maintenance.outcome();
    // A retry may now fall due before the loop's next look at the outbox.
    if (!result.ok) this.o.wake();
  }

  /** prepare + send; 'released' when the worker began stopping before anything was sent. */
  private async attempt(d: LeasedMessage, batch: RecipientMemo): Promise<SendResult | 'released'> {
    const started = performance.now();
    const m = d.message;
    if (m.channel === 'email') {
      if (this.o.stopping() || !this.o.mailer) return this.releaseOne(d);
      return this.o.mailer.send(m, d.messageId);
    }
    if (m.channel === 'trp') {
      if (this.o.stopping() || !this.o.trp) return this.releaseOne(d);
      return this.o.trp.send(m, d.messageId);
    }
    let prepared: Awaited<ReturnType<WebhookPreparer['prepare']>>;
    try {
      prepared = await this.o.preparer.prepare(m, batch);
    } catch (err) {
      this.o.log.error({ err, deliveryId: d.id }, 'delivery worker: could not prepare a message');
      prepared = { ok: false, error: 'internal error while preparing the message' };
    }
    if (!prepared.ok) {
      return { ok: false, statusCode: null, latencyMs: performance.now() - started, error: prepared.error };
    }
    if (this.o.stopping()) return this.releaseOne(d);
    return this.o.sender.send(prepared.url, prepared.body, d.messageId, prepared.secrets);
  }

  private async releaseOne(d: LeasedMessage): Promise<'released'> {
    await this.release([d]);
    return 'released';
  }
}

/**
 * Who a message goes to, for fairness: the organization of a webhook, the peer host of a TRP
 * message (trpRecipient); undefined for e-mails.
 */
export function recipientOf(d: LeasedMessage): string | undefined {
  if (d.message.channel === 'webhook') return d.message.organizationId;
  if (d.message.channel === 'trp' && d.trpHost) return trpRecipient(d.trpHost);
  return undefined;
}
