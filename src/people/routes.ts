/**
 * People routes (SPEC §17). An organization's team under /v1/users (its admins, or a `full` key),
 * the operators' under /v1/admin/users (operator keys, operator admins); invitations are accepted
 * and sessions opened without a key (public routes, throttled); a session's own account under
 * /v1/users/me. What each route needs is in roles.ts, checked by auth.ts before the body is read.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { actorOf, orgOf, userOf } from '../http/auth.js';
import { AppError } from '../http/errors.js';
import { type HubApp, problems } from '../http/types.js';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from './cookies.js';
import {
  Accept,
  ChangeOperatorRole,
  ChangePassword,
  ChangeRole,
  Invitation,
  Invite,
  InviteOperator,
  Me,
  OwnSessions,
  PasswordChanged,
  Policy,
  RecoveryCodes,
  SessionParams,
  SignedIn,
  SignIn,
  TokenParams,
  TotpConfirm,
  TotpEnrolment,
  UserAnswer,
  UserList,
  UserParams,
} from './schemas.js';
import type { PeopleService, Team } from './service.js';
import { csrfTokenOf, type SessionService } from './sessions.js';

type Failed = (request: FastifyRequest) => AppError | undefined;

/** The signed-in person (routes that need `self` have one). */
function me(request: FastifyRequest): { userId: string; team: Team } {
  const user = userOf(request);
  if (!user) throw new AppError('FORBIDDEN', 'This route is for a signed-in person, not an API key.');
  return { userId: user.userId, team: user.organizationId };
}

/** The signed-in person's session as the hook authenticated it. */
function session(request: FastifyRequest) {
  const auth = request.auth;
  if (auth?.kind !== 'user')
    throw new AppError('FORBIDDEN', 'This route is for a signed-in person, not an API key.');
  return auth;
}

/** Where a sign-in comes from, kept with its session for "My account". */
const clientOf = (request: FastifyRequest) => ({
  address: request.ip,
  userAgent: request.headers['user-agent'],
});

/** Cancels an open invitation of the team (an organization's, or the operators' when null). */
function revokeRoute(
  app: HubApp,
  people: PeopleService,
  url: string,
  team: (r: FastifyRequest) => Team,
  tags: string[],
) {
  app.delete(
    url,
    {
      schema: {
        tags,
        summary: 'Cancel an open invitation: its link stops working at once',
        params: UserParams,
        response: { 204: Type.Null({ description: 'Cancelled' }), ...problems(404) },
      },
    },
    async (request, reply) => {
      await people.revokeInvitation(team(request), request.params.id, actorOf(request));
      return reply.code(204).send(null);
    },
  );
}

