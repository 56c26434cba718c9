/**
 * The retention sweep (SPEC §14): every process that runs a delivery worker erases, at least every
 * 10 s, the personal data of transactions whose last state change is older than HUB_RETENTION, in
 * batches, each transaction in its own database transaction; rows another sweeper holds are
 * skipped (SKIP LOCKED) and erased rows are no longer due, so each is erased exactly once.
 */
import type { WorkerLog } from '../deliveries/types.js';
import type { Erasure } from './erasure.js';

const BATCH = 100;
const MAX_BATCHES = 50;

export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly erasure: Erasure,
    private readonly retentionMs: number,
    private readonly log: WorkerLog,
    private readonly everyMs = 10_000,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), Math.min(this.everyMs, this.retentionMs));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** Erases what is due, a batch at most; a sweep still running is not started twice. */
  sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        // Batches until one comes back short (a backlog, such as when retention is first turned on).
        let n = 0;
        for (let i = 0; i < MAX_BATCHES; i++) {
          const erased = await this.erasure.sweep(this.retentionMs, BATCH);
          n += erased;
          if (erased < BATCH) break;
        }
        if (n > 0) this.log.info({ erased: n }, 'retention: personal data erased');
      } catch (err) {
        this.log.error({ err }, 'retention sweep failed; the next one tries again');
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }
}
