/**
 * Expiry (SPEC §11): a transaction in NEW or RECEIVER_NOTIFIED with no state change for
 * HUB_PENDING_EXPIRY ends EXPIRED. Every process that runs a delivery worker sweeps, at least every
 * 10 s, in batches; each transaction expires in its own database transaction with its messages,
 * and rows another sweeper holds are skipped (SKIP LOCKED), so each expires exactly once.
 */
import type { Database } from '../db/database.js';
import type { WorkerLog } from '../deliveries/types.js';
import type { Lifecycle } from './lifecycle.js';

const BATCH = 100;

export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly lifecycle: Lifecycle,
    private readonly expiryMs: number,
    private readonly log: WorkerLog,
    private readonly everyMs = 10_000,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), Math.min(this.everyMs, this.expiryMs));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** Expires what is due, a batch at most; a sweep still running is not started twice. */
  sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        for (let n = 0; n < BATCH; n++) {
          if (!(await this.db.transaction((tx) => this.lifecycle.expireOne(tx, this.expiryMs)))) break;
        }
      } catch (err) {
        this.log.error({ err }, 'expiry sweep failed; the next one tries again');
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }
}
