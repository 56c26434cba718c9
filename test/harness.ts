/**
 * The one harness every HTTP suite uses: starts a real hub (listening on 127.0.0.1:0) on a
 * fresh database, PGlite or PostgreSQL, and tears it down. `eachBackend` runs a suite once
 * per database. PostgreSQL suites get a database of their own (CREATE DATABASE, dropped after);
 * PGlite suites get a copy of a migrated template directory (creating one costs ~3 s).
 * With CI=true an unreachable PostgreSQL fails the run instead of skipping.
 */
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { buildApp, type Hub } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { openPostgres } from '../src/db/postgres.js';
import type { OutboxMessage } from '../src/deliveries/events.js';

export type Backend = 'pglite' | 'postgres';

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROOT = new URL('..', import.meta.url).pathname;

let pgAvailable: Promise<string | null> | undefined;
/** null when PostgreSQL answers, else why not. */
export function postgresProblem(): Promise<string | null> {
  pgAvailable ??= (async () => {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      return null;
    } catch (err) {
      return `PostgreSQL at ${PG_ADMIN_URL} is unreachable: ${(err as Error).message}`;
    } finally {
      await c.end().catch(() => {});
    }
  })();
  return pgAvailable;
}

/**
 * What a suite on `backend` skips for: false on PGlite and when PostgreSQL answers. An unreachable
 * PostgreSQL throws with CI=true (a missing database fails the run); elsewhere its reason is
 * printed and returned, for `describe`'s `skip`.
 */
export async function backendSkip(backend: Backend, suite: string): Promise<string | false> {
  if (backend === 'pglite') return false;
  const problem = await postgresProblem();
  if (!problem) return false;
  if (process.env.CI === 'true') throw new Error(`${problem} (CI=true: a missing database fails)`);
  process.stderr.write(`\n!! SKIPPING ${suite} [postgres]: ${problem}\n`);
  return problem;
}

