/**
 * People (SPEC §17): invitations, users and their roles, the second factor, an organization's
 * policy. One "team" is an organization's users, or the hub's operator users (organizationId null).
 * Every change runs in one database transaction with its audit row (and, for an invitation, its
 * e-mail in the outbox). Passwords are hashed before the transaction opens: the slow part holds
 * no locks. Nothing returned carries a password hash, a TOTP secret (but once, to enrol) or a token.
 */
import { randomUUID } from 'node:crypto';
import { type Actor, recordAudit } from '../audit/store.js';
import { tokenHash } from '../claims/tokens.js';
import { openPii, type SealingKeys, sealPii } from '../crypto/envelope.js';
import { type Database, isUniqueViolation } from '../db/database.js';
import { email } from '../deliveries/events.js';
import { enqueue } from '../deliveries/outbox.js';
import { AppError, notFound, validationFailed } from '../http/errors.js';
import { isEmail, isPrintableName, NAME_RULE } from '../text/formats.js';
import { checkPassword, hashPassword } from './passwords.js';
import { OPERATOR_ROLES, type Role } from './roles.js';
import { newRecoveryCodes, recoveryCodeHash, totpContext } from './secrets.js';
import * as store from './store.js';
import { newTotpSecret, otpauthUrl, verifyTotp } from './totp.js';

/** How long an invitation link works (SPEC §17). */
export const INVITATION_VALID_MS = 7 * 86_400_000;

/** Whose team: an organization's, or the operators' (null). */
export type Team = string | null;

export interface PeopleDeps {
  db: Database;
  keys: SealingKeys;
  /** The token of an invitation's link, derived from its id (claims/tokens.ts). */
  invitationToken(invitationId: string): string;
  /** The organization's name, for the invitation e-mail; undefined when there is no such organization. */
  organizationName(organizationId: string): Promise<string | undefined>;
  now?: () => number;
}

const details = (team: Team, more: Record<string, unknown> = {}) => ({ organizationId: team, ...more });

export class PeopleService {
  private readonly db: Database;
  private readonly now: () => number;

  constructor(private readonly deps: PeopleDeps) {
    this.db = deps.db;
    this.now = deps.now ?? Date.now;
  }

  async invite(team: Team, body: { email: string; role: Role }, actor: Actor) {
    checkRole(team, body.role);
    if (!isEmail(body.email))
      throw validationFailed([{ path: '/email', message: 'must be an e-mail address' }]);
    const orgName = team === null ? null : await this.deps.organizationName(team);
    if (orgName === undefined) throw notFound('The organization');
    const id = randomUUID();
    return this.db.transaction(async (tx) => {
      // Only the team's own people are looked at: whether an address has an account elsewhere on
      // the hub is not the inviter's to learn. Accepting checks the whole hub (one account per address).
      if (await store.emailInUse(tx, body.email, team)) throw emailTaken();
      const invitation = await store.insertInvitation(tx, {
        id,
        organizationId: team,
        email: body.email,
        role: body.role,
        tokenHash: tokenHash(this.deps.invitationToken(id)),
        invitedBy: actor,
        validMs: INVITATION_VALID_MS,
      });
      await enqueue(tx, [
        email('user-invitation', body.email, null, {
          invitationId: id,
          organizationName: orgName,
          role: body.role,
          expiresAt: invitation.expiresAt,
        }),
      ]);
      await recordAudit(tx, {
        actor,
        action: 'user.invited',
        subjectType: 'invitation',
        subjectId: id,
        details: details(team, { role: body.role }),
      });
      return { id, email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt };
    });
  }

