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
    private readonly options: { maxBatch: number },
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
    this.flush(batch).finally(() => {
      this.writing = false;
      this.pump();
    });
  }

  private async flush(batch: typeof this.queue) {
    try {
      await this.write(batch.map((b) => b.item));
      for (const b of batch) b.resolve();
    } catch (err) {
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
}
