/** SQL of named operators. Keys are stored only as SHA-256, like organizations' keys. */
import type { Queryable } from '../db/database.js';
import { toIso } from '../db/database.js';
import type { Operator } from './schemas.js';

const COLUMNS = 'id, name, prefix, created_by, created_at, revoked_at';

function toOperator(r: Record<string, unknown>): Operator {
  return {
    id: r.id as string,
    name: r.name as string,
    prefix: r.prefix as string,
    createdBy: r.created_by as string,
    createdAt: toIso(r.created_at),
    revokedAt: r.revoked_at == null ? null : toIso(r.revoked_at),
  };
}

export async function insertOperator(
  q: Queryable,
  o: { id: string; name: string; nameKey: string; prefix: string; hash: Buffer; createdBy: string },
): Promise<Operator> {
  const rows = await q.query(
    `INSERT INTO operators (id, name, name_key, prefix, key_hash, created_by) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING ${COLUMNS}`,
    [o.id, o.name, o.nameKey, o.prefix, o.hash, o.createdBy],
  );
  return toOperator(rows[0]!);
}

export async function listOperators(q: Queryable): Promise<Operator[]> {
  return (await q.query(`SELECT ${COLUMNS} FROM operators ORDER BY created_at, id`)).map(toOperator);
}

export async function findActiveOperator(
  q: Queryable,
  hash: Buffer,
): Promise<{ id: string; name: string } | undefined> {
  const rows = await q.query<{ id: string; name: string }>(
    'SELECT id, name FROM operators WHERE key_hash = $1 AND revoked_at IS NULL',
    [hash],
  );
  return rows[0];
}

/** Revokes an active operator; undefined when there is none with that id. */
export async function revokeOperator(q: Queryable, id: string): Promise<Operator | undefined> {
  const rows = await q.query(
    `UPDATE operators SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0] && toOperator(rows[0]);
}
