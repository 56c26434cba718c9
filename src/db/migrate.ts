/**
 * Forward-only migrations: `migrations/NNNN_name.sql`, applied in order in one transaction
 * (all or none), each recorded in `schema_migrations`. The same files run on PGlite and PostgreSQL.
 * An advisory lock keeps two processes starting at once from applying the same file twice.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Database } from './database.js';

const DIR = new URL('../../migrations/', import.meta.url);
const LOCK_ID = 7_202_611; // arbitrary constant shared by every hub process

export async function migrate(db: Database): Promise<string[]> {
  const files = readdirSync(DIR)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name),
    );
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = readFileSync(new URL(file, DIR), 'utf8');
      await tx.exec(sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
}
