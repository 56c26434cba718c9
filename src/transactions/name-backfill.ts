/**
 * Indexes the customer names of transactions stored before the blind index existed (migration
 * 0021 marks them `names_indexed = false`): at start, batch by batch with a pause between
 * batches, each batch in its own database transaction (rows another hub holds are skipped).
 * Stopping the hub stops it between batches; the next start continues with what is left.
 */
import type { FastifyBaseLogger } from 'fastify';
import { openPii, type SealingKeys } from '../crypto/envelope.js';
import type { Database } from '../db/database.js';
import { normalise } from '../ivms101/message.js';
import type { NameIndex } from './name-index.js';
import { unindexedPage, writeEntries } from './name-store.js';

export class NameBackfill {
  #abort = new AbortController();
  #run: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly keys: SealingKeys,
    private readonly names: NameIndex,
    private readonly log: FastifyBaseLogger,
    private readonly o: { batchSize: number; pauseMs: number },
  ) {}

  start(): void {
    if (this.#run) return;
    this.#abort = new AbortController();
    this.#run = this.loop().catch((err: Error) => {
      this.log.error({ err, component: 'name-index' }, 'indexing customer names stopped');
    });
  }

  /** Stops between batches and waits for the batch in hand. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#run;
    this.#run = undefined;
  }

  /** One batch; the number of transactions it indexed. */
  async batch(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const page = await unindexedPage(tx, this.o.batchSize);
      if (page.length === 0) return 0;
      await writeEntries(
        tx,
        page.map((row) => ({
          ref: row.ref,
          entries: row.sealedPii ? this.entries(row.ref, row.sealedPii) : [],
        })),
      );
      return page.length;
    });
  }

  private entries(ref: string, sealed: Buffer): string[] {
    const stored: unknown = JSON.parse(openPii(this.keys, ref, sealed));
    return this.names.entriesOf(normalise(stored).message);
  }

  private async loop(): Promise<void> {
    let done = 0;
    while (!this.#abort.signal.aborted) {
      const n = await this.batch();
      if (n === 0) break;
      done += n;
      this.log.info({ component: 'name-index', done }, 'indexed customer names of stored transactions');
      await new Promise((resolve) => setTimeout(resolve, this.o.pauseMs));
    }
  }
}
