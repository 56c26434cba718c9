/**
 * Master-key rotation (SPEC §14): re-seals every blob that the current master key did not seal,
 * column by column (SEALED_COLUMNS), a batch per database transaction, while the hub serves.
 *
 * Invariants:
 * - A blob is replaced only if it is still the one read (compare and set) and its rows are locked
 *   meanwhile, so a concurrent change (a new decline reason, an erasure) is never overwritten.
 * - Work done is committed batch by batch and is recognisable by its key id, so a rekey that is
 *   killed simply runs again: the next run finds only what is left.
 * - A blob that no configured key opens stops the run with the key id it names: nothing is lost,
 *   the operator adds the missing key to HUB_MASTER_KEYS_PREVIOUS and runs again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EnvelopeError, type KeyRing, openPii, sealPii } from '../crypto/envelope.js';
import type { Queryable } from '../db/database.js';
import { SEALED_COLUMNS, type SealedColumn } from './sealed.js';
import * as store from './store.js';

export interface RekeyProgress {
  /** Blobs re-sealed so far (or found already re-sealed by someone else). */
  done: number;
  /** Blobs to re-seal when the run began. */
  total: number;
}

export interface RekeyOptions {
  /** Runs one batch in a database transaction (the database's, or the migration's own). */
  transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>;
  keys: KeyRing;
  batchSize?: number;
  /** A pause between batches, to spare a busy hub. */
  pauseMs?: number;
  /** 'legacy' re-seals only blobs from before key ids (migration 0016). */
  scope?: store.Scope;
  onProgress?: (p: RekeyProgress) => void;
  /** Stops the run between batches (what is committed stays; the next run continues). */
  signal?: AbortSignal;
  /** The columns to walk (SEALED_COLUMNS by default; a migration step names those that existed at its time). */
  columns?: readonly SealedColumn[];
}

export class RekeyError extends Error {
  override name = 'RekeyError';
}

/** Re-seals what is left under older keys; resolves to the progress at the end. */
export async function rekey(o: RekeyOptions): Promise<RekeyProgress> {
  const scope = o.scope ?? 'stale';
  const currentId = Buffer.from(o.keys.currentId, 'hex');
  const batchSize = o.batchSize ?? 200;
  const progress = { done: 0, total: 0 };
  const columns = o.columns ?? SEALED_COLUMNS;
  await o.transaction(async (tx) => {
    for (const c of columns) progress.total += await store.countStale(tx, c, currentId, scope);
  });
  o.onProgress?.({ ...progress });
  for (const c of columns) {
    let after: string[] | undefined;
    for (;;) {
      if (o.signal?.aborted) return progress;
      const page = await o.transaction(async (tx) => {
        const rows = await store.stalePage(tx, c, currentId, scope, after, batchSize);
        for (const row of rows) await store.replaceBlob(tx, c, row.key, row.blob, reseal(o.keys, c, row));
        return rows;
      });
      if (page.length === 0) break;
      after = page[page.length - 1]!.key;
      progress.done = Math.min(progress.total, progress.done + page.length);
      o.onProgress?.({ ...progress });
      if (page.length < batchSize) break;
      if (o.pauseMs) await sleep(o.pauseMs, undefined, { signal: o.signal }).catch(() => {});
    }
  }
  return progress;
}

function reseal(keys: KeyRing, c: SealedColumn, row: store.StaleRow): Buffer {
  const context = c.context(row.fields);
  try {
    return sealPii(keys, context, openPii(keys, context, row.blob));
  } catch (err) {
    if (err instanceof EnvelopeError) {
      throw new RekeyError(
        `${c.table}.${c.column} (${c.key.join(', ')} = ${row.key.join(', ')}): ${err.message}`,
      );
    }
    throw err;
  }
}
