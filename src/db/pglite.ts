/**
 * Embedded PostgreSQL (PGlite, WASM) in one data directory. PGlite is single-connection, so
 * it serializes statements itself; a transaction holds it exclusively until it ends. Only one
 * process may own a data directory: a lock file naming the owner guards it (lock.ts), and a second
 * process fails with a clear message instead of corrupting the files.
 *
 * Parameterized statements run as named prepared statements, as on PostgreSQL: PGlite's own
 * `query` parses, plans and describes every statement anew in six calls into the WASM
 * backend, and under load that overhead decides the hub's latency.
 * Here a statement is parsed and described once; each run is then one call (Bind, Execute,
 * Sync).
 */
import { type messages, PGlite, protocol, types } from '@electric-sql/pglite';
import { privateDataDir } from './data-dir.js';
import { type Database, finalStepsOf, isStaleStatement, type Queryable, type Row } from './database.js';
import { acquireDirLock } from './lock.js';

/**
 * PostgreSQL's default of 128MB is zeroed at every start (a large part of opening an existing
 * data directory) and held in the WASM heap. An embedded hub's working set is far smaller, and
 * the operating system's page cache still holds the files.
 */
const SHARED_BUFFERS = '32MB';

/** `bytea` results arrive as hex text; Buffer's hex codec is native (PGlite's parses per byte). */
function byteaFromHex(text: string): Buffer {
  return Buffer.from(text.slice(2), 'hex');
}