export function peopleRoutes(
  app: HubApp,
  people: PeopleService,
  sessions: SessionService,
  opts: { secureCookies: boolean; failed: Failed },
) {
  const tags = ['people'];
  const callerUser = (request: FastifyRequest) => userOf(request)?.userId ?? null;

  app.post(
    '/v1/users/invitations',
    {
      schema: {
        tags,
        summary:
          'Invite a person to the organization by e-mail (admin or full key); the link works once, 7 days',
        body: Invite,
        response: { 201: Invitation, ...problems(400, 409, 415) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return people.invite(orgOf(request), request.body, actorOf(request));
    },
  );

  revokeRoute(app, people, '/v1/users/invitations/:id', orgOf, tags);

  app.post(
    '/v1/invitations/:token/accept',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Accept an invitation with a name and a password of at least 12 characters (no key)',
        params: TokenParams,
        body: Accept,
        response: { 201: UserAnswer, ...problems(400, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      try {
        const user = await people.accept(request.params.token, request.body);
        reply.code(201);
        return { user };
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') throw opts.failed(request) ?? err;
        throw err;
      }
    },
  );

  app.get(
    '/v1/users',
    {
      schema: {
        tags,
        summary: 'The organization’s people and open invitations (admin)',
        response: { 200: UserList, ...problems() },
      },
    },
    (request) => people.list(orgOf(request)),
  );

  app.patch(
    '/v1/users/:id',
    {
      schema: {
        tags,
        summary: 'Change a person’s role (admin; not one’s own)',
        params: UserParams,
        body: ChangeRole,
        response: { 200: UserAnswer, ...problems(400, 404, 409, 415) },
      },
    },
    async (request) => ({
      user: await people.changeRole(
        orgOf(request),
        request.params.id,
        request.body.role,
        actorOf(request),
        callerUser(request),
      ),
    }),
  );

  app.delete(
    '/v1/users/:id',
    {
      schema: {
        tags,
        summary: 'Remove a person (admin; not oneself): their sessions end at once',
        params: UserParams,
        response: { 204: Type.Null({ description: 'Removed' }), ...problems(400, 404, 409) },
      },
    },
    async (request, reply) => {
      await people.remove(orgOf(request), request.params.id, actorOf(request), callerUser(request));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/users/policy',
    {
      schema: {
        tags,
        summary: 'The organization’s people policy (admin)',
        response: { 200: Policy, ...problems() },
      },
    },
    (request) => people.policy(orgOf(request)),
  );

  app.put(
    '/v1/users/policy',
    {
      schema: {
        tags,
        summary: 'Require a second factor of everyone in the organization, or not (admin)',
        description:
          'While it is required, a person without TOTP may sign in but only enrol (POST /v1/users/me/totp) ' +
          'until they have it; every other route answers 403.',
        body: Policy,
        response: { 200: Policy, ...problems(400, 415) },
      },
    },
    (request) => people.setPolicy(orgOf(request), request.body.requireTotp, actorOf(request)),
  );

  app.get(
    '/v1/users/me',
    {
      schema: {
        tags,
        summary: 'The signed-in person (a session only)',
        response: { 200: Me, ...problems() },
      },
    },
    (request) => {
      const { team, userId } = me(request);
      return people.me(team, userId);
    },
  );

  app.post(
    '/v1/users/me/totp',
    {
      schema: {
        tags,
        summary: 'Start enrolling a TOTP second factor: a new secret, on once confirmed (a session only)',
        response: { 200: TotpEnrolment, ...problems(409) },
      },
    },
    (request) => {
      const { team, userId } = me(request);
      return people.startTotp(team, userId);
    },
  );

  app.post(
    '/v1/users/me/totp/confirm',
    {
      schema: {
        tags,
        summary: 'Turn TOTP on with a current code; returns ten single-use recovery codes, shown once',
        body: TotpConfirm,
        response: { 200: RecoveryCodes, ...problems(400, 409, 415) },
      },
    },
    (request) => {
      const { team, userId } = me(request);
      return people.confirmTotp(team, userId, request.body.code);
    },
  );

  app.post(
    '/v1/sessions',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary:
          'Sign in with e-mail, password and (when on) a TOTP or recovery code; sets the session cookie',
        description:
          'An unknown e-mail, a wrong password and a missing or wrong second factor all answer the same 401. ' +
          'Repeated failures for one e-mail address, or from one client address, answer 429 for a while.',
        body: SignIn,
        response: { 200: SignedIn, ...problems(400, 415) },
      },
    },
    async (request, reply) => {
      const signed = await sessions.signIn(request.body, clientOf(request));
      reply.header('set-cookie', sessionCookie(signed.sessionId, opts.secureCookies));
      reply.header('cache-control', 'no-store');
      const { totpRequired } = await people.me(signed.user.organizationId, signed.user.id);
      return {
        user: signed.user,
        csrfToken: signed.csrfToken,
        totpRequired: totpRequired && !signed.user.totpEnabled,
      };
    },
  );

  app.get(
    '/v1/sessions/current',
    {
      schema: {
        tags,
        summary:
          'The signed-in person and the session’s CSRF token, for a new tab (the session’s cookie only)',
        description:
          'Answers what the sign-in answered, from the cookie alone, so every tab of the browser can work ' +
          'with one session. Only a page of the hub’s own origin can read the answer: no other origin gets CORS.',
        response: { 200: SignedIn, ...problems() },
      },
    },
    async (request, reply) => {
      const { team, userId } = me(request);
      // The hook authenticated this cookie: the session id is there, and the token is its HMAC.
      const sessionId = readSessionCookie(request.headers.cookie);
      if (sessionId === undefined) throw new AppError('FORBIDDEN', 'This route needs the session cookie.');
      reply.header('cache-control', 'no-store');
      const { user, totpRequired } = await people.me(team, userId);
      return { user, csrfToken: csrfTokenOf(sessionId), totpRequired: totpRequired && !user.totpEnabled };
    },
  );

  app.get(
    '/v1/users/me/sessions',
    {
      schema: {
        tags,
        summary: 'The signed-in person’s open sessions, this one marked `current` (a session only)',
        response: { 200: OwnSessions, ...problems() },
      },
    },
    async (request, reply) => {
      const auth = session(request);
      reply.header('cache-control', 'no-store');
      return { sessions: await sessions.listOwn(auth.userId, auth.sessionHash) };
    },
  );

  app.delete(
    '/v1/users/me/sessions/:id',
    {
      schema: {
        tags,
        summary: 'End one of one’s own sessions, e.g. on a lost laptop (a session only)',
        params: SessionParams,
        response: { 204: Type.Null({ description: 'Ended' }), ...problems(404) },
      },
    },
    async (request, reply) => {
      const auth = session(request);
      await sessions.endOwn(auth.userId, auth.organizationId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/users/me/password',
    {
      schema: {
        tags,
        summary: 'Change one’s password with the current one; every other session of the person ends',
        description:
          'A wrong current password answers 400 and counts as a failed sign-in for the account (the same ' +
          'throttle, 429 past it).',
        body: ChangePassword,
        response: { 200: PasswordChanged, ...problems(400, 415, 429) },
      },
    },
    (request) => sessions.changePassword(session(request), request.body),
  );

  app.delete(
    '/v1/sessions/current',
    {
      schema: {
        tags,
        summary: 'Sign out: the session ends and its cookie is cleared',
        response: { 204: Type.Null({ description: 'Signed out' }), ...problems() },
      },
    },
    async (request, reply: FastifyReply) => {
      const auth = session(request);
      await sessions.signOut(auth.sessionHash, auth.userId, auth.organizationId);
      reply.header('set-cookie', clearedSessionCookie(opts.secureCookies));
      return reply.code(204).send(null);
    },
  );
}

/** The operators' team (SPEC §17): operator keys and operator admins invite, change and remove. */
export function adminPeopleRoutes(app: HubApp, people: PeopleService) {
  const tags = ['operator'];
  const callerUser = (request: FastifyRequest) => userOf(request)?.userId ?? null;

  app.post(
    '/v1/admin/users/invitations',
    {
      schema: {
        tags,
        summary:
          'Invite a person as an operator user (viewer or admin); the operator key may invite the first',
        body: InviteOperator,
        response: { 201: Invitation, ...problems(400, 409, 415) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return people.invite(null, request.body, actorOf(request));
    },
  );

  revokeRoute(app, people, '/v1/admin/users/invitations/:id', () => null, tags);

  app.get(
    '/v1/admin/users',
    {
      schema: {
        tags,
        summary: 'Operator users and open invitations',
        response: { 200: UserList, ...problems() },
      },
    },
    () => people.list(null),
  );

  app.patch(
    '/v1/admin/users/:id',
    {
      schema: {
        tags,
        summary: 'Change an operator user’s role (not one’s own)',
        params: UserParams,
        body: ChangeOperatorRole,
        response: { 200: UserAnswer, ...problems(400, 404, 409, 415) },
      },
    },
    async (request) => ({
      user: await people.changeRole(
        null,
        request.params.id,
        request.body.role,
        actorOf(request),
        callerUser(request),
      ),
    }),
  );

  app.delete(
    '/v1/admin/users/:id',
    {
      schema: {
        tags,
        summary: 'Remove an operator user (not oneself): their sessions end at once',
        params: UserParams,
        response: { 204: Type.Null({ description: 'Removed' }), ...problems(400, 404, 409) },
      },
    },
    async (request, reply) => {
      await people.remove(null, request.params.id, actorOf(request), callerUser(request));
      return reply.code(204).send(null);
    },
  );
}
