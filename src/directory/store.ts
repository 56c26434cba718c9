/** SQL of the directory. Rows are mapped to domain shapes here; no row leaves this file as-is. */
import type { Queryable } from '../db/database.js';
import { toBuffer, toIso } from '../db/database.js';
import type { Scope } from '../http/auth.js';
import type { Organization, OrganizationDetail } from './schemas.js';

interface OrgRow {
  [k: string]: unknown;
  id: string;
  name: string;
  vasp_did: string;
  travel_endpoint: string | null;
  public_key: string | null;
  organization_type: 'unverified' | 'verified';
  contact_email: string | null;
  ivms101_version: '2020' | '2023';
  jurisdiction: string | null;
  lei: string | null;
}

const ORG_COLUMNS =
  'id, name, vasp_did, travel_endpoint, public_key, organization_type, contact_email, ivms101_version, jurisdiction, lei';

function toOrganization(r: OrgRow): OrganizationDetail {
  return {
    id: r.id,
    name: r.name,
    travelEndpoint: r.travel_endpoint,
    publicKey: r.public_key,
    vaspDid: r.vasp_did,
    organizationType: r.organization_type,
    contactEmail: r.contact_email,
    ivms101Version: r.ivms101_version,
    jurisdiction: r.jurisdiction,
    lei: r.lei,
  };
}

/** The directory entry as every organization sees it: the interface document's six fields. */
export function publicEntry({
  contactEmail: _c,
  ivms101Version: _v,
  jurisdiction: _j,
  lei: _l,
  ...entry
}: OrganizationDetail): Organization {
  return entry;
}

export async function listOrganizations(
  q: Queryable,
  filter: { organizationType?: string; vaspDid?: string; jurisdiction?: string; lei?: string },
): Promise<OrganizationDetail[]> {
  const rows = await q.query<OrgRow>(
    `SELECT ${ORG_COLUMNS} FROM organizations
      WHERE ($1::text IS NULL OR organization_type = $1) AND ($2::text IS NULL OR vasp_did = $2)
        AND ($3::text IS NULL OR jurisdiction = $3) AND ($4::text IS NULL OR lei = $4)
      ORDER BY name, id`,
    [
      filter.organizationType ?? null,
      filter.vaspDid ?? null,
      filter.jurisdiction ?? null,
      filter.lei ?? null,
    ],
  );
  return rows.map(toOrganization);
}

export async function findOrganization(q: Queryable, id: string): Promise<OrganizationDetail | undefined> {
  const rows = await q.query<OrgRow>(`SELECT ${ORG_COLUMNS} FROM organizations WHERE id = $1`, [id]);
  return rows[0] && toOrganization(rows[0]);
}

export async function findOrganizationByDid(
  q: Queryable,
  did: string,
): Promise<OrganizationDetail | undefined> {
  const rows = await q.query<OrgRow>(`SELECT ${ORG_COLUMNS} FROM organizations WHERE vasp_did = $1`, [did]);
  return rows[0] && toOrganization(rows[0]);
}

/** $1 to $10 of the INSERT and the UPDATE below. */
const organizationParams = (o: OrganizationDetail) => [
  o.id,
  o.name,
  o.vaspDid,
  o.travelEndpoint,
  o.publicKey,
  o.organizationType,
  o.contactEmail,
  o.ivms101Version,
  o.jurisdiction,
  o.lei,
];

