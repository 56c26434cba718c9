/**
 * The bench's databases: a fresh one per scenario (a new PostgreSQL database on DATABASE_URL's
 * server, or a PGlite data directory in a temporary directory), each dropped by `settle` before
 * the next scenario or by `dropAll` when the bench ends.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPglite } from '../../src/db/pglite.js';
import { PG_URL } from './options.js';

export interface BenchDatabase {
  /** What a hub or baseline server needs in its environment to use it. */
  env: Record<string, string>;
  /** PostgreSQL only: its connection string. */
  url?: string;
}

const cleanups: (() => Promise<void>)[] = [];

export async function freshDatabase(): Promise<BenchDatabase> {
  if (!PG_URL) {
    const dir = mkdtempSync(join(tmpdir(), 'trh-bench-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return { env: { HUB_DATA_DIR: dir } };
  }
  const name = `trh_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  return { env: { DATABASE_URL: url.toString() }, url: url.toString() };
}

/**
 * Before a scenario is measured, what the ones before it wrote goes away and reaches the disk:
 * their databases (or data directories) are dropped, PostgreSQL writes a checkpoint, and the
 * kernel writes its dirty pages (`sync`). Otherwise the kernel writes the earlier scenarios' data
 * back during the next one, and a large write-back stalls PostgreSQL's commits (each waits for
 * its WAL flush), which then shows in that scenario's latencies instead of the hub's own.
 */
export async function settle(): Promise<void> {
  await dropAll();
  await flush();
}

/** What has been written so far reaches the disk: PostgreSQL's CHECKPOINT, then the kernel's `sync`. */
export async function flush(): Promise<void> {
  if (PG_URL) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query('CHECKPOINT');
    } catch (err) {
      process.stderr.write(`bench: no CHECKPOINT before the next scenario: ${(err as Error).message}\n`);
    } finally {
      await c.end();
    }
  }
  spawnSync('sync');
}

/** Drops every database made so far (a failed drop is ignored: the bench is ending or moving on). */
export async function dropAll(): Promise<void> {
  for (const clean of cleanups.splice(0)) await clean().catch(() => {});
}

/** Queues `count` small `ping` webhooks for one organization straight into the outbox. */
export async function queuePings(db: BenchDatabase, orgId: string, count: number): Promise<void> {
  const sql = `INSERT INTO deliveries (id, message_id, channel, event, organization_id, payload)
    SELECT gen_random_uuid(), 'msg_bench_' || g || '_' || $2, 'webhook', 'ping', $1::uuid,
           jsonb_build_object('type', 'ping', 'organizationId', $1::text, 'seq', g)
      FROM generate_series(1, $3::int) AS g`;
  const params = [orgId, randomBytes(4).toString('hex'), count];
  if (db.url) {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query(sql, params);
    await c.end();
  } else {
    const pgl = await openPglite(db.env.HUB_DATA_DIR);
    await pgl.query(sql, params);
    await pgl.close();
  }
}
