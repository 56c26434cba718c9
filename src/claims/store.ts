/** SQL of claim links, join applications and credential pickups (SPEC §12). */
import type { Queryable } from '../db/database.js';
import { toBuffer, toIso } from '../db/database.js';
import type { ClaimFacts } from './progress.js';
import type { Application } from './schemas.js';

/** An application as stored; the service adds the review of its claim address. */
export type StoredApplication = Omit<Application, 'claimAddress'>;

/** A NOTIFY transaction's claim row as part of another statement's jsonb input (the initiation). */
export const CLAIM_INPUT_COLUMNS = 'claim_hash text';

/** SQL that records the claim links of `source`'s rows that have one (a data-modifying CTE). */
export function insertClaimsFrom(source: string): string {
  return `INSERT INTO claims (transaction_ref, token_hash)
       SELECT ref, decode(claim_hash, 'hex') FROM ${source} WHERE claim_hash IS NOT NULL`;
}

export interface ClaimedTransaction {
  ref: string;
  status: string;
  usedAt: string | null;
  /** What the link was last used for; `attach` ends it. */
  usedFor: 'application' | 'attach' | null;
  /** When the claim page first loaded the announcement. */
  openedAt: string | null;
  asset: string;
  amount: string;
  destination: string;
  originatorId: string;
  originatorDid: string;
  /** The directory member the NOTIFY named, if it named one. */
  beneficiaryId: string | null;
  notificationEmail: string | null;
  createdAt: string;
}

/** The claim with this token hash and its transaction; `lock` holds the claim row until the end. */
export async function findClaim(
  q: Queryable,
  hash: Buffer,
  lock = false,
): Promise<ClaimedTransaction | undefined> {
  const rows = await q.query(
    `SELECT c.transaction_ref, c.used_at, c.used_for, c.opened_at, t.status, t.asset, t.amount, t.destination_address, t.originator_id,
            t.originator_did, t.beneficiary_id, t.notification_email, t.created_at
       FROM claims c JOIN transactions t ON t.ref = c.transaction_ref
      WHERE c.token_hash = $1${lock ? ' FOR UPDATE OF c' : ''}`,
    [hash],
  );
  const r = rows[0];
  return (
    r && {
      ref: r.transaction_ref as string,
      status: r.status as string,
      usedAt: r.used_at == null ? null : toIso(r.used_at),
      usedFor: (r.used_for as ClaimedTransaction['usedFor']) ?? null,
      openedAt: r.opened_at == null ? null : toIso(r.opened_at),
      asset: r.asset as string,
      amount: r.amount as string,
      destination: r.destination_address as string,
      originatorId: r.originator_id as string,
      originatorDid: r.originator_did as string,
      beneficiaryId: (r.beneficiary_id as string | null) ?? null,
      notificationEmail: (r.notification_email as string | null) ?? null,
      createdAt: toIso(r.created_at),
    }
  );
}

export async function useClaim(q: Queryable, ref: string, usedFor: 'application' | 'attach'): Promise<void> {
  await q.query('UPDATE claims SET used_at = now(), used_for = $2 WHERE transaction_ref = $1', [
    ref,
    usedFor,
  ]);
}

/**
 * Records the first load of the claim page; true if this call recorded it. Later loads find
 * `opened_at` set and write nothing.
 */
export async function markOpened(q: Queryable, ref: string): Promise<boolean> {
  const rows = await q.query(
    'UPDATE claims SET opened_at = now() WHERE transaction_ref = $1 AND opened_at IS NULL RETURNING 1 AS x',
    [ref],
  );
  return rows.length > 0;
}