export async function insertOrganization(q: Queryable, o: OrganizationDetail): Promise<void> {
  await q.query(
    `INSERT INTO organizations (id, name, vasp_did, travel_endpoint, public_key, organization_type, contact_email,
                                ivms101_version, jurisdiction, lei)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    organizationParams(o),
  );
}

export async function updateOrganization(q: Queryable, o: OrganizationDetail): Promise<void> {
  await q.query(
    `UPDATE organizations SET name = $2, vasp_did = $3, travel_endpoint = $4, public_key = $5,
            organization_type = $6, contact_email = $7, ivms101_version = $8, jurisdiction = $9, lei = $10,
            updated_at = now()
      WHERE id = $1`,
    organizationParams(o),
  );
}

export async function insertApiKey(
  q: Queryable,
  k: {
    id: string;
    organizationId: string;
    prefix: string;
    hash: Buffer;
    scope: Scope;
    label?: string | null;
    ownerUserId?: string | null;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO api_keys (id, organization_id, prefix, key_hash, scope, label, owner_user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [k.id, k.organizationId, k.prefix, k.hash, k.scope, k.label ?? null, k.ownerUserId ?? null],
  );
}

/** Whether a person (people/, migration 0019) belongs to the organization and is not removed. */
export async function isActiveUserOf(q: Queryable, userId: string, organizationId: string): Promise<boolean> {
  const rows = await q.query(
    'SELECT 1 FROM users WHERE id = $1 AND organization_id = $2 AND removed_at IS NULL',
    [userId, organizationId],
  );
  return rows.length > 0;
}

export interface ApiKeyRecord {
  keyId: string;
  organizationId: string;
  prefix: string;
  scope: Scope;
  label: string | null;
  owner: string | null;
  createdAt: string;
  revokedAt: string | null;
}

function toApiKey(r: Record<string, unknown>): ApiKeyRecord {
  return {
    keyId: r.id as string,
    organizationId: r.organization_id as string,
    prefix: r.prefix as string,
    scope: r.scope as Scope,
    label: (r.label as string | null) ?? null,
    owner: (r.owner_user_id as string | null) ?? null,
    createdAt: toIso(r.created_at),
    revokedAt: r.revoked_at == null ? null : toIso(r.revoked_at),
  };
}

export async function listApiKeys(q: Queryable, organizationId: string): Promise<ApiKeyRecord[]> {
  const rows = await q.query(
    `SELECT id, organization_id, prefix, scope, label, owner_user_id, created_at, revoked_at FROM api_keys
      WHERE organization_id = $1 ORDER BY created_at, id`,
    [organizationId],
  );
  return rows.map(toApiKey);
}

/**
 * Locks the organization's row until the transaction ends, so that changes to its keys and
 * secrets run one after another: each then sees what the one before it committed. (NO KEY
 * UPDATE: initiations' foreign-key checks on the row are not held up.) False when there is no
 * such organization.
 */
export async function lockOrganization(q: Queryable, organizationId: string): Promise<boolean> {
  const rows = await q.query('SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [organizationId]);
  return rows.length > 0;
}

/** The organization's active keys; count under lockOrganization so that concurrent issuers take turns. */
export async function countActiveApiKeys(q: Queryable, organizationId: string): Promise<number> {
  const rows = await q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL',
    [organizationId],
  );
  return rows[0]!.n;
}

/** The organization a key belongs to, revoked or not. */
export async function apiKeyOrganization(q: Queryable, keyId: string): Promise<string | undefined> {
  const rows = await q.query<{ organization_id: string }>(
    'SELECT organization_id FROM api_keys WHERE id = $1',
    [keyId],
  );
  return rows[0]?.organization_id;
}

/** Revokes a key; returns the revoked key, or undefined when it does not exist. */
export async function revokeApiKey(q: Queryable, keyId: string): Promise<ApiKeyRecord | undefined> {
  const rows = await q.query(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1
     RETURNING id, organization_id, prefix, scope, created_at, revoked_at`,
    [keyId],
  );
  return rows[0] && toApiKey(rows[0]);
}

/** The organization owning an active (unrevoked) key with this hash. */
export async function findActiveKey(
  q: Queryable,
  hash: Buffer,
): Promise<
  | { keyId: string; organizationId: string; scope: Scope; label: string | null; ownerUserId: string | null }
  | undefined
> {
  const rows = await q.query<{
    id: string;
    organization_id: string;
    scope: Scope;
    label: string | null;
    owner_user_id: string | null;
  }>(
    'SELECT id, organization_id, scope, label, owner_user_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [hash],
  );
  const r = rows[0];
  return (
    r && {
      keyId: r.id,
      organizationId: r.organization_id,
      scope: r.scope,
      label: r.label ?? null,
      ownerUserId: r.owner_user_id ?? null,
    }
  );
}

export async function insertWebhookSecret(
  q: Queryable,
  s: { id: string; organizationId: string; sealed: Buffer },
): Promise<void> {
  await q.query('INSERT INTO webhook_secrets (id, organization_id, sealed_secret) VALUES ($1, $2, $3)', [
    s.id,
    s.organizationId,
    s.sealed,
  ]);
}

