/** SQL of single sign-on (see oidc.ts for the rules): providers per organization, started sign-ins. */
import type { Queryable } from '../db/database.js';
import { toBuffer, toIso } from '../db/database.js';
import type { Role } from './roles.js';
import { emailKey } from './store.js';

/** The context the client secret is sealed under (listed in keys/sealed.ts). */
export const oidcSecretContext = (organizationId: string) => `oidc:${organizationId}`;

export interface OidcRecord {
  organizationId: string;
  issuer: string;
  clientId: string;
  sealedClientSecret: Buffer;
  updatedAt: string;
}

/** The organization's name when it has single sign-on set, else undefined. */
export async function nameWithSso(q: Queryable, organizationId: string): Promise<string | undefined> {
  const rows = await q.query<{ name: string }>(
    `SELECT o.name FROM oidc_configs c JOIN organizations o ON o.id = c.organization_id
      WHERE c.organization_id = $1`,
    [organizationId],
  );
  return rows[0]?.name;
}

export async function findConfig(q: Queryable, organizationId: string): Promise<OidcRecord | undefined> {
  const rows = await q.query(
    `SELECT organization_id, issuer, client_id, sealed_client_secret, updated_at
       FROM oidc_configs WHERE organization_id = $1`,
    [organizationId],
  );
  const r = rows[0];
  return (
    r && {
      organizationId: r.organization_id as string,
      issuer: r.issuer as string,
      clientId: r.client_id as string,
      sealedClientSecret: toBuffer(r.sealed_client_secret),
      updatedAt: toIso(r.updated_at),
    }
  );
}

export async function upsertConfig(
  q: Queryable,
  c: { organizationId: string; issuer: string; clientId: string; sealedClientSecret: Buffer },
): Promise<void> {
  await q.query(
    `INSERT INTO oidc_configs (organization_id, issuer, client_id, sealed_client_secret) VALUES ($1, $2, $3, $4)
     ON CONFLICT (organization_id) DO UPDATE
       SET issuer = $2, client_id = $3, sealed_client_secret = $4, updated_at = clock_timestamp()`,
    [c.organizationId, c.issuer, c.clientId, c.sealedClientSecret],
  );
}

/** Turns single sign-on off for the organization; false when it was not on. */
export async function deleteConfig(q: Queryable, organizationId: string): Promise<boolean> {
  await q.query('DELETE FROM oidc_sign_ins WHERE organization_id = $1', [organizationId]);
  const rows = await q.query(
    'DELETE FROM oidc_configs WHERE organization_id = $1 RETURNING organization_id',
    [organizationId],
  );
  return rows.length > 0;
}

/** Remembers a started sign-in (and drops those that ran out). */
export async function insertSignIn(
  q: Queryable,
  s: { stateHash: Buffer; organizationId: string; bindingHash: Buffer; validMs: number },
): Promise<void> {
  await q.query('DELETE FROM oidc_sign_ins WHERE expires_at <= now()');
  await q.query(
    `INSERT INTO oidc_sign_ins (state_hash, organization_id, binding_hash, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
    [s.stateHash, s.organizationId, s.bindingHash, s.validMs / 1000],
  );
}

/**
 * Takes the started sign-in with this state hash away (a state is good once), returning it when it
 * had not run out yet.
 */
export async function takeSignIn(
  q: Queryable,
  stateHash: Buffer,
): Promise<{ organizationId: string; bindingHash: Buffer } | undefined> {
  const rows = await q.query(
    `DELETE FROM oidc_sign_ins WHERE state_hash = $1 RETURNING organization_id, binding_hash, expires_at > now() AS live`,
    [stateHash],
  );
  const r = rows[0];
  if (r?.live !== true) return undefined;
  return { organizationId: r.organization_id as string, bindingHash: toBuffer(r.binding_hash) };
}

/** The active user of this organization with this e-mail address (any case). */
export async function findMember(
  q: Queryable,
  organizationId: string,
  email: string,
): Promise<{ id: string } | undefined> {
  const rows = await q.query<{ id: string }>(
    'SELECT id FROM users WHERE email_key = $1 AND organization_id = $2 AND removed_at IS NULL',
    [emailKey(email), organizationId],
  );
  return rows[0];
}

/** The newest open invitation of this organization for this e-mail address, locked. */
export async function lockInvitationFor(
  q: Queryable,
  organizationId: string,
  email: string,
): Promise<{ id: string; email: string; role: Role } | undefined> {
  const rows = await q.query<{ id: string; email: string; role: Role }>(
    `SELECT id, email, role FROM user_invitations
      WHERE email_key = $1 AND organization_id = $2
        AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
      ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
    [emailKey(email), organizationId],
  );
  return rows[0];
}
