/**
 * SQL of master-key rotation: find blobs of a sealed column that the current key did not seal, a
 * keyset page at a time, and swap each for its re-sealed copy only if nobody changed it meanwhile.
 * Table and column names come from SEALED_COLUMNS (constants), never from input.
 */
import type { Queryable } from '../db/database.js';
import { toBuffer } from '../db/database.js';
import type { SealedColumn } from './sealed.js';

/** Which blobs a page takes: all not sealed under the current key, or only those without a key id. */
export type Scope = 'stale' | 'legacy';

function staleClause(c: SealedColumn, scope: Scope): string {
  const col = c.column;
  return scope === 'legacy'
    ? `${col} IS NOT NULL AND get_byte(${col}, 0) = 1`
    : `${col} IS NOT NULL AND NOT (get_byte(${col}, 0) = 2 AND substring(${col} from 2 for 8) = $1)`;
}

/** How many blobs of the column are still to re-seal. */
export async function countStale(
  q: Queryable,
  c: SealedColumn,
  currentId: Buffer,
  scope: Scope,
): Promise<number> {
  const rows = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${c.table} WHERE ${staleClause(c, scope)}`,
    scope === 'legacy' ? [] : [currentId],
  );
  return rows[0]!.n;
}

export interface StaleRow {
  key: string[];
  fields: string[];
  blob: Buffer;
}

/** The next page of blobs to re-seal after the key `after`, locked until the transaction ends. */
export async function stalePage(
  q: Queryable,
  c: SealedColumn,
  currentId: Buffer,
  scope: Scope,
  after: readonly string[] | undefined,
  limit: number,
): Promise<StaleRow[]> {
  const params: unknown[] = scope === 'legacy' ? [] : [currentId];
  let where = staleClause(c, scope);
  if (after) {
    const at = after.map((v) => {
      params.push(v);
      return `$${params.length}`;
    });
    where += ` AND (${c.key.join(', ')}) > (${at.join(', ')})`;
  }
  params.push(limit);
  const keys = c.key.map((k, i) => `${k}::text AS k${i}`);
  const fields = c.fields.map((f, i) => `${f}::text AS f${i}`);
  const rows = await q.query(
    `SELECT ${[...keys, ...fields].join(', ')}, ${c.column} AS blob FROM ${c.table}
      WHERE ${where} ORDER BY ${c.key.join(', ')} LIMIT $${params.length} FOR UPDATE`,
    params,
  );
  return rows.map((r) => ({
    key: c.key.map((_, i) => String(r[`k${i}`])),
    fields: c.fields.map((_, i) => String(r[`f${i}`])),
    blob: toBuffer(r.blob),
  }));
}

/** Puts the re-sealed blob in place of the one read; false when the row changed meanwhile. */
export async function replaceBlob(
  q: Queryable,
  c: SealedColumn,
  key: readonly string[],
  old: Buffer,
  fresh: Buffer,
): Promise<boolean> {
  const match = c.key.map((k, i) => `${k} = $${i + 3}`).join(' AND ');
  const rows = await q.query(
    `UPDATE ${c.table} SET ${c.column} = $1 WHERE ${c.column} = $2 AND ${match} RETURNING 1 AS ok`,
    [fresh, old, ...key],
  );
  return rows.length === 1;
}