/**
 * The start of a rotation: the current secret (the open one) keeps signing until `until`; any
 * older one still overlapping from an earlier rotation ends now. So at most two ever sign, and
 * rotating twice retires a leaked secret at once.
 */
export async function expireWebhookSecrets(q: Queryable, organizationId: string, until: Date): Promise<void> {
  await q.query(
    `UPDATE webhook_secrets SET expires_at = CASE WHEN expires_at IS NULL THEN $2 ELSE now() END
      WHERE organization_id = $1 AND (expires_at IS NULL OR expires_at > now())`,
    [organizationId, until],
  );
}

/** The sealed secrets that still sign deliveries, newest first. */
export async function activeWebhookSecrets(q: Queryable, organizationId: string): Promise<Buffer[]> {
  const rows = await q.query(
    `SELECT sealed_secret FROM webhook_secrets
      WHERE organization_id = $1 AND (expires_at IS NULL OR expires_at > now())
      ORDER BY created_at DESC, id`,
    [organizationId],
  );
  return rows.map((r) => toBuffer(r.sealed_secret));
}

/**
 * Takes up to `wanted` of the organization's notices for today (UTC), of `perDay`; returns how many
 * it may send. Call under lockOrganization (the day's count is read and written back).
 */
export async function takeContactNotices(
  q: Queryable,
  organizationId: string,
  wanted: number,
  perDay: number,
): Promise<number> {
  const rows = await q.query<{ granted: number }>(
    `WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS d),
          used AS (SELECT CASE WHEN o.contact_notices_day = today.d THEN o.contact_notices_sent ELSE 0 END AS n
                     FROM organizations o, today WHERE o.id = $1),
          grant_ AS (SELECT least($2::int, greatest(0, $3::int - used.n)) AS g, used.n FROM used)
     UPDATE organizations SET contact_notices_day = today.d, contact_notices_sent = grant_.n + grant_.g
       FROM today, grant_ WHERE id = $1
     RETURNING grant_.g AS granted`,
    [organizationId, wanted, perDay],
  );
  return rows[0]?.granted ?? 0;
}

/**
 * Every organization but `viewerId`, with who verified a verified one: the last audited change of
 * its badge (created verified, or an operator's update of `organizationType`); `application` when
 * that was the creation by an approved application to join (the self-service way in, which the
 * operator approved), `operator` otherwise.
 */
export async function listCounterparties(
  q: Queryable,
  viewerId: string,
): Promise<
  {
    id: string;
    name: string;
    vaspDid: string;
    organizationType: 'unverified' | 'verified';
    jurisdiction: string | null;
    lei: string | null;
    verifiedVia: 'operator' | 'application' | null;
    verifiedAt: string | null;
  }[]
> {
  const rows = await q.query(
    `SELECT o.id, o.name, o.vasp_did, o.organization_type, o.jurisdiction, o.lei, v.action, v.at,
            EXISTS (SELECT 1 FROM join_applications j WHERE j.organization_id = o.id AND j.status = 'approved')
              AS by_application
       FROM organizations o
       LEFT JOIN LATERAL (
         SELECT a.action, a.at FROM audit_events a
          WHERE a.subject_type = 'organization' AND a.subject_id = o.id::text
            AND ((a.action = 'organization.created' AND a.details->>'organizationType' = 'verified')
                 OR (a.action = 'organization.updated' AND a.details->'fields' ? 'organizationType'))
          ORDER BY a.id DESC LIMIT 1) v ON o.organization_type = 'verified'
      WHERE o.id <> $1
      ORDER BY o.name, o.id`,
    [viewerId],
  );
  return rows.map((r) => {
    const verified = r.organization_type === 'verified';
    const via = !verified
      ? null
      : r.action === 'organization.created' && r.by_application === true
        ? 'application'
        : 'operator';
    return {
      id: r.id as string,
      name: r.name as string,
      vaspDid: r.vasp_did as string,
      organizationType: r.organization_type as 'unverified' | 'verified',
      jurisdiction: (r.jurisdiction as string | null) ?? null,
      lei: (r.lei as string | null) ?? null,
      verifiedVia: via,
      verifiedAt: verified && r.at != null ? toIso(r.at) : null,
    };
  });
}
