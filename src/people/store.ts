/** SQL of people: users, invitations, sessions, recovery codes, the sign-in throttle. */
import type { Queryable } from '../db/database.js';
import { toBuffer, toIso } from '../db/database.js';
import type { Role } from './roles.js';

export interface UserRecord {
  id: string;
  organizationId: string | null;
  email: string;
  name: string;
  role: Role;
  totpEnabled: boolean;
  createdAt: string;
}

export interface UserSecrets extends UserRecord {
  passwordHash: string;
  sealedTotp: Buffer | null;
  totpLastStep: number | null;
}

const USER_COLUMNS =
  'id, organization_id, email, name, role, totp_enabled_at, created_at, password_hash, sealed_totp, totp_last_step';

function toUser(r: Record<string, unknown>): UserSecrets {
  return {
    id: r.id as string,
    organizationId: (r.organization_id as string | null) ?? null,
    email: r.email as string,
    name: r.name as string,
    role: r.role as Role,
    totpEnabled: r.totp_enabled_at != null,
    createdAt: toIso(r.created_at),
    passwordHash: r.password_hash as string,
    sealedTotp: r.sealed_totp == null ? null : toBuffer(r.sealed_totp),
    totpLastStep: r.totp_last_step == null ? null : Number(r.totp_last_step),
  };
}

/** Only what may be shown: no hash, no secret. */
export function publicUser(u: UserSecrets | UserRecord): UserRecord {
  return {
    id: u.id,
    organizationId: u.organizationId,
    email: u.email,
    name: u.name,
    role: u.role,
    totpEnabled: u.totpEnabled,
    createdAt: u.createdAt,
  };
}

export const emailKey = (email: string) => email.trim().toLowerCase();

export async function insertUser(
  q: Queryable,
  u: {
    id: string;
    organizationId: string | null;
    email: string;
    name: string;
    role: Role;
    passwordHash: string;
  },
): Promise<UserSecrets> {
  const rows = await q.query(
    `INSERT INTO users (id, organization_id, email, email_key, name, role, password_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${USER_COLUMNS}`,
    [u.id, u.organizationId, u.email, emailKey(u.email), u.name, u.role, u.passwordHash],
  );
  return toUser(rows[0]!);
}

export async function findActiveUserByEmail(q: Queryable, email: string): Promise<UserSecrets | undefined> {
  const rows = await q.query(
    `SELECT ${USER_COLUMNS} FROM users WHERE email_key = $1 AND removed_at IS NULL`,
    [emailKey(email)],
  );
  return rows[0] && toUser(rows[0]);
}

/** An active user of this organization (null: an operator user); `lock` takes its row. */
export async function findActiveUser(
  q: Queryable,
  id: string,
  organizationId: string | null,
  lock = false,
): Promise<UserSecrets | undefined> {
  const rows = await q.query(
    `SELECT ${USER_COLUMNS} FROM users
      WHERE id = $1 AND organization_id IS NOT DISTINCT FROM $2 AND removed_at IS NULL ${lock ? 'FOR UPDATE' : ''}`,
    [id, organizationId],
  );
  return rows[0] && toUser(rows[0]);
}

export async function listUsers(q: Queryable, organizationId: string | null): Promise<UserRecord[]> {
  const rows = await q.query(
    `SELECT ${USER_COLUMNS} FROM users
      WHERE organization_id IS NOT DISTINCT FROM $1 AND removed_at IS NULL ORDER BY created_at, id`,
    [organizationId],
  );
  return rows.map((r) => publicUser(toUser(r)));
}

export async function setRole(q: Queryable, id: string, role: Role): Promise<void> {
  await q.query('UPDATE users SET role = $2, updated_at = now() WHERE id = $1', [id, role]);
}

/** Removes the user and ends its sessions. */
export async function removeUser(q: Queryable, id: string): Promise<void> {
  await q.query('UPDATE users SET removed_at = now(), updated_at = now() WHERE id = $1', [id]);
  await q.query('UPDATE user_sessions SET ended_at = now() WHERE user_id = $1 AND ended_at IS NULL', [id]);
}

export async function setPasswordHash(q: Queryable, id: string, passwordHash: string): Promise<void> {
  await q.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [id, passwordHash]);
}

/**
 * Whether an active account has this e-mail address: anywhere on the hub, or (with `team`) in
 * that organization, or among the operators for `null`.
 */
export async function emailInUse(q: Queryable, email: string, team?: string | null): Promise<boolean> {
  const rows =
    team === undefined
      ? await q.query('SELECT 1 FROM users WHERE email_key = $1 AND removed_at IS NULL', [emailKey(email)])
      : await q.query(
          `SELECT 1 FROM users WHERE email_key = $1 AND removed_at IS NULL
             AND organization_id IS NOT DISTINCT FROM $2`,
          [emailKey(email), team],
        );
  return rows.length > 0;
}

// Invitations

