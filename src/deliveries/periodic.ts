/**
 * A job that every process running a delivery worker repeats on a timer (expiry, retention,
 * endpoint-down notices): one run at a time (a tick while a run is going is skipped), a failed run
 * is logged and the next tick tries again, and stop waits for the run in progress.
 */
import type { WorkerLog } from './types.js';

export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    /** What the log calls it when a run fails. */
    private readonly name: string,
    private readonly everyMs: number,
    private readonly log: WorkerLog,
    private readonly run: () => Promise<void>,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One run now, unless one is going: resolves when that run ends. */
  runOnce(): Promise<void> {
    this.running ??= this.run()
      .catch((err) => this.log.error({ err }, `${this.name} failed; the next one tries again`))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}
