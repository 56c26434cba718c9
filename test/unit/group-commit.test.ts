import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupCommit } from '../../src/db/group-commit.js';

/** A write that records its batches and finishes only when the test lets it. */
function controlledWrite(fail: (items: number[]) => boolean = () => false) {
  const batches: number[][] = [];
  const pending: (() => void)[] = [];
  let active = 0;
  let mostActive = 0;
  const write = (items: number[]) => {
    batches.push(items);
    active++;
    mostActive = Math.max(mostActive, active);
    return new Promise<void>((resolve, reject) => {
      pending.push(() => {
        active--;
        if (fail(items)) reject(new Error(`bad batch ${items.join(',')}`));
        else resolve();
      });
    });
  };
  const finishNext = async () => {
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    pending.shift()!();
  };
  return { write, batches, finishNext, mostActive: () => mostActive };
}

describe('GroupCommit', () => {
  it('writes what was submitted in one turn as one batch', async () => {
    const w = controlledWrite();
    const gc = new GroupCommit(w.write, { maxBatch: 10 });
    const done = [1, 2, 3].map((i) => gc.submit(i));
    await w.finishNext();
    await Promise.all(done);
    assert.deepEqual(w.batches, [[1, 2, 3]]);
  });

  it('writes one batch at a time; what arrives meanwhile goes out together next', async () => {
    const w = controlledWrite();
    const gc = new GroupCommit(w.write, { maxBatch: 10 });
    const first = gc.submit(1);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(w.batches, [[1]]);
    const later = [2, 3, 4].map((i) => gc.submit(i));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(w.batches, [[1]], 'nothing starts while a batch is being written');
    await w.finishNext();
    await first;
    await w.finishNext();
    await Promise.all(later);
    assert.deepEqual(w.batches, [[1], [2, 3, 4]]);
    assert.equal(w.mostActive(), 1);
  });

  it('splits a queue longer than maxBatch', async () => {
    const w = controlledWrite();
    const gc = new GroupCommit(w.write, { maxBatch: 2 });
    const done = [1, 2, 3, 4, 5].map((i) => gc.submit(i));
    for (let i = 0; i < 3; i++) await w.finishNext();
    await Promise.all(done);
    assert.deepEqual(w.batches, [[1, 2], [3, 4], [5]]);
  });

  it('retries a failed batch row by row, so only the bad row fails', async () => {
    const w = controlledWrite((items) => items.includes(2));
    const gc = new GroupCommit(w.write, { maxBatch: 10 });
    const results = [1, 2, 3].map((i) =>
      gc.submit(i).then(
        () => 'ok',
        (err: Error) => err.message,
      ),
    );
    for (let i = 0; i < 4; i++) await w.finishNext();
    assert.deepEqual(await Promise.all(results), ['ok', 'bad batch 2', 'ok']);
    assert.deepEqual(w.batches, [[1, 2, 3], [1], [2], [3]]);
  });
});

describe('GroupCommit: which goes first when a batch is written', () => {
  /** Batch [1] is written while 2 and 3 queue; returns the order of what happens after [1] commits. */
  async function orderAfterFirstCommit(nextFirst: boolean) {
    const events: string[] = [];
    let finishFirst!: () => void;
    const write = (items: number[]) => {
      events.push(`write ${items.join(',')}`);
      if (items[0] !== 1) return Promise.resolve();
      return new Promise<void>((resolve) => {
        finishFirst = resolve;
      });
    };
    const gc = new GroupCommit(write, { maxBatch: 10, nextFirst });
    const first = gc.submit(1).then(() => events.push('caller 1 continues'));
    await new Promise((r) => setImmediate(r));
    const later = [2, 3].map((i) => gc.submit(i));
    await new Promise((r) => setImmediate(r));
    events.length = 0;
    finishFirst();
    await Promise.all([first, ...later]);
    return events;
  }

  it('nextFirst (a database server): the next batch is sent before the callers continue', async () => {
    assert.deepEqual(await orderAfterFirstCommit(true), ['write 2,3', 'caller 1 continues']);
  });

  it('without it (an in-process database): the callers continue first', async () => {
    assert.deepEqual(await orderAfterFirstCommit(false), ['caller 1 continues', 'write 2,3']);
  });
});
