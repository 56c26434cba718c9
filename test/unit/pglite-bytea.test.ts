import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { openPglite } from '../../src/db/pglite.js';

let db: Database;
before(async () => {
  db = await openPglite(undefined);
});
after(() => db.close());

it('round-trips bytea through PGlite: every byte value, an empty value, a view into a larger buffer', async () => {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const backing = Buffer.concat([Buffer.from('before'), all, Buffer.from('after')]);
  const view = backing.subarray(6, 6 + 256);
  const cases = [all, Buffer.alloc(0), view, new Uint8Array([0, 255, 16])];
  for (const value of cases) {
    const [row] = await db.query<{ b: Uint8Array; n: number }>(
      'SELECT $1::bytea AS b, length($1::bytea) AS n',
      [value],
    );
    assert.equal(row!.n, value.byteLength);
    assert.ok(Buffer.from(row!.b).equals(Buffer.from(value)));
  }
});

it('refuses a value that is not bytes for a bytea parameter', async () => {
  await assert.rejects(db.query('SELECT $1::bytea AS b', ['\\x00']), /Invalid input for bytea type/);
});