export interface InvitationRecord {
  id: string;
  organizationId: string | null;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

function toInvitation(r: Record<string, unknown>): InvitationRecord {
  return {
    id: r.id as string,
    organizationId: (r.organization_id as string | null) ?? null,
    email: r.email as string,
    role: r.role as Role,
    invitedBy: r.invited_by as string,
    createdAt: toIso(r.created_at),
    expiresAt: toIso(r.expires_at),
  };
}

const INVITATION_COLUMNS = 'id, organization_id, email, role, invited_by, created_at, expires_at';

export async function insertInvitation(
  q: Queryable,
  i: {
    id: string;
    organizationId: string | null;
    email: string;
    role: Role;
    tokenHash: Buffer;
    invitedBy: string;
    validMs: number;
  },
): Promise<InvitationRecord> {
  const rows = await q.query(
    `INSERT INTO user_invitations (id, organization_id, email, email_key, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8)) RETURNING ${INVITATION_COLUMNS}`,
    [i.id, i.organizationId, i.email, emailKey(i.email), i.role, i.tokenHash, i.invitedBy, i.validMs / 1000],
  );
  return toInvitation(rows[0]!);
}

/** The open invitation with this token hash (not accepted, revoked nor expired), locked. */
export async function lockOpenInvitation(
  q: Queryable,
  tokenHash: Buffer,
): Promise<InvitationRecord | undefined> {
  const rows = await q.query(
    `SELECT ${INVITATION_COLUMNS} FROM user_invitations
      WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() FOR UPDATE`,
    [tokenHash],
  );
  return rows[0] && toInvitation(rows[0]);
}

export async function markAccepted(q: Queryable, id: string, userId: string): Promise<void> {
  await q.query('UPDATE user_invitations SET accepted_at = now(), user_id = $2 WHERE id = $1', [id, userId]);
}

/** Revokes an open invitation of the team; the invitation as it was, or undefined when none is open. */
export async function revokeInvitation(
  q: Queryable,
  id: string,
  organizationId: string | null,
): Promise<InvitationRecord | undefined> {
  const rows = await q.query(
    `UPDATE user_invitations SET revoked_at = now()
      WHERE id = $1 AND organization_id IS NOT DISTINCT FROM $2
        AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
      RETURNING ${INVITATION_COLUMNS}`,
    [id, organizationId],
  );
  return rows[0] && toInvitation(rows[0]);
}

export async function listOpenInvitations(
  q: Queryable,
  organizationId: string | null,
): Promise<InvitationRecord[]> {
  const rows = await q.query(
    `SELECT ${INVITATION_COLUMNS} FROM user_invitations
      WHERE organization_id IS NOT DISTINCT FROM $1 AND accepted_at IS NULL AND revoked_at IS NULL
        AND expires_at > now() ORDER BY created_at, id`,
    [organizationId],
  );
  return rows.map(toInvitation);
}

// Second factor

export async function setPendingTotp(q: Queryable, userId: string, sealed: Buffer): Promise<void> {
  await q.query(
    'UPDATE users SET sealed_totp = $2, totp_enabled_at = NULL, totp_last_step = NULL, updated_at = now() WHERE id = $1',
    [userId, sealed],
  );
}

/**
 * Records `step` as the last accepted TOTP step (and, with `enable`, turns TOTP on); false when a
 * code of that step or a later one was accepted already (a replay, or a race with another request).
 */
export async function acceptTotpStep(
  q: Queryable,
  userId: string,
  step: number,
  enable = false,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE users SET totp_last_step = $2
       ${enable ? ', totp_enabled_at = now(), updated_at = now()' : ''}
      WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id`,
    [userId, step],
  );
  return rows.length > 0;
}

export async function replaceRecoveryCodes(q: Queryable, userId: string, hashes: Buffer[]): Promise<void> {
  await q.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
  for (const h of hashes) {
    await q.query('INSERT INTO user_recovery_codes (user_id, code_hash) VALUES ($1, $2)', [userId, h]);
  }
}

/** Uses a recovery code up; false when it is not one of the user's unused codes. */
export async function useRecoveryCode(q: Queryable, userId: string, hash: Buffer): Promise<boolean> {
  const rows = await q.query(
    `UPDATE user_recovery_codes SET used_at = now()
      WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING user_id`,
    [userId, hash],
  );
  return rows.length > 0;
}

export async function requiresTotp(q: Queryable, organizationId: string): Promise<boolean> {
  const rows = await q.query<{ require_totp: boolean }>(
    'SELECT require_totp FROM people_policies WHERE organization_id = $1',
    [organizationId],
  );
  return rows[0]?.require_totp === true;
}

export async function setRequireTotp(q: Queryable, organizationId: string, on: boolean): Promise<void> {
  await q.query(
    `INSERT INTO people_policies (organization_id, require_totp) VALUES ($1, $2)
     ON CONFLICT (organization_id) DO UPDATE SET require_totp = $2, updated_at = now()`,
    [organizationId, on],
  );
}