/** The latest application made through a transaction's claim link, if any. */
export async function latestApplication(q: Queryable, ref: string): Promise<StoredApplication | undefined> {
  const rows = await q.query(
    `SELECT ${APPLICATION_COLUMNS} FROM join_applications WHERE transaction_ref = $1
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [ref],
  );
  return rows[0] && toApplication(rows[0]);
}

/**
 * The facts of these NOTIFY transactions' claims (progress.ts orders them), by transaction: one
 * query for the claims and one for their applications, whatever the number of transactions.
 */
export async function claimFacts(q: Queryable, refs: readonly string[]): Promise<Map<string, ClaimFacts>> {
  if (refs.length === 0) return new Map();
  const [claims, applications] = await Promise.all([
    q.query(
      `SELECT c.transaction_ref, c.created_at, c.opened_at, t.claimed_at
         FROM claims c JOIN transactions t ON t.ref = c.transaction_ref
        WHERE c.transaction_ref = ANY($1::uuid[])`,
      [refs],
    ),
    q.query(
      `SELECT transaction_ref, created_at, status, decided_at FROM join_applications
        WHERE transaction_ref = ANY($1::uuid[]) ORDER BY created_at, id`,
      [refs],
    ),
  ]);
  const byRef = new Map<string, ClaimFacts['applications'][number][]>();
  for (const r of applications) {
    const ref = String(r.transaction_ref);
    const list = byRef.get(ref) ?? [];
    list.push({
      createdAt: toIso(r.created_at),
      status: r.status as string,
      decidedAt: r.decided_at == null ? null : toIso(r.decided_at),
    });
    byRef.set(ref, list);
  }
  const facts = new Map<string, ClaimFacts>();
  for (const r of claims) {
    const ref = String(r.transaction_ref);
    facts.set(ref, {
      sentAt: toIso(r.created_at),
      openedAt: r.opened_at == null ? null : toIso(r.opened_at),
      applications: byRef.get(ref) ?? [],
      attachedAt: r.claimed_at == null ? null : toIso(r.claimed_at),
    });
  }
  return facts;
}

const APPLICATION_COLUMNS = `id, transaction_ref, status, name, vasp_did, travel_endpoint, public_key, contact_email,
  notification_email, created_at, decided_at, decided_by, reject_reason, organization_id`;

function toApplication(r: Record<string, unknown>): StoredApplication {
  return {
    id: r.id as string,
    transactionRef: r.transaction_ref as string,
    status: r.status as Application['status'],
    name: r.name as string,
    vaspDid: r.vasp_did as string,
    travelEndpoint: (r.travel_endpoint as string | null) ?? null,
    publicKey: (r.public_key as string | null) ?? null,
    contactEmail: r.contact_email as string,
    notificationEmail: r.notification_email as string,
    createdAt: toIso(r.created_at),
    decidedAt: r.decided_at == null ? null : toIso(r.decided_at),
    decidedBy: (r.decided_by as string | null) ?? null,
    rejectReason: (r.reject_reason as string | null) ?? null,
    organizationId: (r.organization_id as string | null) ?? null,
  };
}

export async function insertApplication(
  q: Queryable,
  a: Pick<
    StoredApplication,
    | 'id'
    | 'transactionRef'
    | 'name'
    | 'vaspDid'
    | 'travelEndpoint'
    | 'publicKey'
    | 'contactEmail'
    | 'notificationEmail'
  >,
): Promise<StoredApplication> {
  const rows = await q.query(
    `INSERT INTO join_applications (id, transaction_ref, name, vasp_did, travel_endpoint, public_key, contact_email,
       notification_email)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${APPLICATION_COLUMNS}`,
    [
      a.id,
      a.transactionRef,
      a.name,
      a.vaspDid,
      a.travelEndpoint,
      a.publicKey,
      a.contactEmail,
      a.notificationEmail,
    ],
  );
  return toApplication(rows[0]!);
}

export async function listApplications(q: Queryable, status?: string): Promise<StoredApplication[]> {
  const rows = await q.query(
    `SELECT ${APPLICATION_COLUMNS} FROM join_applications WHERE ($1::text IS NULL OR status = $1)
      ORDER BY created_at DESC, id LIMIT 500`,
    [status ?? null],
  );
  return rows.map(toApplication);
}

export async function countPending(q: Queryable): Promise<number> {
  const rows = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM join_applications WHERE status = 'pending'`,
  );
  return rows[0]!.n;
}

/** The application, locked until the surrounding transaction ends. */
export async function lockApplication(q: Queryable, id: string): Promise<StoredApplication | undefined> {
  const rows = await q.query(
    `SELECT ${APPLICATION_COLUMNS} FROM join_applications WHERE id = $1 FOR UPDATE`,
    [id],
  );
  return rows[0] && toApplication(rows[0]);
}

export async function decideApplication(
  q: Queryable,
  id: string,
  d: { status: 'approved' | 'rejected'; by: string; organizationId?: string; rejectReason?: string },
): Promise<StoredApplication> {
  const rows = await q.query(
    `UPDATE join_applications SET status = $2, decided_at = now(), decided_by = $3, organization_id = $4,
            reject_reason = $5
      WHERE id = $1 RETURNING ${APPLICATION_COLUMNS}`,
    [id, d.status, d.by, d.organizationId ?? null, d.rejectReason ?? null],
  );
  return toApplication(rows[0]!);
}

export async function insertPickup(
  q: Queryable,
  p: { id: string; organizationId: string; hash: Buffer; sealed: Buffer; expiresAt: Date },
): Promise<void> {
  await q.query(
    `INSERT INTO credential_pickups (id, organization_id, token_hash, sealed_credentials, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [p.id, p.organizationId, p.hash, p.sealed, p.expiresAt],
  );
}

/**
 * Takes the credentials waiting behind a pickup token, once: the sealed copy is deleted as it is
 * read. Undefined for an unknown, used or expired token.
 */
export async function takePickup(
  q: Queryable,
  hash: Buffer,
): Promise<{ id: string; organizationId: string; sealed: Buffer } | undefined> {
  const rows = await q.query(
    `UPDATE credential_pickups p SET used_at = now(), sealed_credentials = NULL
       FROM (SELECT id, sealed_credentials FROM credential_pickups
              WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() FOR UPDATE) old
      WHERE p.id = old.id
     RETURNING p.id, p.organization_id, old.sealed_credentials`,
    [hash],
  );
  const r = rows[0];
  return (
    r && {
      id: r.id as string,
      organizationId: r.organization_id as string,
      sealed: toBuffer(r.sealed_credentials),
    }
  );
}

/** Expired pickups lose their sealed credentials (nobody can show them any more). */
export async function purgeExpiredPickups(q: Queryable): Promise<void> {
  await q.query(
    `UPDATE credential_pickups SET sealed_credentials = NULL
      WHERE expires_at <= now() AND sealed_credentials IS NOT NULL`,
  );
}

/** The originators of these transactions (who chose their claim addresses), by transaction. */
export async function claimOriginators(
  q: Queryable,
  refs: string[],
): Promise<
  Map<string, { organizationId: string; name: string; vaspDid: string; contactEmail: string | null }>
> {
  if (refs.length === 0) return new Map();
  const rows = await q.query(
    `SELECT t.ref, o.id, o.name, o.vasp_did, o.contact_email
       FROM transactions t JOIN organizations o ON o.id = t.originator_id
      WHERE t.ref = ANY($1::uuid[])`,
    [refs],
  );
  return new Map(
    rows.map((r) => [
      String(r.ref),
      {
        organizationId: r.id as string,
        name: r.name as string,
        vaspDid: r.vasp_did as string,
        contactEmail: (r.contact_email as string | null) ?? null,
      },
    ]),
  );
}
