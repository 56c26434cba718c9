/**
 * Fairness between recipients (SPEC §13): a slow or hanging receiver never delays the others.
 * Per worker, and per recipient organization:
 * - at most `maxInflight` sends are in flight to it;
 * - rows claimed for it beyond that wait in the worker, in claim order, and start as its sends end.
 *   It may hold as many waiting rows as it answered successfully in about the last second (at most
 *   `maxWaiting`), so a waiting row starts within about a second at the recipient's own pace, well
 *   inside its lease; a row that waited `maxWaitMs` anyway goes back to the outbox. A recipient whose
 *   sends do not end (or all fail) gets no waiting rows once its first second is over: the worker
 *   holds only its sends in flight, and claims leave the rest of its messages in the outbox;
 * - after `tripAfter` failed attempts in a row its circuit opens: it gets no sends at all (its
 *   messages stay due in the outbox, their attempts untouched, and its waiting rows go back there)
 *   until a pause from the retry schedule has passed; then one probe goes out (half-open). A success
 *   closes the circuit, a failure opens it again for the schedule's next, longer pause.
 * `headroom` tells a claim how many more rows of a recipient it may take, so that a claim never takes
 * rows that would have to be given back at once.
 * In-memory on purpose: it shapes this worker's own traffic, and correctness never depends on it
 * (a restarted worker starts with every circuit closed; a row held here is leased, and its lease
 * runs out if the worker dies).
 */

interface Circuit {
  failures: number;
  /** How many times it opened in a row (which pause of the schedule applies next). */
  opened: number;
  /** While in the future, the circuit is open; once past, one probe may go. */
  openUntil: number;
}

/** Successful answers counted in one-second windows: the recipient's recent pace. */
interface Pace {
  since: number;
  windowStart: number;
  current: number;
  previous: number;
}

interface Waiting<T> {
  item: T;
  at: number;
}

/** Failed attempts in a row after which a recipient's circuit opens (SPEC §13). */
export const CIRCUIT_TRIP_AFTER = 5;

/** The pace is counted over windows of this length. */
const WINDOW_MS = 1000;

export interface WaitingOptions {
  /** Waiting rows per recipient at most, whatever its pace. */
  maxWaiting?: number;
  /** How long a row may wait for a send slot before it goes back to the outbox. */
  maxWaitMs?: number;
}

export class RecipientGate<T = unknown> {
  private readonly inflight = new Map<string, number>();
  private readonly circuits = new Map<string, Circuit>();
  private readonly paces = new Map<string, Pace>();
  private readonly waiting = new Map<string, Waiting<T>[]>();
  private readonly maxWaiting: number;
  private readonly maxWaitMs: number;

  constructor(
    private readonly maxInflight: number,
    /** The pauses of an open circuit, in milliseconds (the retry schedule). */
    private readonly pauses: readonly number[],
    private readonly tripAfter = CIRCUIT_TRIP_AFTER,
    private readonly now: () => number = Date.now,
    { maxWaiting = 200, maxWaitMs = 3000 }: WaitingOptions = {},
  ) {
    this.maxWaiting = maxWaiting;
    this.maxWaitMs = maxWaitMs;
  }

  /** Whether one more send to this recipient may start now. */
  admits(recipient: string): boolean {
    const n = this.inflight.get(recipient) ?? 0;
    const circuit = this.circuits.get(recipient);
    if (circuit && circuit.failures >= this.tripAfter) {
      // Open, or half-open: one probe at a time once the pause is over.
      return this.now() >= circuit.openUntil && n === 0;
    }
    return n < this.maxInflight;
  }

  /** Recipients that may not get another send now. */
  blocked(): string[] {
    const out: string[] = [];
    const ids = new Set([...this.inflight.keys(), ...this.circuits.keys()]);
    for (const id of ids) if (!this.admits(id)) out.push(id);
    return out;
  }

  started(recipient: string): void {
    this.inflight.set(recipient, (this.inflight.get(recipient) ?? 0) + 1);
    if (!this.paces.has(recipient)) {
      const now = this.now();
      this.paces.set(recipient, { since: now, windowStart: now, current: 0, previous: 0 });
    }
  }

  /** A send that was started but given back unsent (the worker is stopping). */
  released(recipient: string): void {
    const n = (this.inflight.get(recipient) ?? 1) - 1;
    if (n > 0) this.inflight.set(recipient, n);
    else this.inflight.delete(recipient);
  }

  /** A send ended; `ok` when the receiver answered 2xx. */
  finished(recipient: string, ok: boolean): void {
    this.released(recipient);
    if (ok) {
      this.circuits.delete(recipient);
      const pace = this.pace(recipient);
      if (pace) pace.current++;
      return;
    }
    const circuit = this.circuits.get(recipient) ?? { failures: 0, opened: 0, openUntil: 0 };
    circuit.failures++;
    if (circuit.failures >= this.tripAfter && this.now() >= circuit.openUntil) {
      const pause = this.pauses[Math.min(circuit.opened, this.pauses.length - 1)] ?? 0;
      circuit.opened++;
      circuit.openUntil = this.now() + pause;
    }
    this.circuits.set(recipient, circuit);
  }

