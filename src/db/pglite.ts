/**
 * Embedded PostgreSQL (PGlite, WASM) in one data directory. PGlite is single-connection, so
 * it serializes statements itself; a transaction holds it exclusively until it ends. Only one
 * process may own a data directory: a lock file with the owner's pid guards it, and a second
 * process fails with a clear message instead of corrupting the files.
 */
import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import type { Database, Queryable, Row } from './database.js';
import { acquireDirLock } from './lock.js';

/**
 * PostgreSQL's default of 128MB is zeroed at every start (a large part of opening an existing
 * data directory) and held in the WASM heap. An embedded hub's working set is far smaller, and
 * the operating system's page cache still holds the files.
 */
const SHARED_BUFFERS = '32MB';

/**
 * `bytea` travels as hex text between PGlite and JavaScript. PGlite's own conversion formats and
 * parses it byte by byte in JavaScript (a string per byte), which took ~10 % of a PGlite hub's
 * busy time under initiate load for the sealed personal data; Buffer's hex codec is native.
 */
function byteaToHex(value: unknown): string {
  if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
  return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
}

function byteaFromHex(text: string): Buffer {
  return Buffer.from(text.slice(2), 'hex');
}

export async function openPglite(
  dataDir: string | undefined,
  wasm?: Promise<WebAssembly.Module>,
): Promise<Database> {
  let release = () => {};
  if (dataDir !== undefined) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    release = acquireDirLock(dataDir);
  }
  let pg: PGlite;
  try {
    pg = new PGlite(dataDir === undefined ? undefined : `${dataDir}/pgdata`, {
      ...(wasm ? { pgliteWasmModule: await wasm } : {}),
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
      serializers: { [types.BYTEA]: byteaToHex },
      parsers: { [types.BYTEA]: byteaFromHex },
    });
    await pg.waitReady;
  } catch (err) {
    release();
    throw err;
  }
  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<T extends Row>(sql: string, params?: readonly unknown[]) {
      const res = await q.query<T>(sql, params as unknown[] | undefined);
      return res.rows;
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  const root = wrap(pg);
  return {
    kind: 'pglite',
    query: root.query,
    exec: root.exec,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    listen: async (channel, onNotify) => {
      const unlisten = await pg.listen(channel, () => onNotify());
      return async () => {
        await unlisten();
      };
    },
    close: async () => {
      try {
        await pg.close();
      } finally {
        release();
      }
    },
  };
}
