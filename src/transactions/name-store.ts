/** SQL of the customer-name blind index (name-index.ts; migrations 0021 and 0026). */
import type { Queryable } from '../db/database.js';
import { toBuffer } from '../db/database.js';

/**
 * The `name_tokens` column's value from `text`, a SQL expression of the entries as space-separated
 * hex (what name-index.ts makes): NULL when there are none.
 */
export const nameTokensFrom = (text: string): string =>
  `CASE WHEN ${text} IS NULL OR ${text} = '' THEN NULL
        ELSE ARRAY(SELECT decode(tok, 'hex') FROM unnest(string_to_array(${text}, ' ')) AS tok) END`;

/** Transactions stored without index entries (before migration 0021), a page in `ref` order. */
export async function unindexedPage(
  q: Queryable,
  limit: number,
): Promise<{ ref: string; sealedPii: Buffer | null }[]> {
  const rows = await q.query(
    `SELECT ref, sealed_pii FROM transactions WHERE NOT names_indexed ORDER BY ref LIMIT $1
       FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows.map((r) => ({
    ref: r.ref as string,
    sealedPii: r.sealed_pii == null ? null : toBuffer(r.sealed_pii),
  }));
}

/** Writes the entries of these transactions and marks them indexed (erased ones: marked only). */
export async function writeEntries(q: Queryable, rows: { ref: string; entries: string[] }[]): Promise<void> {
  const input = JSON.stringify(rows.map((r) => ({ ref: r.ref, tokens: r.entries.join(' ') })));
  await q.query(
    `UPDATE transactions t SET names_indexed = true,
       name_tokens = ${nameTokensFrom('x.tokens')}
       FROM jsonb_to_recordset($1::jsonb) AS x(ref uuid, tokens text)
      WHERE t.ref = x.ref`,
    [input],
  );
}

/** Drops a transaction's entries, with its personal data (SPEC §14). */
export async function deleteEntries(q: Queryable, ref: string): Promise<void> {
  await q.query('UPDATE transactions SET name_tokens = NULL WHERE ref = $1', [ref]);
}