  /** Whether its circuit is open now (no sends, no waiting rows). */
  paused(recipient: string): boolean {
    const c = this.circuits.get(recipient);
    return c !== undefined && c.failures >= this.tripAfter && this.now() < c.openUntil;
  }

  /** Recipients whose circuit is open now (for metrics and logs). */
  openCircuits(): number {
    let n = 0;
    for (const id of this.circuits.keys()) if (this.paused(id)) n++;
    return n;
  }

  /**
   * Rows of this recipient the worker may hold now, in flight and waiting: the in-flight limit
   * plus its pace. One probe when half-open, none while open.
   */
  cap(recipient: string): number {
    const circuit = this.circuits.get(recipient);
    if (circuit && circuit.failures >= this.tripAfter) return this.now() >= circuit.openUntil ? 1 : 0;
    return this.maxInflight + this.allowance(recipient);
  }

  /** How many more rows of this recipient a claim may take now. */
  headroom(recipient: string): number {
    return Math.max(0, this.cap(recipient) - this.held(recipient));
  }

  /** What a claim may take of a recipient this gate knows nothing about yet. */
  freshCap(): number {
    return this.maxInflight + Math.min(this.maxInflight, this.maxWaiting);
  }

  /**
   * Every recipient the gate tracks, with its headroom (0: leave it out of the claim). Forgets
   * recipients with nothing held, no circuit and no recent answer.
   */
  claimLimits(): Map<string, number> {
    const out = new Map<string, number>();
    const now = this.now();
    for (const [id, pace] of this.paces) {
      this.roll(pace, now);
      const idle = this.held(id) === 0 && !this.circuits.has(id) && pace.current === 0 && pace.previous === 0;
      if (idle && now - pace.since >= WINDOW_MS) this.paces.delete(id);
      else out.set(id, this.headroom(id));
    }
    for (const id of this.circuits.keys()) if (!out.has(id)) out.set(id, this.headroom(id));
    return out;
  }

  /** Keeps a claimed row until this recipient has a free slot; false if it may not wait (give it back). */
  hold(recipient: string, item: T): boolean {
    if (this.headroom(recipient) <= 0) return false;
    const queue = this.waiting.get(recipient);
    const entry = { item, at: this.now() };
    if (queue) queue.push(entry);
    else this.waiting.set(recipient, [entry]);
    return true;
  }

  /** Whether rows of this recipient are waiting (a new one must queue behind them). */
  hasWaiting(recipient: string): boolean {
    return this.waiting.has(recipient);
  }

  /** Rows waiting, over all recipients. */
  waitingCount(): number {
    let n = 0;
    for (const q of this.waiting.values()) n += q.length;
    return n;
  }

  /**
   * The waiting rows of this recipient that may start now, in order, each counted as started;
   * and those that waited too long, to give back.
   */
  next(recipient: string): { start: T[]; expired: T[] } {
    const start: T[] = [];
    const expired: T[] = [];
    const queue = this.waiting.get(recipient);
    if (!queue) return { start, expired };
    const oldest = this.now() - this.maxWaitMs;
    while (queue.length > 0 && (queue[0]!.at <= oldest || this.admits(recipient))) {
      const w = queue.shift()!;
      if (w.at <= oldest) expired.push(w.item);
      else {
        this.started(recipient);
        start.push(w.item);
      }
    }
    if (queue.length === 0) this.waiting.delete(recipient);
    return { start, expired };
  }

  /** Every waiting row that waited too long, and milliseconds until the next one will have (if any). */
  expire(): { expired: T[]; nextInMs: number | undefined } {
    const expired: T[] = [];
    const now = this.now();
    let next: number | undefined;
    for (const [id, queue] of this.waiting) {
      while (queue.length > 0 && queue[0]!.at <= now - this.maxWaitMs) expired.push(queue.shift()!.item);
      if (queue.length === 0) this.waiting.delete(id);
      else next = Math.min(next ?? Number.POSITIVE_INFINITY, queue[0]!.at + this.maxWaitMs - now);
    }
    return { expired, nextInMs: next };
  }

  /** Takes every waiting row of one recipient (its circuit opened), or of all (the worker stops). */
  drop(recipient?: string): T[] {
    const ids = recipient === undefined ? [...this.waiting.keys()] : [recipient];
    const out: T[] = [];
    for (const id of ids) {
      for (const w of this.waiting.get(id) ?? []) out.push(w.item);
      this.waiting.delete(id);
    }
    return out;
  }

  private held(recipient: string): number {
    return (this.inflight.get(recipient) ?? 0) + (this.waiting.get(recipient)?.length ?? 0);
  }

  /**
   * Waiting rows allowed: successful answers over the last one to two seconds. In its first
   * second a recipient gets the in-flight limit, so a drain starts at speed before its pace is known.
   */
  private allowance(recipient: string): number {
    const pace = this.pace(recipient);
    if (!pace) return Math.min(this.maxInflight, this.maxWaiting);
    const recent = pace.current + pace.previous;
    const young = this.now() - pace.since < WINDOW_MS;
    return Math.min(this.maxWaiting, young ? Math.max(this.maxInflight, recent) : recent);
  }

