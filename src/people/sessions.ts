/**
 * Sign-in and browser sessions (SPEC §17).
 *
 * - A session id is a 256-bit random value; its CSRF token is HMAC-SHA256 keyed by the id, so the
 *   session's own cookie can ask for it again (GET /v1/sessions/current: a new tab needs it) while
 *   the token reveals nothing of the id. The database keeps only the SHA-256 of the id (the token
 *   is derived again to check it). The id
 *   travels only in an HttpOnly, SameSite=Strict cookie (cookies.ts); the token goes to the page in
 *   the sign-in answer and to same-origin reads of the current session (no other origin can read
 *   those answers), and must come back in `x-csrf-token` with every unsafe method a cookie
 *   authenticates (auth.ts checks it before the body is even parsed).
 * - A session ends at sign-out, when its user is removed, after HUB_SESSION_IDLE without a request,
 *   and HUB_SESSION_MAX after sign-in, whichever comes first; the database's clock decides.
 * - Every failed sign-in gets the same 401 and takes the same work: an unknown e-mail still runs a
 *   password hash, and a wrong second factor is only looked at after a right password.
 * - Failures count per client address (in this process, a window) and per e-mail address (in the
 *   database, whether or not an account has it, so the throttle reveals nothing): past a few, each
 *   failure blocks that e-mail for a delay that doubles up to a cap, and a success or a quiet spell
 *   starts the count again. Nobody can lock an account for good: a block always ends within the cap.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { recordAudit } from '../audit/store.js';
import { openPii, type SealingKeys } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import { AppError, notFound, validationFailed } from '../http/errors.js';
import { checkPassword, hashPassword, verifyNothing, verifyPassword } from './passwords.js';
import { recoveryCodeHash, totpContext } from './secrets.js';
import * as sessions from './session-store.js';
import * as store from './store.js';
import { verifyTotp } from './totp.js';

/** The per-e-mail throttle: free failures, the quiet spell that resets the count, the longest block. */
export const THROTTLE = { free: 5, quietMs: 15 * 60_000, capMs: 15 * 60_000 } as const;
/** Failed sign-ins one client address may make per window before it is answered 429. */
export const ADDRESS_FAILURES = { max: 30, windowMs: 5 * 60_000 } as const;

const hash = (value: string) => createHash('sha256').update(value).digest();

/** A session's CSRF token: fixed for the session, computable only from its (secret) id. */
export const csrfTokenOf = (sessionId: string) =>
  createHmac('sha256', sessionId).update('trh/csrf-token').digest('base64url');

const refused = () =>
  new AppError('UNAUTHENTICATED', 'The e-mail address, the password or the second factor is not right.');

const tooMany = (seconds: number) =>
  new AppError('RATE_LIMITED', 'Too many failed sign-ins; wait before trying again.', undefined, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(seconds))) },
  });

/** Where a sign-in comes from: kept with the session, so its person can tell it from another. */
export interface Client {
  address: string;
  userAgent?: string | undefined;
}

/** A session as the authentication hook sees it. */
export interface SessionAuth extends sessions.LiveSession {
  sessionHash: Buffer;
}

export class SessionService {
  private addressFailures = new Map<string, number>();
  private windowStart = 0;

  constructor(
    private readonly db: Database,
    private readonly keys: SealingKeys,
    private readonly limits: { idleMs: number; maxMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  async signIn(
    input: { email: string; password: string; totp?: string },
    client: Client,
  ): Promise<{ user: store.UserRecord; sessionId: string; csrfToken: string }> {
    const clientAddress = client.address;
    // Both throttles count a try before the password is checked, and give it back on success:
    // requests sent at once cannot all pass the check before the first failure is counted.
    if (!this.addressTry(clientAddress)) throw tooMany(ADDRESS_FAILURES.windowMs / 1000);
    const emailHash = hash(store.emailKey(input.email));
    const wait = await this.takeTry(emailHash);
    if (wait > 0) {
      this.addressRelease(clientAddress);
      throw tooMany(wait);
    }
    let user: store.UserSecrets | undefined;
    try {
      user = await store.findActiveUserByEmail(this.db, input.email);
      const passwordOk = user
        ? await verifyPassword(input.password, user.passwordHash)
        : await verifyNothing(input.password);
      if (!user || !passwordOk || !(await this.secondFactor(user, input.totp))) throw refused();
    } catch (err) {
      // A wrong guess stays counted; an error of the hub's own (a database down) is no guess.
      if (!(err instanceof AppError && err.code === 'UNAUTHENTICATED')) this.addressRelease(clientAddress);
      throw err;
    }
    this.addressRelease(clientAddress);
    const opened = await this.db.transaction(async (tx) => {
      await sessions.clearFailures(tx, emailHash);
      return this.open(tx, user, client, { secondFactor: user.totpEnabled });
    });
    return { user: store.publicUser(user), ...opened };
  }

  /**
   * Opens a session for a user who has proven who they are (a password and second factor here, or
   * single sign-on, people/oidc.ts), in the caller's transaction, with its audit row.
   */
  async open(
    tx: Queryable,
    user: store.UserRecord,
    client: Client,
    details: Record<string, unknown>,
  ): Promise<{ sessionId: string; csrfToken: string }> {
    const sessionId = randomBytes(32).toString('base64url');
    const csrfToken = csrfTokenOf(sessionId);
    await sessions.insertSession(tx, {
      idHash: hash(sessionId),
      userId: user.id,
      maxMs: this.limits.maxMs,
      userAgent: client.userAgent?.slice(0, 300) || null,
      clientAddress: client.address,
    });
    await recordAudit(tx, {
      actor: `user:${user.id}`,
      action: 'session.created',
      subjectType: 'user',
      subjectId: user.id,
      details: { organizationId: user.organizationId, clientAddress: client.address, ...details },
    });
    return { sessionId, csrfToken };
  }

  /** Without TOTP on, nothing more is asked; with it, a current code or an unused recovery code. */
  private async secondFactor(user: store.UserSecrets, given: string | undefined): Promise<boolean> {
    if (!user.totpEnabled || user.sealedTotp === null) return true;
    if (given === undefined) return false;
    const code = given.replace(/\s/g, '');
    if (/^\d{6}$/.test(code)) {
      const secret = openPii(this.keys, totpContext(user.id), user.sealedTotp);
      const step = verifyTotp(secret, code, this.now(), user.totpLastStep);
      return step !== undefined && (await store.acceptTotpStep(this.db, user.id, step));
    }
    return store.useRecoveryCode(this.db, user.id, recoveryCodeHash(code));
  }

  /** The live session of a cookie's id, its idle clock restarted; undefined when it has ended. */
  async authenticate(sessionId: string): Promise<SessionAuth | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(sessionId)) return undefined;
    const sessionHash = hash(sessionId);
    const live = await sessions.touchSession(this.db, sessionHash, this.limits.idleMs);
    return live && { ...live, sessionHash };
  }

