/**
 * Data step 0017: operator names become unique among active operators after NFKC normalisation
 * and case folding (SPEC §13), so that `alice`, `ALICE` and `ａｌｉｃｅ` name one person in the
 * audit. The key (`name_key`) is computed by the hub (text/formats.ts), not by SQL, whose lower()
 * depends on the database's locale; this step adds the column, fills it for the operators there
 * are, and moves the uniqueness onto it. Active operators whose names collide in the new form
 * (possible only before this step) keep their keys: all but the oldest get their id appended.
 */
import { nameKey } from '../../text/formats.js';
import type { Queryable } from '../database.js';

export async function keyOperatorNames(tx: Queryable): Promise<void> {
  await tx.exec('ALTER TABLE operators ADD COLUMN name_key text');
  const rows = await tx.query<{ id: string; name: string; active: boolean }>(
    'SELECT id, name, revoked_at IS NULL AS active FROM operators ORDER BY created_at, id',
  );
  const taken = new Set<string>();
  for (const { id, name, active } of rows) {
    let key = nameKey(name);
    if (active && taken.has(key)) key = `${key}#${id}`;
    if (active) taken.add(key);
    await tx.query('UPDATE operators SET name_key = $2 WHERE id = $1', [id, key]);
  }
  await tx.exec(`
    ALTER TABLE operators ALTER COLUMN name_key SET NOT NULL;
    DROP INDEX operators_active_name_idx;
    CREATE UNIQUE INDEX operators_active_name_key_idx ON operators (name_key) WHERE revoked_at IS NULL;
  `);
}
