/** SQL of sessions and of the per-address sign-in throttle (see sessions.ts for the rules). */
import type { Queryable } from '../db/database.js';
import { toIso } from '../db/database.js';
import type { Role } from './roles.js';

export async function insertSession(
  q: Queryable,
  s: {
    idHash: Buffer;
    userId: string;
    maxMs: number;
    userAgent: string | null;
    clientAddress: string;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO user_sessions (id_hash, user_id, expires_at, user_agent, client_address)
     VALUES ($1, $2, now() + make_interval(secs => $3), $4, $5)`,
    [s.idHash, s.userId, s.maxMs / 1000, s.userAgent, s.clientAddress],
  );
}

/** A person's own session as "My account" lists it: never its id or CSRF token. */
export interface SessionListing {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  userAgent: string | null;
  clientAddress: string | null;
  current: boolean;
}

/** The user's live sessions (not ended, before their absolute end, used within `idleMs`), newest first. */
export async function listSessions(
  q: Queryable,
  userId: string,
  idleMs: number,
  currentHash: Buffer | null,
): Promise<SessionListing[]> {
  const rows = await q.query<{
    public_id: string;
    created_at: unknown;
    last_seen_at: unknown;
    expires_at: unknown;
    user_agent: string | null;
    client_address: string | null;
    current: boolean;
  }>(
    `SELECT public_id, created_at, last_seen_at, expires_at, user_agent, client_address,
            id_hash = $3 AS current
       FROM user_sessions
      WHERE user_id = $1 AND ended_at IS NULL AND expires_at > now()
        AND last_seen_at > now() - make_interval(secs => $2)
      ORDER BY created_at DESC, public_id`,
    [userId, idleMs / 1000, currentHash],
  );
  return rows.map((r) => ({
    id: r.public_id,
    createdAt: toIso(r.created_at),
    lastSeenAt: toIso(r.last_seen_at),
    expiresAt: toIso(r.expires_at),
    userAgent: r.user_agent,
    clientAddress: r.client_address,
    current: r.current === true,
  }));
}

/** Ends one of the user's own sessions by its public id; false when it has none such still open. */
export async function endOwnSession(q: Queryable, userId: string, publicId: string): Promise<boolean> {
  const rows = await q.query(
    `UPDATE user_sessions SET ended_at = now()
      WHERE user_id = $1 AND public_id = $2 AND ended_at IS NULL AND expires_at > now() RETURNING 1`,
    [userId, publicId],
  );
  return rows.length > 0;
}

/** Ends every open session of the user but the one with `keepHash`; how many ended. */
export async function endOtherSessions(q: Queryable, userId: string, keepHash: Buffer): Promise<number> {
  const rows = await q.query(
    `UPDATE user_sessions SET ended_at = now()
      WHERE user_id = $1 AND id_hash <> $2 AND ended_at IS NULL RETURNING 1`,
    [userId, keepHash],
  );
  return rows.length;
}

export interface LiveSession {
  userId: string;
  organizationId: string | null;
  role: Role;
  totpEnabled: boolean;
  requireTotp: boolean;
}

/**
 * The live session with this id hash, its idle clock restarted; undefined when there is none:
 * signed out, its user removed, past its absolute end, or idle for `idleMs` or longer.
 */
export async function touchSession(
  q: Queryable,
  idHash: Buffer,
  idleMs: number,
): Promise<LiveSession | undefined> {
  const rows = await q.query<{
    user_id: string;
    organization_id: string | null;
    role: Role;
    totp_enabled_at: unknown;
    require_totp: boolean | null;
  }>(
    `WITH s AS (
       UPDATE user_sessions SET last_seen_at = now()
        WHERE id_hash = $1 AND ended_at IS NULL AND expires_at > now()
          AND last_seen_at > now() - make_interval(secs => $2)
        RETURNING user_id)
     SELECT u.id AS user_id, u.organization_id, u.role, u.totp_enabled_at, p.require_totp
       FROM s JOIN users u ON u.id = s.user_id AND u.removed_at IS NULL
       LEFT JOIN people_policies p ON p.organization_id = u.organization_id`,
    [idHash, idleMs / 1000],
  );
  const r = rows[0];
  return (
    r && {
      userId: r.user_id,
      organizationId: r.organization_id ?? null,
      role: r.role,
      totpEnabled: r.totp_enabled_at != null,
      requireTotp: r.require_totp === true,
    }
  );
}

export async function endSession(q: Queryable, idHash: Buffer): Promise<void> {
  await q.query('UPDATE user_sessions SET ended_at = now() WHERE id_hash = $1 AND ended_at IS NULL', [
    idHash,
  ]);
}

/**
 * Takes one try for the e-mail address, counted as a failure in advance (a success clears the
 * count): 0 when it may try, else the seconds it must still wait, and then nothing is counted.
 * The count starts again after `quietMs` without tries; from the `free`-th try on, the address is
 * blocked for 1 s, doubling per try, at most `capMs`. Run it in a transaction: the row stays locked
 * until the block is set, so tries sent at once are counted one after another and none slips past
 * the block.
 */
export async function takeTry(
  q: Queryable,
  emailHash: Buffer,
  policy: { free: number; quietMs: number; capMs: number },
): Promise<number> {
  const taken = await q.query<{ failures: number }>(
    `INSERT INTO sign_in_throttle AS t (email_hash, failures, last_failure_at) VALUES ($1, 1, now())
     ON CONFLICT (email_hash) DO UPDATE SET
       failures = CASE WHEN t.last_failure_at < now() - make_interval(secs => $2) THEN 1 ELSE t.failures + 1 END,
       last_failure_at = now()
     WHERE t.blocked_until IS NULL OR t.blocked_until <= now()
     RETURNING failures`,
    [emailHash, policy.quietMs / 1000],
  );
  if (taken.length === 0) {
    const rows = await q.query<{ wait: number | string | null }>(
      'SELECT EXTRACT(EPOCH FROM (blocked_until - now())) AS wait FROM sign_in_throttle WHERE email_hash = $1',
      [emailHash],
    );
    return Math.max(0.001, Number(rows[0]?.wait ?? 0));
  }
  const failures = Number(taken[0]!.failures);
  if (failures < policy.free) return 0;
  const delayMs = Math.min(policy.capMs, 1000 * 2 ** Math.min(30, failures - policy.free));
  await q.query(
    'UPDATE sign_in_throttle SET blocked_until = now() + make_interval(secs => $2) WHERE email_hash = $1',
    [emailHash, delayMs / 1000],
  );
  return 0;
}

/** A success: the address starts afresh; entries quiet for a day are dropped. */
export async function clearFailures(q: Queryable, emailHash: Buffer): Promise<void> {
  await q.query(
    `DELETE FROM sign_in_throttle WHERE email_hash = $1 OR last_failure_at < now() - interval '1 day'`,
    [emailHash],
  );
}