  /** Whether the header carries the session's CSRF token (compared in constant time). */
  csrfMatches(sessionId: string, header: unknown): boolean {
    if (typeof header !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(header)) return false;
    return timingSafeEqual(hash(header), hash(csrfTokenOf(sessionId)));
  }

  async signOut(sessionHash: Buffer, userId: string, organizationId: string | null): Promise<void> {
    await this.db.transaction(async (tx) => {
      await sessions.endSession(tx, sessionHash);
      await recordAudit(tx, {
        actor: `user:${userId}`,
        action: 'session.ended',
        subjectType: 'user',
        subjectId: userId,
        details: { organizationId },
      });
    });
  }

  /** The person's open sessions, the caller's marked `current`. */
  listOwn(userId: string, currentHash: Buffer | null) {
    return sessions.listSessions(this.db, userId, this.limits.idleMs, currentHash);
  }

  /** Ends one of the person's own sessions (404 when it has no such open session). */
  async endOwn(userId: string, organizationId: string | null, publicId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!(await sessions.endOwnSession(tx, userId, publicId))) throw notFound('The open session');
      await recordAudit(tx, {
        actor: `user:${userId}`,
        action: 'session.ended',
        subjectType: 'user',
        subjectId: userId,
        details: { organizationId, session: publicId },
      });
    });
  }

  /**
   * Changes the person's password after checking the current one (throttled like a sign-in: a
   * stolen session cannot guess it at will), and ends every other session of theirs.
   */
  async changePassword(
    session: { userId: string; organizationId: string | null; sessionHash: Buffer },
    body: { currentPassword: string; newPassword: string },
  ): Promise<{ otherSessionsEnded: number }> {
    checkPassword(body.newPassword, '/newPassword');
    if (body.newPassword.normalize('NFC') === body.currentPassword.normalize('NFC')) {
      throw validationFailed([{ path: '/newPassword', message: 'must differ from the current password' }]);
    }
    const user = await store.findActiveUser(this.db, session.userId, session.organizationId);
    if (!user) throw notFound('The user');
    const emailHash = hash(store.emailKey(user.email));
    const wait = await this.takeTry(emailHash);
    if (wait > 0) throw tooMany(wait);
    const secrets = await store.findActiveUserByEmail(this.db, user.email);
    if (!secrets || !(await verifyPassword(body.currentPassword, secrets.passwordHash))) {
      throw validationFailed([{ path: '/currentPassword', message: 'is not the current password' }]);
    }
    const passwordHash = await hashPassword(body.newPassword);
    return this.db.transaction(async (tx) => {
      await store.setPasswordHash(tx, session.userId, passwordHash);
      const ended = await sessions.endOtherSessions(tx, session.userId, session.sessionHash);
      await sessions.clearFailures(tx, emailHash);
      await recordAudit(tx, {
        actor: `user:${session.userId}`,
        action: 'user.password_changed',
        subjectType: 'user',
        subjectId: session.userId,
        details: { organizationId: session.organizationId, otherSessionsEnded: ended },
      });
      return { otherSessionsEnded: ended };
    });
  }

  /** The per-e-mail throttle's try (session-store.ts, takeTry): 0, or the seconds to wait. */
  private takeTry(emailHash: Buffer): Promise<number> {
    return this.db.transaction((tx) => sessions.takeTry(tx, emailHash, THROTTLE));
  }

  /** Counts a try from the address (as a failure until released); false when it is over the limit. */
  private addressTry(address: string): boolean {
    this.rollWindow();
    const n = this.addressFailures.get(address) ?? 0;
    if (n >= ADDRESS_FAILURES.max) return false;
    this.addressFailures.set(address, n + 1);
    return true;
  }

  /** Gives back a try that did not fail. */
  private addressRelease(address: string): void {
    const n = this.addressFailures.get(address);
    if (n !== undefined && n > 0) this.addressFailures.set(address, n - 1);
  }

  private rollWindow(): void {
    const now = this.now();
    if (now - this.windowStart >= ADDRESS_FAILURES.windowMs || this.addressFailures.size > 10_000) {
      this.addressFailures = new Map();
      this.windowStart = now;
    }
  }
}
