/**
 * PostgreSQL through a node-postgres pool, for production and scale-out: several API and
 * worker processes share one database; nothing correctness-relevant lives in process memory.
 *
 * Parameterized statements run as named prepared statements: each connection parses and plans
 * a statement once and then only binds and executes it. The hub's SQL is a fixed set of texts,
 * so the names are too; the cap only guards against a caller that builds SQL per call.
 */
import pg from 'pg';
import { type Database, finalStepsOf, isStaleStatement, type Queryable, type Row } from './database.js';

export async function openPostgres(url: string, max = 20): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => {
    // an idle client lost its connection; the pool replaces it on next use
  });
  const client = await pool.connect(); // fail fast when the server is unreachable
  client.release();
  // A stale statement gets a new name, which every connection prepares afresh; outside a
  // transaction it runs again at once (in one, the error has aborted the transaction anyway).
  const wrap = (q: pg.Pool | pg.PoolClient, retryStale: boolean): Queryable => ({
    async query<T extends Row>(sql: string, params?: readonly unknown[]) {
      const values = params as unknown[] | undefined;
      const run = async () => {
        const name = values?.length ? statementName(sql) : undefined;
        return (await q.query<T>(name ? { name, text: sql, values } : { text: sql, values })).rows;
      };
      try {
        return await run();
      } catch (err) {
        if (!isStaleStatement(err) || !statementNames.delete(sql) || !retryStale) throw err;
        return run();
      }
    },
    async exec(sql: string) {
      await q.query(sql);
    },
  });
  const root = wrap(pool, true);
  return {
    kind: 'postgres',
    query: root.query,
    exec: root.exec,
    async transaction(fn) {
      const c = await pool.connect();
      // pg-pool watches only idle clients: a connection lost while checked out would emit an
      // unhandled 'error' and end the process. The failed statement rejects on its own.
      let lost: Error | undefined;
      const onLost = (err: Error) => {
        lost = err;
      };
      c.on('error', onLost);
      try {
        await c.query('BEGIN');
        const tx = wrap(c, false);
        const finish = finalStepsOf(tx);
        const result = await fn(tx);
        await finish();
        await c.query('COMMIT');
        return result;
      } catch (err) {
        if (!lost) await c.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        c.off('error', onLost);
        c.release(lost); // a broken connection is discarded, not reused
      }
    },
    listen: (channel, onNotify) => listenWithRetry(pool, channel, onNotify),
    close: () => pool.end(),
  };
}

const RELISTEN_MIN_MS = 500;
const RELISTEN_MAX_MS = 30_000;

/**
 * LISTEN on a connection of its own that outlives a lost connection (a server restart, a
 * terminated backend, a proxy's idle cut): it is replaced, with growing pauses while the
 * server stays unreachable. Notifications sent meanwhile are lost, so the subscriber is
 * called when the connection drops and again once it listens anew, as if something changed.
 */
async function listenWithRetry(
  pool: pg.Pool,
  channel: string,
  onNotify: () => void,
): Promise<() => Promise<void>> {
  if (!/^[a-z_]+$/.test(channel)) throw new Error('invalid channel name');
  let current: { c: pg.PoolClient; drop: (err: Error) => void } | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let pauseMs = RELISTEN_MIN_MS;
  const onMessage = (msg: pg.Notification) => {
    if (msg.channel === channel) onNotify();
  };

  const connect = async () => {
    const c = await pool.connect();
    let dropped = false;
    // Stays attached for the client's life: a broken client may report more than one error.
    const drop = (err: Error) => {
      if (dropped) return;
      dropped = true;
      c.off('notification', onMessage);
      c.release(err); // discarded by the pool
      if (current?.c !== c) return;
      current = undefined;
      if (stopped) return;
      onNotify();
      scheduleRetry();
    };
    c.on('error', drop);
    c.on('notification', onMessage);
    try {
      await c.query(`LISTEN ${channel}`);
    } catch (err) {
      drop(err as Error);
      throw err;
    }
    if (dropped) throw new Error('connection lost while subscribing');
    current = { c, drop };
  };

  const scheduleRetry = () => {
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        () => {
          pauseMs = RELISTEN_MIN_MS;
          if (stopped) return unlisten();
          onNotify(); // whatever was sent while no connection listened
        },
        () => {
          pauseMs = Math.min(pauseMs * 2, RELISTEN_MAX_MS);
          if (!stopped) scheduleRetry();
        },
      );
    }, pauseMs);
    retry.unref();
  };

  const unlisten = async () => {
    const sub = current;
    current = undefined;
    if (!sub) return;
    sub.c.off('notification', onMessage);
    try {
      await sub.c.query(`UNLISTEN ${channel}`);
    } catch (err) {
      sub.drop(err as Error);
      return;
    }
    sub.c.off('error', sub.drop);
    sub.c.release();
  };

  await connect(); // the first failure is the caller's to handle
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await unlisten();
  };
}

const MAX_NAMED = 200;
const statementNames = new Map<string, string>();
let nextName = 0;

/** A stable name per statement text (node-postgres prepares it once per connection), or none past the cap. */
function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED) {
    name = `hub_${nextName++}`;
    statementNames.set(sql, name);
  }
  return name;
}
