/**
 * Group commit: concurrent callers' rows are written by one statement instead of one each.
 * A flush starts on the next turn of the event loop (setImmediate), after every request
 * whose bytes already arrived has been parsed and has submitted its row. One batch is written
 * at a time: what arrives meanwhile queues and goes out together as the next batch, so under
 * load batches grow with the rate instead of splitting it between statements running side by
 * side (each statement and its commit cost the database a fixed amount, whatever its rows).
 * A lone request waits for nothing but that one turn. A failed batch is retried row by row,
 * so a bad row fails only its caller.
 */
export class GroupCommit<T> {
  private readonly queue: { item: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private writing = false;
  private scheduled = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: {
      maxBatch: number;
      /**
       * Send the next batch before this one's callers continue. Right for a database server: it
       * works on the next batch while this process answers. Wrong for an in-process one, which
       * would run the next batch on this thread before anyone is answered.
       */
      nextFirst?: boolean;
    },
  ) {}

  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump() {
    if (this.writing || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    this.writing = true;
    void this.flush(batch);
  }

  private async flush(batch: typeof this.queue) {
    try {
      await this.write(batch.map((b) => b.item));
    } catch (err) {
      await this.retryAlone(batch, err);
      this.writing = false;
      this.pump();
      return;
    }
    this.writing = false;
    if (!this.options.nextFirst) {
      for (const b of batch) b.resolve();
      // Queued after the callers' continuations: they answer before the next batch runs.
      queueMicrotask(() => this.pump());
      return;
    }
    // The callers' continuations (answers to serialize and write) would otherwise run first and
    // keep the server waiting. The write reaches its driver synchronously, and a driver that
    // sends on process.nextTick (pg-pool hands over a connection that way) has queued its tick
    // before the one that resolves the callers here.
    this.pump();
    process.nextTick(() => {
      for (const b of batch) b.resolve();
    });
  }

  private async retryAlone(batch: typeof this.queue, err: unknown) {
    if (batch.length === 1) {
      batch[0]!.reject(err);
      return;
    }
    for (const b of batch) {
      try {
        await this.write([b.item]);
        b.resolve();
      } catch (single) {
        b.reject(single);
      }
    }
  }
}
