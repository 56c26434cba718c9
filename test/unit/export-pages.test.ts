/** exportPages (transactions/csv.ts): the keyset walk every CSV export reads its rows by. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type After, exportPages } from '../../src/transactions/csv.js';

/** A keyset-paged table of `n` rows, newest first, and the reads made of it. */
function table(n: number) {
  const rows = Array.from({ length: n }, (_, i) => ({
    ref: `r${String(n - i).padStart(5, '0')}`,
    cursorAt: `2026-11-28T00:00:00.${String(n - i).padStart(6, '0')}Z`,
  }));
  const reads: (After | undefined)[] = [];
  const read = async (after: After | undefined, limit: number) => {
    reads.push(after);
    const from = after ? rows.findIndex((r) => r.ref === after.ref) + 1 : 0;
    return rows.slice(from, from + limit);
  };
  return { rows, reads, read };
}

async function collect(n: number) {
  const t = table(n);
  const pages: number[] = [];
  const seen: string[] = [];
  for await (const page of exportPages(t.read)) {
    pages.push(page.length);
    seen.push(...page.map((r) => r.ref));
  }
  return { ...t, pages, seen };
}

it('walks every row once, in order, a page of 500 at a time, each page after the last row of the one before', async () => {
  const { rows, reads, pages, seen } = await collect(1201);
  assert.deepEqual(pages, [500, 500, 201]);
  assert.deepEqual(
    seen,
    rows.map((r) => r.ref),
  );
  assert.deepEqual(reads, [
    undefined,
    { createdAt: rows[499]!.cursorAt, ref: rows[499]!.ref },
    { createdAt: rows[999]!.cursorAt, ref: rows[999]!.ref },
  ]);
});

it('stops after an empty read when the rows fill the last page exactly, and yields no empty page', async () => {
  const { pages, reads } = await collect(1000);
  assert.deepEqual(pages, [500, 500]);
  assert.equal(reads.length, 3);
  assert.deepEqual((await collect(0)).pages, []);
});