  /** Accepts an invitation: the link is used up and the person has an account. */
  async accept(token: string, body: { name: string; password: string }): Promise<store.UserRecord> {
    if (!isPrintableName(body.name)) throw validationFailed([{ path: '/name', message: NAME_RULE }]);
    checkPassword(body.password);
    const passwordHash = await hashPassword(body.password);
    try {
      return await this.db.transaction(async (tx) => {
        const invitation = await store.lockOpenInvitation(tx, tokenHash(token));
        if (!invitation) throw notFound('The invitation');
        if (await store.emailInUse(tx, invitation.email)) throw emailTaken();
        const user = await store.insertUser(tx, {
          id: randomUUID(),
          organizationId: invitation.organizationId,
          email: invitation.email,
          name: body.name,
          role: invitation.role,
          passwordHash,
        });
        await store.markAccepted(tx, invitation.id, user.id);
        await recordAudit(tx, {
          actor: `user:${user.id}`,
          action: 'user.joined',
          subjectType: 'user',
          subjectId: user.id,
          details: details(invitation.organizationId, { invitationId: invitation.id, role: user.role }),
        });
        return store.publicUser(user);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw emailTaken();
      throw err;
    }
  }

  /** Cancels an open invitation: its link stops working at once. */
  async revokeInvitation(team: Team, id: string, actor: Actor): Promise<void> {
    await this.db.transaction(async (tx) => {
      const invitation = await store.revokeInvitation(tx, id, team);
      if (!invitation) throw notFound('The open invitation');
      await recordAudit(tx, {
        actor,
        action: 'user.invitation_revoked',
        subjectType: 'invitation',
        subjectId: id,
        details: details(team, { role: invitation.role }),
      });
    });
  }

  async list(team: Team) {
    const [users, invitations] = await Promise.all([
      store.listUsers(this.db, team),
      store.listOpenInvitations(this.db, team),
    ]);
    return {
      users,
      invitations: invitations.map((i) => ({
        id: i.id,
        email: i.email,
        role: i.role,
        expiresAt: i.expiresAt,
      })),
    };
  }

  async me(team: Team, userId: string) {
    const user = await store.findActiveUser(this.db, userId, team);
    if (!user) throw notFound('The user');
    const totpRequired = team !== null && (await store.requiresTotp(this.db, team));
    return { user: store.publicUser(user), totpRequired };
  }

  async changeRole(team: Team, id: string, role: Role, actor: Actor, callerUserId: string | null) {
    checkRole(team, role);
    if (id === callerUserId)
      throw new AppError('INVALID_STATE', 'Nobody changes their own role; ask another admin.');
    return this.db.transaction(async (tx) => {
      const user = await store.findActiveUser(tx, id, team, true);
      if (!user) throw notFound('The user');
      if (user.role !== role) {
        await store.setRole(tx, id, role);
        await recordAudit(tx, {
          actor,
          action: 'user.role_changed',
          subjectType: 'user',
          subjectId: id,
          details: details(team, { from: user.role, to: role }),
        });
      }
      return store.publicUser({ ...user, role });
    });
  }

  /** Removes a user (never the caller) and ends every session it has. */
  async remove(team: Team, id: string, actor: Actor, callerUserId: string | null): Promise<void> {
    if (id === callerUserId)
      throw new AppError('INVALID_STATE', 'Nobody removes themselves; ask another admin.');
    await this.db.transaction(async (tx) => {
      const user = await store.findActiveUser(tx, id, team, true);
      if (!user) throw notFound('The user');
      await store.removeUser(tx, id);
      await recordAudit(tx, {
        actor,
        action: 'user.removed',
        subjectType: 'user',
        subjectId: id,
        details: details(team, { role: user.role }),
      });
    });
  }

  /** A new TOTP secret for the user, on only once confirmed; refused while one is on. */
  async startTotp(team: Team, userId: string) {
    const user = await store.findActiveUser(this.db, userId, team);
    if (!user) throw notFound('The user');
    if (user.totpEnabled) {
      throw new AppError('INVALID_STATE', 'A second factor is already on for this account.');
    }
    const secret = newTotpSecret();
    await store.setPendingTotp(this.db, userId, sealPii(this.deps.keys, totpContext(userId), secret));
    return { secret, otpauthUrl: otpauthUrl('Travel Rule Hub', user.email, secret) };
  }

  /** Turns TOTP on with a first code; returns ten single-use recovery codes, shown once. */
  async confirmTotp(team: Team, userId: string, code: string): Promise<{ recoveryCodes: string[] }> {
    const codes = newRecoveryCodes();
    return this.db.transaction(async (tx) => {
      const user = await store.findActiveUser(tx, userId, team, true);
      if (!user) throw notFound('The user');
      if (user.totpEnabled)
        throw new AppError('INVALID_STATE', 'A second factor is already on for this account.');
      if (user.sealedTotp === null) {
        throw new AppError('INVALID_STATE', 'Start the enrolment first (POST /v1/users/me/totp).');
      }
      const secret = openPii(this.deps.keys, totpContext(userId), user.sealedTotp);
      const step = verifyTotp(secret, code, this.now(), user.totpLastStep);
      if (step === undefined || !(await store.acceptTotpStep(tx, userId, step, true))) {
        throw validationFailed([{ path: '/code', message: 'is not the current code of this secret' }]);
      }
      await store.replaceRecoveryCodes(tx, userId, codes.map(recoveryCodeHash));
      await recordAudit(tx, {
        actor: `user:${userId}`,
        action: 'user.totp_enabled',
        subjectType: 'user',
        subjectId: userId,
        details: details(team),
      });
      return { recoveryCodes: codes };
    });
  }

  async policy(organizationId: string) {
    return { requireTotp: await store.requiresTotp(this.db, organizationId) };
  }

  async setPolicy(organizationId: string, requireTotp: boolean, actor: Actor) {
    await this.db.transaction(async (tx) => {
      await store.setRequireTotp(tx, organizationId, requireTotp);
      await recordAudit(tx, {
        actor,
        action: 'people.policy_changed',
        subjectType: 'people_policy',
        subjectId: organizationId,
        details: details(organizationId, { requireTotp }),
      });
    });
    return { requireTotp };
  }
}

function checkRole(team: Team, role: Role): void {
  if (team === null && !(OPERATOR_ROLES as readonly string[]).includes(role)) {
    throw validationFailed([{ path: '/role', message: `must be one of ${OPERATOR_ROLES.join(', ')}` }]);
  }
}

const emailTaken = () =>
  new AppError('ALREADY_EXISTS', 'An account already uses this e-mail address.', [
    { path: '/email', message: 'already in use' },
  ]);
