/**
 * Keeps the outbox cheap to claim from, in the background. Every delivery leaves dead row
 * versions behind (the claim's and the outcome's updates), and PGlite has no autovacuum (nor
 * does a server where it is off, or has not reached this table yet): they pile up in the due
 * index, and a claim reads past them. Stale statistics also make the planner sort every due row
 * instead of reading the due index in order. So a worker runs `VACUUM (ANALYZE)` on the outbox
 * after `vacuumAfterRows` outcomes (at most every 10 s), and when a claim other than the first
 * was slow (at most every 30 s). SKIP_LOCKED: with several workers, one vacuum at a time is enough.
 */
import type { Database } from '../db/database.js';
import * as store from './claim-store.js';
import type { WorkerLog } from './types.js';

const SLOW_CLAIM_MS = 15;
/** Least time between two vacuums started by a slow claim, and by the outcomes' count. */
const SLOW_CLAIM_EVERY_MS = 30_000;
const CHURN_EVERY_MS = 10_000;

export class OutboxMaintenance {
  private last = 0;
  /** The first claim after start runs on cold caches (on PGlite also on WASM not compiled yet). */
  private claimedOnce = false;
  private running = false;
  /** Outcomes recorded since the last vacuum: each left dead row versions behind. */
  private recorded = 0;

  constructor(
    private readonly db: Database,
    private readonly log: WorkerLog,
    private readonly vacuumAfterRows = 20_000,
  ) {}

  /** One more outcome was recorded. */
  outcome(): void {
    this.recorded++;
  }

  /** A claim took `claimMs`; starts a vacuum in the background when one is due. */
  afterClaim(claimMs: number): void {
    // The first claim is slow for want of warm caches, not because the outbox needs a vacuum;
    // on PGlite a vacuum started then would block the one thread at every start.
    const warm = this.claimedOnce;
    this.claimedOnce = true;
    if (this.running) return;
    const since = Date.now() - this.last;
    const slow = warm && claimMs >= SLOW_CLAIM_MS && since >= SLOW_CLAIM_EVERY_MS;
    const churned = this.recorded >= this.vacuumAfterRows && since >= CHURN_EVERY_MS;
    if (!slow && !churned) return;
    this.running = true;
    this.last = Date.now();
    this.recorded = 0;
    void store
      .vacuum(this.db)
      .catch((err) => this.log.warn({ err }, 'delivery worker: VACUUM of the outbox failed'))
      .finally(() => {
        this.running = false;
      });
  }
}
