/**
 * The SQL of TRP counterparties (migration 0018): one row per peer host, made on first contact
 * (`added_by` hub) or by the operator. What a transfer speaks is kept on the transfer itself
 * (trp_transfers.api_version), and what worked last on the peer's row for its next transfer.
 */
import { randomUUID } from 'node:crypto';
import { type Queryable, toIso } from '../db/database.js';

export type AmountEncoding = 'whole-units-number' | 'smallest-unit-string';

export interface Counterparty {
  id: string;
  host: string;
  name: string | null;
  lei: string | null;
  certificateSubject: string | null;
  certificateFingerprint: string | null;
  pinned: boolean;
  blocked: boolean;
  apiVersion: string | null;
  amountEncoding: AmountEncoding | null;
  addedBy: 'hub' | 'operator';
  createdAt: string;
  updatedAt: string;
}

function toCounterparty(r: Record<string, unknown>): Counterparty {
  return {
    id: r.id as string,
    host: r.host as string,
    name: (r.name as string | null) ?? null,
    lei: (r.lei as string | null) ?? null,
    certificateSubject: (r.certificate_subject as string | null) ?? null,
    certificateFingerprint: (r.certificate_fingerprint as string | null) ?? null,
    pinned: r.pinned as boolean,
    blocked: r.blocked as boolean,
    apiVersion: (r.api_version as string | null) ?? null,
    amountEncoding: (r.amount_encoding as AmountEncoding | null) ?? null,
    addedBy: r.added_by as 'hub' | 'operator',
    createdAt: toIso(r.created_at),
    updatedAt: toIso(r.updated_at),
  };
}

export async function findPeer(q: Queryable, host: string): Promise<Counterparty | undefined> {
  const rows = await q.query('SELECT * FROM trp_counterparties WHERE host = $1', [host.toLowerCase()]);
  return rows[0] && toCounterparty(rows[0]);
}

/**
 * What the hub learnt of a peer in a transfer: its certificate (unless the operator pinned one),
 * its /identity. Makes the peer's row on first contact; fields left undefined stay as they are.
 */
export async function notePeer(
  q: Queryable,
  host: string,
  seen: {
    certificateSubject?: string | null;
    certificateFingerprint?: string | null;
    name?: string | null;
    lei?: string | null;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO trp_counterparties (id, host, name, lei, certificate_subject, certificate_fingerprint, added_by)
     VALUES ($1, $2, $3, $4, $5, $6, 'hub')
     ON CONFLICT (host) DO UPDATE SET
       name = CASE WHEN $7::boolean THEN excluded.name ELSE trp_counterparties.name END,
       lei = CASE WHEN $7::boolean THEN excluded.lei ELSE trp_counterparties.lei END,
       certificate_subject = CASE WHEN $8::boolean AND NOT trp_counterparties.pinned
         THEN excluded.certificate_subject ELSE trp_counterparties.certificate_subject END,
       certificate_fingerprint = CASE WHEN $8::boolean AND NOT trp_counterparties.pinned
         THEN excluded.certificate_fingerprint ELSE trp_counterparties.certificate_fingerprint END,
       updated_at = now()`,
    [
      randomUUID(),
      host.toLowerCase(),
      seen.name ?? null,
      seen.lei ?? null,
      seen.certificateSubject ?? null,
      seen.certificateFingerprint ?? null,
      seen.name !== undefined || seen.lei !== undefined,
      seen.certificateFingerprint !== undefined,
    ],
  );
}

/** The version a transfer's inquiry was accepted in: the transfer's from now on, and its peer's. */
export async function rememberVersion(q: Queryable, ref: string, version: string): Promise<void> {
  await q.query(
    `WITH t AS (UPDATE trp_transfers SET api_version = $2 WHERE transaction_ref = $1 RETURNING peer_host)
     INSERT INTO trp_counterparties (id, host, api_version, added_by)
     SELECT $3, lower(peer_host), $2, 'hub' FROM t
     ON CONFLICT (host) DO UPDATE SET api_version = excluded.api_version, updated_at = now()
       WHERE trp_counterparties.api_version IS DISTINCT FROM excluded.api_version`,
    [ref, version, randomUUID()],
  );
}

export async function listPeers(q: Queryable): Promise<Counterparty[]> {
  const rows = await q.query('SELECT * FROM trp_counterparties ORDER BY host LIMIT 1000');
  return rows.map(toCounterparty);
}

/** A peer the operator adds; undefined when its host is taken. */
export async function insertPeer(
  q: Queryable,
  p: Pick<Counterparty, 'host' | 'certificateFingerprint' | 'apiVersion' | 'amountEncoding' | 'blocked'>,
): Promise<Counterparty | undefined> {
  const rows = await q.query(
    `INSERT INTO trp_counterparties (id, host, certificate_fingerprint, pinned, api_version, amount_encoding,
       blocked, added_by)
     VALUES ($1, $2, $3::text, $3::text IS NOT NULL, $4::text, $5::text, $6::boolean, 'operator')
     ON CONFLICT (host) DO NOTHING RETURNING *`,
    [randomUUID(), p.host, p.certificateFingerprint, p.apiVersion, p.amountEncoding, p.blocked],
  );
  return rows[0] && toCounterparty(rows[0]);
}

/** Sets what the operator changed (undefined: unchanged); undefined when no such peer. */
export async function updatePeer(
  q: Queryable,
  id: string,
  c: {
    certificateFingerprint?: string | null;
    apiVersion?: string | null;
    amountEncoding?: AmountEncoding | null;
    blocked?: boolean;
  },
): Promise<Counterparty | undefined> {
  const rows = await q.query(
    `UPDATE trp_counterparties SET
       certificate_fingerprint = CASE WHEN $2::boolean THEN $3::text ELSE certificate_fingerprint END,
       certificate_subject = CASE WHEN $2::boolean THEN NULL ELSE certificate_subject END,
       pinned = CASE WHEN $2::boolean THEN $3::text IS NOT NULL ELSE pinned END,
       api_version = CASE WHEN $4::boolean THEN $5::text ELSE api_version END,
       amount_encoding = CASE WHEN $6::boolean THEN $7::text ELSE amount_encoding END,
       blocked = coalesce($8::boolean, blocked),
       updated_at = now()
     WHERE id = $1 RETURNING *`,
    [
      id,
      c.certificateFingerprint !== undefined,
      c.certificateFingerprint ?? null,
      c.apiVersion !== undefined,
      c.apiVersion ?? null,
      c.amountEncoding !== undefined,
      c.amountEncoding ?? null,
      c.blocked ?? null,
    ],
  );
  return rows[0] && toCounterparty(rows[0]);
}