export async function openPglite(
  dataDir: string | undefined,
  wasm?: Promise<WebAssembly.Module>,
): Promise<Database> {
  let release = () => {};
  if (dataDir !== undefined) {
    privateDataDir(dataDir);
    release = await acquireDirLock(dataDir);
  }
  let pg: PGlite;
  try {
    pg = new PGlite(dataDir === undefined ? undefined : `${dataDir}/pgdata`, {
      ...(wasm ? { pgliteWasmModule: await wasm } : {}),
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
      parsers: { [types.BYTEA]: byteaFromHex },
    });
    await pg.waitReady;
  } catch (err) {
    release();
    throw err;
  }
  const statements = new Statements(pg);
  return {
    kind: 'pglite',
    // Outside a transaction a statement holds PGlite as its own transaction would. Waiting for
    // readiness first, as PGlite's own calls do, keeps calls in the order they were made.
    query: async <T extends Row>(sql: string, params?: readonly unknown[]) => {
      await pg._checkReady();
      return pg._runExclusiveTransaction(() =>
        pg._runExclusiveQuery(async () => {
          const rows = await statements.run<T>(sql, params, { retryStale: true });
          await pg.syncToFs();
          return rows;
        }),
      );
    },
    exec: async (sql) => {
      await pg.exec(sql);
    },
    transaction: (fn) =>
      pg.transaction(async (tx) => {
        const scoped: Queryable = {
          query: (sql, params) => {
            if (tx.closed) return Promise.reject(new Error('Transaction is closed'));
            return pg._runExclusiveQuery(() => statements.run(sql, params, { retryStale: false }));
          },
          exec: async (sql) => {
            await tx.exec(sql);
          },
        };
        const finish = finalStepsOf(scoped);
        const result = await fn(scoped);
        await finish();
        return result;
      }),
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

interface Prepared {
  /** '' (the unnamed statement) past the cap: prepared again on every run. */
  readonly name: string;
  readonly params: readonly { oid: number; serialize: types.Serializer | undefined }[];
  /** undefined for a statement that returns no rows. */
  readonly fields:
    | readonly { name: string; oid: number; parse: ((text: string, oid: number) => unknown) | undefined }[]
    | undefined;
}

const MAX_NAMED = 200;
const SYNC = protocol.serialize.sync();
const EXECUTE = protocol.serialize.execute();

/** The statements prepared on one PGlite instance. Callers hold PGlite's query lock. */
class Statements {
  readonly #pg: PGlite;
  readonly #prepared = new Map<string, Prepared>();
  /** Names of evicted statements, closed with the next Parse. */
  readonly #closing: string[] = [];
  #nextName = 0;

  constructor(pg: PGlite) {
    this.#pg = pg;
  }

  /**
   * Runs a statement, preparing it on first use. A stale statement is evicted, so its next run
   * prepares it afresh; with `retryStale` (outside a transaction, where nothing else was
   * aborted) that happens at once. In a transaction the error aborts the transaction anyway.
   */
  async run<T extends Row>(
    sql: string,
    params: readonly unknown[] = [],
    o: { retryStale: boolean },
  ): Promise<T[]> {
    try {
      return await this.#run<T>(sql, params);
    } catch (err) {
      if (!isStaleStatement(err) || !this.#evict(sql) || !o.retryStale) throw err;
      return this.#run<T>(sql, params);
    }
  }

  async #run<T extends Row>(sql: string, params: readonly unknown[]): Promise<T[]> {
    const prepared = this.#prepared.get(sql) ?? (await this.#prepare(sql));
    if (params.length !== prepared.params.length) {
      throw new Error(`the statement expects ${prepared.params.length} values, got ${params.length}`);
    }
    const values = params.map((value, i) => toParam(value, prepared.params[i]!));
    const bind = protocol.serialize.bind({ statement: prepared.name, values });
    const replies = await this.#pg.execProtocolStream(Buffer.concat([bind, EXECUTE, SYNC]), {
      syncToFs: false,
    });
    const rows: T[] = [];
    const fields = prepared.fields;
    if (!fields) return rows;
    for (const message of replies) {
      if (message.name !== 'dataRow') continue;
      const values = (message as messages.DataRowMessage).fields;
      const row: Row = {};
      for (let i = 0; i < fields.length; i++) {
        const { name, oid, parse } = fields[i]!;
        const text = values[i];
        row[name] = text === null || text === undefined ? null : parse ? parse(text, oid) : text;
      }
      rows.push(row as T);
    }
    return rows;
  }

  async #prepare(sql: string): Promise<Prepared> {
    const name = this.#prepared.size < MAX_NAMED ? `hub_${this.#nextName++}` : '';
    const closing = this.#closing.splice(0).map((old) => protocol.serialize.close({ type: 'S', name: old }));
    const replies = await this.#pg.execProtocolStream(
      Buffer.concat([
        ...closing,
        protocol.serialize.parse({ name, text: sql }),
        protocol.serialize.describe({ type: 'S', name }),
        SYNC,
      ]),
      { syncToFs: false },
    );
    let params: Prepared['params'] = [];
    let fields: Prepared['fields'];
    for (const message of replies) {
      if (message.name === 'parameterDescription') {
        params = (message as messages.ParameterDescriptionMessage).dataTypeIDs.map((oid) => ({
          oid,
          serialize: this.#pg.serializers[oid],
        }));
      } else if (message.name === 'rowDescription') {
        fields = (message as messages.RowDescriptionMessage).fields.map((f) => ({
          name: f.name,
          oid: f.dataTypeID,
          parse: this.#pg.parsers[f.dataTypeID],
        }));
      }
    }
    const prepared: Prepared = { name, params, fields };
    if (name) this.#prepared.set(sql, prepared);
    return prepared;
  }

  /** Forgets a prepared statement (closed in the backend with the next Parse); false when none was kept. */
  #evict(sql: string): boolean {
    const prepared = this.#prepared.get(sql);
    if (!prepared) return false;
    this.#prepared.delete(sql);
    this.#closing.push(prepared.name);
    return true;
  }
}

/** A parameter as the Bind message carries it: bytes go in binary, everything else as text. */
function toParam(value: unknown, param: Prepared['params'][number]): string | Uint8Array | null {
  if (value === null || value === undefined) return null;
  if (param.oid === types.BYTEA) {
    if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
    return value;
  }
  return param.serialize ? param.serialize(value) : String(value);
}