/** Runs `suite` once per backend, as `name [pglite]` and `name [postgres]`. */
export function eachBackend(
  name: string,
  suite: (ctx: () => TestHub, backend: Backend) => void,
  env: Record<string, string> = {},
) {
  for (const backend of ['pglite', 'postgres'] as const) {
    describe(`${name} [${backend}]`, () => {
      let hub: TestHub | undefined;
      before(async () => {
        if (await backendSkip(backend, name)) return;
        hub = await startHub(backend, env);
      });
      after(async () => {
        await hub?.destroy();
      });
      suite(() => {
        if (!hub) throw new Error('PostgreSQL is not available for this suite');
        return hub;
      }, backend);
    });
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface OrgFixture {
  id: string;
  name: string;
  vaspDid: string;
  apiKey: string;
  webhookSecret: string;
}

export class TestHub {
  url = '';
  /** The TRP listener's address, when the suite set HUB_TRP_PORT. */
  trpUrl = '';
  hub!: Hub;
  db!: Database;
  readonly logs: string[] = [];
  /** HUB_MASTER_KEYS_PREVIOUS of the next `start` (master-key rotation suites change both keys). */
  previousMasterKeys: Buffer[] = [];
  private constructor(
    readonly backend: Backend,
    readonly config: Config,
    readonly adminKey: string,
    public masterKey: Buffer,
    private readonly dropDatabase: () => Promise<void>,
  ) {}

  static async create(backend: Backend, env: Record<string, string>, drop: () => Promise<void>) {
    const adminKey = `trh_admin_${randomBytes(24).toString('base64url')}`;
    const masterKey = randomBytes(32);
    const config = loadConfig({
      HUB_LOG_LEVEL: 'info',
      HUB_RATE_LIMIT: '0',
      HUB_ALLOW_PRIVATE_ENDPOINTS: 'true',
      HUB_RETRY_SCHEDULE: '100ms,100ms,100ms',
      ...env,
      HUB_ADMIN_KEY: adminKey,
      HUB_MASTER_KEY: masterKey.toString('base64'),
      PORT: '0',
    });
    const t = new TestHub(backend, config, adminKey, masterKey, drop);
    try {
      await t.start();
    } catch (err) {
      // Closes what started (the app, the database) and drops the database; the error stands.
      await t.hub?.app.close().catch(() => {});
      await t.db?.close().catch(() => {});
      await drop().catch(() => {});
      throw err;
    }
    return t;
  }

  /** Opens the database and starts listening (again, after `stop`). */
  /** PostgreSQL only: a second hub process's worth (own app, pool and caches) on the same database. */
  async twin(): Promise<TestHub> {
    if (!this.config.databaseUrl) throw new Error('a twin needs PostgreSQL');
    const t = new TestHub(this.backend, this.config, this.adminKey, this.masterKey, async () => {});
    await t.start();
    return t;
  }

  async start() {
    this.db = this.config.databaseUrl
      ? await openPostgres(this.config.databaseUrl, 10)
      : await openPglite(this.config.dataDir);
    await migrate(this.db, { masterKey: this.masterKey, previousMasterKeys: this.previousMasterKeys });
    const logs = this.logs;
    const logStream = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        // DEBUG_HUB_ERRORS=1 shows the hub's errors as they happen (its logs are otherwise only kept).
        if (process.env.DEBUG_HUB_ERRORS && String(chunk).includes('"level":50')) process.stderr.write(chunk);
        cb();
      },
    });
    this.hub = await buildApp({
      config: this.config,
      db: this.db,
      secrets: {
        adminKey: this.adminKey,
        masterKey: this.masterKey,
        previousMasterKeys: this.previousMasterKeys,
        generatedAdminKey: false,
      },
      logStream,
    });
    this.url = await this.hub.app.listen({ port: 0, host: '127.0.0.1' });
    // With HUB_TRP_PORT in the suite's env: the TRP listener too.
    if (this.hub.trp) this.trpUrl = await this.hub.trp.listen('127.0.0.1');
    // The delivery worker runs unless the suite passes HUB_WORKER: 'false'.
    if (this.config.worker) await this.hub.background.start();
  }

  async stop() {
    await this.hub.background.stop();
    await this.hub.app.close();
    await this.db.close();
  }

  async destroy() {
    await this.stop();
    await this.dropDatabase();
  }

  async request<T = any>(
    method: string,
    path: string,
    opts: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key !== null && opts.key !== undefined) headers['x-api-key'] = opts.key;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  admin<T = any>(method: string, path: string, body?: unknown) {
    return this.request<T>(method, path, { key: this.adminKey, body });
  }

  /** Registers an organization through the operator API. */
  async createOrg(fields: Record<string, unknown> = {}): Promise<OrgFixture> {
    const suffix = randomBytes(5).toString('hex');
    const res = await this.admin('POST', '/v1/admin/organizations', {
      name: `VASP ${suffix}`,
      vaspDid: `did:web:vasp-${suffix}.example`,
      ...fields,
    });
    if (res.status !== 201) throw new Error(`createOrg failed: ${res.status} ${res.text}`);
    return {
      id: res.body.organization.id,
      name: res.body.organization.name,
      vaspDid: res.body.organization.vaspDid,
      apiKey: res.body.apiKey,
      webhookSecret: res.body.webhookSecret,
    };
  }

  /**
   * Stands in for the beneficiary's 2xx to `received`: what the worker does when it records that
   * delivery (the delivery suites cover the real path).
   */
  acknowledgeReceived(ref: string): Promise<void> {
    const received = { channel: 'webhook', event: 'received', organizationId: '', transactionRef: ref };
    const message = { ...received, payload: {} } as OutboxMessage;
    return this.db.transaction(async (tx) => {
      const moves = await this.hub.transactions.deliveryOutcomes(tx, [message]);
      await moves([{ message }]);
    });
  }

  allLogs(): string {
    return this.logs.join('');
  }
}

export async function startHub(backend: Backend, env: Record<string, string> = {}): Promise<TestHub> {
  if (backend === 'postgres') {
    const name = `trh_test_${randomBytes(6).toString('hex')}`;
    await pgAdmin(`CREATE DATABASE ${name}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    return TestHub.create(backend, { ...env, DATABASE_URL: url.toString() }, async () => {
      await pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  }
  const dir = mkdtempSync(join(tmpdir(), 'trh-test-'));
  cpSync(await pgliteTemplate(), join(dir, 'pgdata'), { recursive: true });
  return TestHub.create(backend, { ...env, HUB_DATA_DIR: dir }, async () =>
    rmSync(dir, { recursive: true, force: true }),
  );
}

/** One statement on its own connection to the PostgreSQL server (by default its admin database). */
export async function pgAdmin<T extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
  url = PG_ADMIN_URL,
): Promise<T[]> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** A migrated PGlite data directory, made once per migration set and copied per suite. */
async function pgliteTemplate(): Promise<string> {
  const migrations = join(ROOT, 'migrations');
  const hash = createHash('sha256');
  const steps = join(ROOT, 'src', 'db', 'steps');
  for (const dir of [migrations, steps]) {
    for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(join(dir, f)));
  }
  const dir = join(tmpdir(), `trh-pglite-template-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(join(dir, 'pgdata'))) return join(dir, 'pgdata');
  const work = mkdtempSync(join(tmpdir(), 'trh-template-work-'));
  const db = await openPglite(work);
  await migrate(db);
  await db.close();
  try {
    renameSync(work, dir);
  } catch {
    rmSync(work, { recursive: true, force: true }); // another process made it first
  }
  return join(dir, 'pgdata');
}
