/**
 * The storage connection behind every store: PGlite in-process (embedded, HUB_DATA_DIR) or a
 * node-postgres pool (DATABASE_URL). Both speak the same SQL with `$1` parameters; nothing
 * builds SQL from strings. A `transaction` callback gets a Queryable bound to one database
 * transaction: everything a command writes (state, audit, outbox) commits or rolls back together.
 */
export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Subscribes to NOTIFY on a channel; returns an unsubscribe function. */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * Steps a transaction runs last, just before it commits, in the order they were asked for. The
 * audit chain writes its rows so (audit/store.ts): its lock is then the last lock a transaction
 * takes, so no two transactions can wait on each other through it (one holding a row the other
 * wants while waiting for the chain, the other holding the chain while waiting for that row).
 */
const finalSteps = new WeakMap<Queryable, (() => Promise<void>)[]>();

/** Runs `step` just before `tx` commits; at once when `tx` is no transaction of `Database.transaction`. */
export async function beforeCommit(tx: Queryable, step: () => Promise<void>): Promise<void> {
  const steps = finalSteps.get(tx);
  if (steps) steps.push(step);
  else await step();
}

/** For the drivers: opens a new transaction's list of final steps; the function runs them. */
export function finalStepsOf(tx: Queryable): () => Promise<void> {
  const steps: (() => Promise<void>)[] = [];
  finalSteps.set(tx, steps);
  return async () => {
    for (let i = 0; i < steps.length; i++) await steps[i]!();
  };
}

/** PostgreSQL's error codes that the stores turn into domain errors. */
export const PG_UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === PG_UNIQUE_VIOLATION;
}

/**
 * A named prepared statement that no longer fits the schema ("cached plan must not change result
 * type": DDL, such as another process's migration, changed the columns it returns) or that its
 * connection no longer has. Both drivers then prepare the statement afresh.
 */
export function isStaleStatement(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return code === '0A000' || code === '26000';
}

/** PGlite returns bytea as Uint8Array, node-postgres as Buffer; stores see Buffers. */
export function toBuffer(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError('expected a bytea value');
}

/**
 * SQL for a timestamp column as ISO 8601 UTC with microseconds, for keyset cursors: a JavaScript
 * Date keeps milliseconds, and a cursor cut to them skips the rows that share its millisecond
 * (every row of one database transaction shares `now()`).
 */
export function exactTime(column: string, as = 'cursor_at'): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${as}`;
}

export function toIso(value: unknown): string {
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}
