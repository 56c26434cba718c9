/**
 * Forward-only migrations, applied in order in one transaction (all or none), each recorded in
 * `schema_migrations`. Most are `migrations/NNNN_name.sql`, the same files on PGlite and
 * PostgreSQL; a few are data steps in code (steps/), for changes SQL cannot make alone (sealing
 * stored data needs the master key). Both kinds share one numbering. An advisory lock keeps two
 * processes starting at once from applying the same migration twice.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Database, Queryable } from './database.js';
import { sealReasons } from './steps/0008_seal_reasons.js';
import { linkAuditRows } from './steps/0015_audit_links.js';
import { addKeyIds } from './steps/0016_reseal_key_ids.js';
import { keyOperatorNames } from './steps/0017_operator_name_keys.js';

const DIR = new URL('../../migrations/', import.meta.url);
const LOCK_ID = 7_202_611; // arbitrary constant shared by every hub process

export interface MigrateOptions {
  /** For data steps that seal stored data; a step that needs it and finds data fails without it. */
  masterKey?: Buffer;
  /** HUB_MASTER_KEYS_PREVIOUS, for data steps that open what older keys sealed. */
  previousMasterKeys?: readonly Buffer[];
}

type Step = { name: string; run: (tx: Queryable, options: MigrateOptions) => Promise<void> };

const CODE_STEPS: Step[] = [
  { name: '0008_seal_reasons', run: (tx, o) => sealReasons(tx, o.masterKey) },
  { name: '0015_audit_links', run: (tx) => linkAuditRows(tx) },
  { name: '0017_operator_name_keys', run: (tx) => keyOperatorNames(tx) },
  { name: '0016_reseal_key_ids', run: (tx, o) => addKeyIds(tx, o.masterKey, o.previousMasterKeys) },
];

function steps(): Step[] {
  const sql = readdirSync(DIR)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .map((file): Step => ({ name: file, run: (tx) => tx.exec(readFileSync(new URL(file, DIR), 'utf8')) }));
  return [...sql, ...CODE_STEPS].sort((a, b) => a.name.localeCompare(b.name));
}

export async function migrate(db: Database, options: MigrateOptions = {}): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name),
    );
    const applied: string[] = [];
    for (const step of steps()) {
      if (done.has(step.name)) continue;
      await step.run(tx, options);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [step.name]);
      applied.push(step.name);
    }
    return applied;
  });
}
