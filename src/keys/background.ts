/**
 * Re-sealing inside the serving hub (SPEC §14), for the embedded database: only one process may
 * open its data directory, so `travel-rule-hub rekey` cannot run beside the hub there. A hub on the
 * embedded database that starts with HUB_MASTER_KEYS_PREVIOUS re-seals what older keys sealed in
 * the background, batch by batch with a pause between batches, logging its progress, and
 * `GET /v1/admin/rekey` shows where it is. Stopping the hub stops it between batches; the next
 * start continues with what is left (committed batches carry the new key id).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { KeyRing } from '../crypto/envelope.js';
import type { Database } from '../db/database.js';
import { type RekeyProgress, rekey } from './rekey.js';

export interface RekeyStatus {
  /** The key everything is being re-sealed under. */
  keyId: string;
  /** idle: not needed (no previous key) or not run by this process (PostgreSQL: the CLI does it). */
  state: 'idle' | 'running' | 'done' | 'stopped' | 'failed';
  done: number;
  total: number;
  /** Why it failed: which column and row, and the key id no configured key matches. */
  error: string | null;
}

export class BackgroundRekey {
  #status: RekeyStatus;
  #abort = new AbortController();
  #run: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly keys: KeyRing,
    private readonly log: FastifyBaseLogger,
    private readonly o: { batchSize: number; pauseMs: number },
  ) {
    this.#status = { keyId: keys.currentId, state: 'idle', done: 0, total: 0, error: null };
  }

  status(): RekeyStatus {
    return { ...this.#status };
  }

  /** Starts re-sealing unless it runs already or there is no previous key. */
  start(): void {
    if (this.#run || this.keys.ids().length < 2) return;
    this.#abort = new AbortController();
    this.#status = { ...this.#status, state: 'running', error: null };
    const log = this.log.child({ component: 'rekey' });
    const progress = (p: RekeyProgress) => {
      this.#status = { ...this.#status, done: p.done, total: p.total };
      log.info(
        { keyId: this.keys.currentId, done: p.done, total: p.total },
        're-sealing under the current key',
      );
    };
    this.#run = rekey({
      transaction: (fn) => this.db.transaction(fn),
      keys: this.keys,
      batchSize: this.o.batchSize,
      pauseMs: this.o.pauseMs,
      signal: this.#abort.signal,
      onProgress: progress,
    }).then(
      (p) => {
        progress(p);
        this.#status.state = this.#abort.signal.aborted && p.done < p.total ? 'stopped' : 'done';
      },
      (err: Error) => {
        this.#status = { ...this.#status, state: 'failed', error: err.message };
        log.error({ err }, 're-sealing stopped');
      },
    );
  }

  /** Stops between batches and waits for the batch in hand. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#run;
    this.#run = undefined;
  }
}
