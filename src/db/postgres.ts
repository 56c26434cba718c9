/**
 * PostgreSQL through a node-postgres pool, for production and scale-out: several API and
 * worker processes share one database; nothing correctness-relevant lives in process memory.
 *
 * Parameterized statements run as named prepared statements: each connection parses and plans
 * a statement once and then only binds and executes it. The hub's SQL is a fixed set of texts,
 * so the names are too; the cap only guards against a caller that builds SQL per call.
 */
import pg from 'pg';
import type { Database, Queryable, Row } from './database.js';

export async function openPostgres(url: string, max = 20): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => {
    // an idle client lost its connection; the pool replaces it on next use
  });
  const client = await pool.connect(); // fail fast when the server is unreachable
  client.release();
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T extends Row>(sql: string, params?: readonly unknown[]) {
      const values = params as unknown[] | undefined;
      const name = values?.length ? statementName(sql) : undefined;
      const res = await q.query<T>(name ? { name, text: sql, values } : { text: sql, values });
      return res.rows;
    },
    async exec(sql: string) {
      await q.query(sql);
    },
  });
  const root = wrap(pool);
  return {
    kind: 'postgres',
    query: root.query,
    exec: root.exec,
    async transaction(fn) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const result = await fn(wrap(c));
        await c.query('COMMIT');
        return result;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        c.release();
      }
    },
    async listen(channel, onNotify) {
      if (!/^[a-z_]+$/.test(channel)) throw new Error('invalid channel name');
      const c = await pool.connect();
      const handler = (msg: pg.Notification) => {
        if (msg.channel === channel) onNotify();
      };
      c.on('notification', handler);
      await c.query(`LISTEN ${channel}`);
      return async () => {
        c.off('notification', handler);
        await c.query(`UNLISTEN ${channel}`).catch(() => {});
        c.release();
      };
    },
    close: () => pool.end(),
  };
}

const MAX_NAMED = 200;
const statementNames = new Map<string, string>();

/** A stable name per statement text (node-postgres prepares it once per connection), or none past the cap. */
function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED) {
    name = `hub_${statementNames.size}`;
    statementNames.set(sql, name);
  }
  return name;
}
