/**
 * The storage layer's statements, on both drivers: values of every type the stores use come
 * back as the stores expect, a failed statement fails alone (or takes its transaction with it),
 * and a statement runs correctly however often it is reused. Both drivers run parameterized
 * statements as named prepared statements; PGlite's layer is the hub's own (src/db/pglite.ts).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Database, isStaleStatement, isUniqueViolation } from '../../src/db/database.js';
import { openPglite } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';
import { pgAdmin as admin, backendSkip, PG_ADMIN_URL } from '../harness.js';

for (const kind of ['pglite', 'postgres'] as const) {
  describe(`storage statements [${kind}]`, { skip: await backendSkip(kind, 'storage statements') }, () => {
    let db: Database;
    let drop = async () => {};
    before(async () => {
      if (kind === 'pglite') {
        db = await openPglite(undefined);
      } else {
        const name = `trh_stmt_${randomBytes(6).toString('hex')}`;
        await admin(`CREATE DATABASE ${name}`);
        drop = async () => {
          await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        };
        const url = new URL(PG_ADMIN_URL);
        url.pathname = `/${name}`;
        db = await openPostgres(url.toString(), 4);
      }
      await db.exec(`
        CREATE TABLE t (id int PRIMARY KEY, label text, doc jsonb, at timestamptz, ok boolean, big bigint, raw bytea);
      `);
    });
    after(async () => {
      await db?.close();
      await drop();
    });

    it('returns each type the stores use, and null, as the stores expect', async () => {
      const at = new Date('2026-11-24T12:34:56.789Z');
      const raw = Buffer.from([0, 1, 254, 255]);
      const rows = await db.query(
        'INSERT INTO t (id, label, doc, at, ok, big, raw) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *',
        [1, 'é ü 漢', JSON.stringify({ a: [1, 'x'], b: null }), at, true, '9007199254740993', raw],
      );
      assert.equal(rows.length, 1);
      const row = rows[0]!;
      assert.equal(row.id, 1);
      assert.equal(row.label, 'é ü 漢');
      assert.deepEqual(row.doc, { a: [1, 'x'], b: null });
      assert.ok(row.at instanceof Date);
      assert.equal((row.at as Date).toISOString(), at.toISOString());
      assert.equal(row.ok, true);
      assert.equal(String(row.big), '9007199254740993');
      assert.ok(Buffer.from(row.raw as Uint8Array).equals(raw));

      const [empty] = await db.query('INSERT INTO t (id) VALUES ($1) RETURNING label, doc, at, ok, raw', [2]);
      assert.deepEqual({ ...empty }, { label: null, doc: null, at: null, ok: null, raw: null });
    });

    it('round-trips bytea: every byte value, an empty value, a view into a larger buffer', async () => {
      const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const backing = Buffer.concat([Buffer.from('before'), all, Buffer.from('after')]);
      for (const value of [
        all,
        Buffer.alloc(0),
        backing.subarray(6, 6 + 256),
        new Uint8Array([0, 255, 16]),
      ]) {
        const [row] = await db.query<{ b: Uint8Array; n: number }>(
          'SELECT $1::bytea AS b, length($1::bytea) AS n',
          [value],
        );
        assert.equal(row!.n, value.byteLength);
        assert.ok(Buffer.from(row!.b).equals(Buffer.from(value)));
      }
    });

    it('runs one statement many times with different values, and a statement that returns no rows', async () => {
      const insert = 'INSERT INTO t (id, label) VALUES ($1, $2)';
      for (let i = 10; i < 20; i++) assert.deepEqual(await db.query(insert, [i, `row ${i}`]), []);
      for (let i = 10; i < 20; i++) {
        const rows = await db.query<{ label: string }>('SELECT label FROM t WHERE id = $1', [i]);
        assert.deepEqual(
          rows.map((r) => r.label),
          [`row ${i}`],
        );
      }
      const [count] = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM t WHERE id >= 10 AND id < 20',
      );
      assert.equal(count!.n, 10);
    });

    it('fails a malformed statement with its PostgreSQL code, every time, and goes on working', async () => {
      for (let i = 0; i < 2; i++) {
        await assert.rejects(
          db.query('SELEC label FROM t WHERE id = $1', [1]),
          (err: Error & { code?: string }) => {
            assert.equal(err.code, '42601');
            return true;
          },
        );
      }
      await assert.rejects(db.query('SELECT $1::int AS n', ['not a number']), { code: '22P02' });
      const [row] = await db.query<{ n: number }>('SELECT $1::int AS n', [7]);
      assert.equal(row!.n, 7);
    });

    it('reports a duplicate key as a unique violation', async () => {
      await db.query('INSERT INTO t (id) VALUES ($1)', [30]);
      const err = await db.query('INSERT INTO t (id) VALUES ($1)', [30]).catch((e: unknown) => e);
      assert.ok(isUniqueViolation(err), `expected a unique violation, got ${String(err)}`);
    });

    it('rolls a transaction back when one of its statements fails, and the next transaction commits', async () => {
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO t (id, label) VALUES ($1, $2)', [40, 'rolled back']);
          await tx.query('INSERT INTO t (id, label) VALUES ($1, $2)', [40, 'duplicate']);
        }),
        (err) => isUniqueViolation(err),
      );
      assert.deepEqual(await db.query('SELECT id FROM t WHERE id = $1', [40]), []);
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id, label) VALUES ($1, $2)', [40, 'committed']);
      });
      const [row] = await db.query<{ label: string }>('SELECT label FROM t WHERE id = $1', [40]);
      assert.equal(row!.label, 'committed');
    });

    it('prepares a statement afresh when DDL (a migration by another process) changed the columns it returns', async () => {
      await db.exec('CREATE TABLE s (id int, a text)');
      await db.query('INSERT INTO s (id, a) VALUES ($1, $2)', [1, 'x']);
      const select = 'SELECT * FROM s WHERE id = $1';
      // prepared on every connection the pool has open (PostgreSQL) or on the one backend (PGlite)
      await Promise.all([1, 2, 3, 4].map(() => db.query(select, [1])));

      await db.exec('ALTER TABLE s ADD COLUMN b text');
      for (const rows of await Promise.all([1, 2, 3, 4].map(() => db.query(select, [1])))) {
        assert.deepEqual(rows, [{ id: 1, a: 'x', b: null }]);
      }
      const prepared = await db.transaction(async (tx) => {
        await tx.query(select, [1]);
        return tx.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1',
          [select],
        );
      });
      // PGlite closes the stale statement; node-postgres keeps it on the connections that had it.
      if (kind === 'pglite')
        assert.equal(prepared[0]!.n, 1, 'the statement runs prepared, the stale one closed');
      else assert.ok(prepared[0]!.n >= 1, 'the statement runs prepared');

      // In a transaction the failed statement has aborted the transaction; the next one works.
      await db.exec('ALTER TABLE s ADD COLUMN c text');
      const first = await db.transaction((tx) => tx.query(select, [1])).catch((err: unknown) => err);
      if (first instanceof Error) {
        assert.ok(isStaleStatement(first), `expected a stale statement, got ${first.message}`);
      } else {
        assert.equal(kind, 'postgres', 'PGlite has the statement prepared, so the first run fails');
        assert.deepEqual(first, [{ id: 1, a: 'x', b: null, c: null }]);
      }
      assert.deepEqual(await db.transaction((tx) => tx.query(select, [1])), [
        { id: 1, a: 'x', b: null, c: null },
      ]);
    });

    it('runs statements of many different texts (more than are kept prepared)', async () => {
      for (let k = 0; k < 260; k++) {
        const [row] = await db.query<{ n: number }>(`SELECT $1::int + ${k} AS n`, [1000]);
        assert.equal(row!.n, 1000 + k);
      }
    });

    if (kind === 'pglite') {
      it('keeps at most 200 statements prepared; texts past that are prepared per run', async () => {
        const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
        assert.ok(row!.n > 10, `the hub's statements are prepared (${row!.n})`);
        assert.ok(row!.n <= 200, `${row!.n} prepared`);
      });

      it('refuses a value that is not bytes for a bytea parameter', async () => {
        await assert.rejects(db.query('SELECT $1::bytea AS b', ['\\x00']), /Invalid input for bytea type/);
      });

      it('refuses a call with the wrong number of parameters', async () => {
        await assert.rejects(db.query('SELECT $1::int AS n', []), /expects 1 values, got 0/);
      });

      it('refuses a transaction handle used after its transaction ended', async () => {
        let kept: { query: Database['query'] } | undefined;
        await db.transaction(async (tx) => {
          kept = tx;
        });
        await assert.rejects(kept!.query('SELECT 1 AS n'), /Transaction is closed/);
      });
    }
  });
}