  private pace(recipient: string): Pace | undefined {
    const pace = this.paces.get(recipient);
    if (pace) this.roll(pace, this.now());
    return pace;
  }

  private roll(pace: Pace, now: number): void {
    const windows = Math.floor((now - pace.windowStart) / WINDOW_MS);
    if (windows <= 0) return;
    pace.previous = windows === 1 ? pace.current : 0;
    pace.current = 0;
    pace.windowStart += windows * WINDOW_MS;
  }
}

/** One claim, as the gate shapes it (store.claimDue's options, or claimDueFor's for a refill). */
export interface ClaimShape {
  limit: number;
  /** A refill: these recipients' rows only, at most so many of each. */
  only?: ReadonlyMap<string, number>;
  /** Recipients the claim leaves out: it reads past their due rows. */
  exclude: string[];
  caps: { recipients: ReadonlyMap<string, number>; others: number };
}

/**
 * What the worker's next claim asks for. A claim reads due rows in due order and reads past those
 * of the recipients it leaves out, one by one, so a look past a busy recipient's backlog costs a
 * read of every row of it. Two kinds of claim:
 * - looking around (other work may be due): up to a batch, leaving out the recipients without
 *   room and, after a claim that filled some recipient's cap, that recipient too, so that the
 *   look ends by seeing every other due row;
 * - refilling: the rows of the recipients left out before, as many as they have room for once
 *   they have room for a batch (or half their cap), read through each one's own due index
 *   (store.claimDueFor), so that the rows of recipients left out cost nothing.
 */
export class ClaimPlanner {
  /** Recipients whose due rows a claim may have left in the outbox. */
  private readonly leftOut = new Set<string>();
  /** Recipients the last claim gave all their cap allowed. */
  private filled = new Set<string>();

  constructor(
    private readonly gate: RecipientGate<unknown>,
    /** Rows a claim takes at most. */
    private readonly batchSize: number,
  ) {}

  /** The next claim, of at most `room` rows; undefined when there is nothing worth claiming. */
  shape(lookAround: boolean, room: number): ClaimShape | undefined {
    const only = lookAround ? undefined : this.refill(room);
    if (!lookAround && !only) return undefined;
    const limit = only ? sum(only.values()) : room;
    if (limit <= 0) return undefined;
    const recipients = this.gate.claimLimits();
    const exclude = new Set<string>();
    for (const [id, n] of recipients) if (n <= 0) exclude.add(id);
    if (lookAround) for (const id of this.filled) exclude.add(id);
    return { limit, only, exclude: [...exclude], caps: { recipients, others: this.gate.freshCap() } };
  }

  /**
   * What a claim took (each row's recipient; undefined for other channels). Returns whether it took
   * every due row it was allowed to see: short of its limit and of every recipient's cap.
   */
  took(shape: ClaimShape, recipients: readonly (string | undefined)[]): boolean {
    const counts = new Map<string, number>();
    for (const id of recipients) if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
    this.filled = new Set();
    for (const [id, n] of counts) {
      if (n >= (shape.caps.recipients.get(id) ?? shape.caps.others)) this.filled.add(id);
    }
    if (shape.only) {
      // A refilled recipient that got less than it asked for has nothing more due.
      for (const [id, n] of shape.only) if ((counts.get(id) ?? 0) < n) this.leftOut.delete(id);
      return false;
    }
    const complete = recipients.length < shape.limit && this.filled.size === 0;
    if (complete) this.leftOut.clear();
    for (const id of shape.exclude) this.leftOut.add(id);
    for (const id of this.filled) this.leftOut.add(id);
    return complete;
  }

  /** Rows of this recipient went back to the outbox (no room for them, or they waited too long). */
  gaveBack(recipient: string): void {
    this.leftOut.add(recipient);
  }

  /** Whether a refill for this recipient is due: rows of it were left out, and it has room for them. */
  wants(recipient: string): boolean {
    return this.leftOut.has(recipient) && this.roomFor(recipient) > 0;
  }

  /** The recipients left out that have room for a refill now, with their room (at most `room` in all). */
  private refill(room: number): Map<string, number> | undefined {
    const only = new Map<string, number>();
    let left = room;
    for (const id of this.leftOut) {
      const n = Math.min(left, this.roomFor(id));
      if (n <= 0) continue;
      only.set(id, n);
      left -= n;
      if (left === 0) break;
    }
    return only.size > 0 ? only : undefined;
  }

  /**
   * A claim per finished send would cost a statement each: a refill waits for room for a whole
   * batch, or half the cap of a recipient slower than that. The rows still waiting then keep its
   * sends going while the refill is claimed.
   */
  private roomFor(recipient: string): number {
    const headroom = this.gate.headroom(recipient);
    return headroom >= Math.min(this.batchSize, this.gate.cap(recipient) / 2) ? headroom : 0;
  }
}

function sum(values: Iterable<number>): number {
  let n = 0;
  for (const v of values) n += v;
  return n;
}
