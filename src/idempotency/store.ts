/**
 * SQL of Idempotency-Key records (SPEC §6): the first answer to (organization, key) for 24 hours,
 * a success or a refusal that depended on the state, with the request's keyed fingerprint.
 */
import type { Queryable } from '../db/database.js';
import { toBuffer } from '../db/database.js';

export interface StoredResponse {
  hash: Buffer;
  /** The answer as the group commit stored it; undefined when it is sealed. */
  response: unknown;
  /** The answer of a command run on its own, sealed (see Idempotency). */
  sealed: Buffer | null;
  /** The command was refused; `response` is the problem's code, detail and errors. */
  failed: boolean;
}

/**
 * Serializes the requests of one organization with one key until the surrounding transaction
 * ends: a retry sent while the first request still runs waits for it, then finds its record.
 */
export async function lockIdempotencyKey(q: Queryable, organizationId: string, key: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtextextended($1::text || '/' || $2::text, 0))`, [
    organizationId,
    key,
  ]);
}

export async function findIdempotent(
  q: Queryable,
  organizationId: string,
  key: string,
): Promise<StoredResponse | undefined> {
  const rows = await q.query(
    `SELECT request_hash, response, sealed_response, failed FROM idempotency_keys
      WHERE organization_id = $1 AND idempotency_key = $2 AND created_at > now() - interval '24 hours'`,
    [organizationId, key],
  );
  const r = rows[0];
  return (
    r && {
      hash: toBuffer(r.request_hash),
      response: r.response ?? undefined,
      sealed: r.sealed_response == null ? null : toBuffer(r.sealed_response),
      failed: r.failed === true,
    }
  );
}

/**
 * Records the first answer to a key (replacing an expired record of the same key). Returns
 * false when a live record exists: a concurrent request with the same key won the race.
 */
export async function saveIdempotent(
  q: Queryable,
  organizationId: string,
  key: string,
  hash: Buffer,
  sealedResponse: Buffer,
  failed: boolean,
): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO idempotency_keys (organization_id, idempotency_key, request_hash, sealed_response, failed)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (organization_id, idempotency_key) DO UPDATE
       SET request_hash = excluded.request_hash, response = NULL, sealed_response = excluded.sealed_response,
           failed = excluded.failed, created_at = now()
       WHERE idempotency_keys.created_at <= now() - interval '24 hours'
     RETURNING organization_id`,
    [organizationId, key, hash, sealedResponse, failed],
  );
  return rows.length === 1;
}

/** Deletes up to `limit` expired Idempotency-Key records; returns how many. */
export async function purgeIdempotent(q: Queryable, limit: number): Promise<number> {
  const rows = await q.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM idempotency_keys WHERE (organization_id, idempotency_key) IN (
         SELECT organization_id, idempotency_key FROM idempotency_keys
          WHERE created_at <= now() - interval '24 hours' LIMIT $1)
       RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [limit],
  );
  return rows[0]!.n;
}

/** A key to record in another domain's statement (see recordKeysThen). */
export interface KeyRecord {
  organizationId: string;
  key: string;
  hash: Buffer;
  response: unknown;
}

/** Column definitions of keyInput's fields for `jsonb_to_recordset(…) AS x(…)`. */
export const KEY_INPUT_COLUMNS = 'idem_org uuid, idem_key text, idem_hash text, idem_response jsonb';

/** A row's key fields in a statement's jsonb input (all null for a request without a key). */
export function keyInput(k: KeyRecord | undefined) {
  return {
    idem_org: k?.organizationId ?? null,
    idem_key: k?.key ?? null,
    idem_hash: k?.hash.toString('hex') ?? null,
    idem_response: k?.response ?? null,
  };
}

/**
 * CTEs for a statement that writes many requests at once (group commit): record each keyed row's
 * key (one per key: a batch may hold a request and its retry) unless it is taken (a record
 * committed meanwhile, or an expired one), and name `ok` the rows of `source` that may be written:
 * those without a key and those whose key this statement recorded. `rowId` identifies a row.
 * Rows left out are the callers' to settle: they replay the record (or answer 409 to another
 * body) or, for an expired record, run alone.
 */
export function recordKeysThen(source: string, rowId: string, ok: string): string {
  return `keyed AS (
       SELECT DISTINCT ON (idem_org, idem_key) ${rowId} AS row_id, idem_org, idem_key, idem_hash, idem_response
         FROM ${source} WHERE idem_key IS NOT NULL ORDER BY idem_org, idem_key, ${rowId}
     ), keys_recorded AS (
       INSERT INTO idempotency_keys (organization_id, idempotency_key, request_hash, response)
       SELECT idem_org, idem_key, decode(idem_hash, 'hex'), idem_response FROM keyed
       ON CONFLICT (organization_id, idempotency_key) DO NOTHING
       RETURNING organization_id, idempotency_key
     ), ${ok} AS (
       SELECT * FROM ${source}
        WHERE idem_key IS NULL
           OR ${rowId} IN (SELECT keyed.row_id FROM keyed JOIN keys_recorded r
                             ON r.organization_id = keyed.idem_org AND r.idempotency_key = keyed.idem_key)
     )`;
}
