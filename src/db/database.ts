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

export function toIso(value: unknown): string {
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}
