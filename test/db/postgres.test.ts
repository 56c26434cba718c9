/**
 * The PostgreSQL storage layer when the server drops its connections (a restart, a failover,
 * `pg_terminate_backend`, a proxy's idle cut): the process survives, a cut transaction fails on
 * its own, and a LISTEN subscription comes back by itself and says it may have missed something.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { openPostgres } from '../../src/db/postgres.js';
import { pgAdmin as admin, backendSkip, PG_ADMIN_URL } from '../harness.js';
import { eventually } from '../support/receiver.js';

describe('PostgreSQL connections lost under the hub', {
  skip: await backendSkip('postgres', 'PostgreSQL connections lost under the hub'),
}, () => {
  const name = `trh_conn_${randomBytes(6).toString('hex')}`;
  let db: Database;
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;

  /** Ends every other connection to the test database, as a server restart would. */
  const terminateAll = () =>
    admin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [name],
    );
  const listening = async (channel: string) =>
    (
      await admin<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query = $2`,
        [name, `LISTEN ${channel}`],
      )
    )[0]!.n;

  before(async () => {
    await admin(`CREATE DATABASE ${name}`);
    db = await openPostgres(url.toString(), 4);
    await db.exec('CREATE TABLE t (n int)');
  });
  after(async () => {
    await db?.close().catch(() => {});
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  });

  it('fails a transaction whose connection is cut between statements, and keeps working', async () => {
    const cut = db.transaction(async (tx) => {
      await tx.query('INSERT INTO t VALUES ($1)', [1]);
      const [{ pid }] = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')) as [
        { pid: number },
      ];
      await admin('SELECT pg_terminate_backend($1)', [pid]);
      // The connection is idle while this callback awaits: pg reports the loss as an 'error'
      // event, which used to be unhandled and end the process.
      await new Promise((r) => setTimeout(r, 300));
      await tx.query('INSERT INTO t VALUES ($1)', [2]);
    });
    await assert.rejects(cut, /terminat|Connection terminated|not queryable/i);
    const rows = await db.query<{ n: number }>('SELECT n FROM t');
    assert.deepEqual(rows, [], 'nothing of the cut transaction committed');
    await db.transaction((tx) => tx.query('INSERT INTO t VALUES ($1)', [3]));
    assert.deepEqual(await db.query('SELECT n FROM t'), [{ n: 3 }]);
  });

  it('restores a LISTEN whose connection was cut and tells the subscriber, then delivers NOTIFY again', async () => {
    let calls = 0;
    const unlisten = await db.listen('trh_test', () => {
      calls++;
    });
    try {
      await db.query(`SELECT pg_notify('trh_test', '')`);
      await eventually(() => calls === 1, 'the first notification');

      await terminateAll();
      // Called when the connection drops (notifications may be lost from here on) and again
      // once a new connection listens.
      await eventually(() => calls >= 3, 'the subscriber told of the loss and of the new subscription');
      await eventually(async () => (await listening('trh_test')) === 1, 'LISTEN on a new connection');

      const before = calls;
      await db.query(`SELECT pg_notify('trh_test', '')`);
      await eventually(() => calls === before + 1, 'a notification after the reconnection');
    } finally {
      await unlisten();
    }
    assert.equal(await listening('trh_test'), 0, 'unlisten released the connection');
  });

  it('keeps retrying while the database refuses connections, and stops when unsubscribed', async () => {
    let calls = 0;
    const unlisten = await db.listen('trh_retry', () => {
      calls++;
    });
    await admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
    try {
      await terminateAll();
      await eventually(() => calls >= 1, 'the subscriber told of the loss');
      await new Promise((r) => setTimeout(r, 1200)); // several refused attempts
      assert.equal(await listening('trh_retry'), 0);
    } finally {
      await admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`);
    }
    await eventually(
      async () => (await listening('trh_retry')) === 1,
      'LISTEN once connections are allowed',
      20_000,
    );
    await unlisten();
    const settled = calls;
    await terminateAll();
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(calls, settled, 'no call after unlisten');
    assert.equal(await listening('trh_retry'), 0);
  });
});
