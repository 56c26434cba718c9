/**
 * Fairness between recipients (SPEC §13): a slow or hanging receiver never delays the others.
 * Per worker, and per recipient organization:
 * - at most `maxInflight` sends are in flight to it; rows beyond that are left in (or given back
 *   to) the outbox, so they hold no worker slot while they wait;
 * - after `tripAfter` failed attempts in a row its circuit opens: it gets no sends at all (its
 *   messages stay due in the outbox, their attempts untouched) until a pause from the retry
 *   schedule has passed; then one probe goes out (half-open). A success closes the circuit, a
 *   failure opens it again for the schedule's next, longer pause.
 * In-memory on purpose: it shapes this worker's own traffic, and correctness never depends on it
 * (a restarted worker starts with every circuit closed).
 */

interface Circuit {
  failures: number;
  /** How many times it opened in a row (which pause of the schedule applies next). */
  opened: number;
  /** While in the future, the circuit is open; once past, one probe may go. */
  openUntil: number;
}

export class RecipientGate {
  private readonly inflight = new Map<string, number>();
  private readonly circuits = new Map<string, Circuit>();

  constructor(
    private readonly maxInflight: number,
    /** The pauses of an open circuit, in milliseconds (the retry schedule). */
    private readonly pauses: readonly number[],
    private readonly tripAfter = 5,
    private readonly now: () => number = Date.now,
  ) {}

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

  /** Recipients that may not get another send now: left out of the next claim. */
  blocked(): string[] {
    const out: string[] = [];
    const ids = new Set([...this.inflight.keys(), ...this.circuits.keys()]);
    for (const id of ids) if (!this.admits(id)) out.push(id);
    return out;
  }

  started(recipient: string): void {
    this.inflight.set(recipient, (this.inflight.get(recipient) ?? 0) + 1);
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

  /** Recipients whose circuit is open now (for metrics and logs). */
  openCircuits(): number {
    let n = 0;
    for (const c of this.circuits.values()) if (c.failures >= this.tripAfter && this.now() < c.openUntil) n++;
    return n;
  }
}
