/**
 * Authentication by `x-api-key` on every /v1 route (SPEC §3, §13). Operator keys (the bootstrap
 * HUB_ADMIN_KEY and named operators' keys) open only /v1/admin/*; organization keys open
 * everything else, a `read` key only its GET routes. The result is `request.auth`, which routes
 * read through `orgOf` / `callerOf` / `actorOf`; authorization by party happens in the services.
 *
 * The route decides, never the raw URL: the router decodes percent-escapes (`/%761/admin/…`) and
 * accepts absolute-form targets (`http://host/v1/admin/…`), so a URL that does not look like
 * /v1/admin can still reach an admin route. Only a request that matched no route (a 404 in the
 * making) is judged by its URL, and then it can at most turn that 404 into a 401.
 *
 * A person signed in through the dashboard authenticates with the session cookie instead (SPEC §17;
 * people/sessions.ts), on the same routes: an organization's users on its routes, operator users on
 * /v1/admin/*. A cookie request with an unsafe method must carry the session's CSRF token in
 * `x-csrf-token`. What the route needs (people/roles.ts: read, pii, act, admin, self) is checked
 * against the user's role here, before the body is parsed or validated, like the key's scope.
 * A request with `x-api-key` is judged by its key alone, whatever cookie it carries.
 *
 * Every failed authentication, whatever its shape (no key, a malformed one, an unknown or revoked
 * one), counts against the client's address: past the limit, further unauthenticated requests from
 * it get 429 instead of 401 until the second ends. Requests with a valid key are never held back by
 * someone else's bad keys behind the same address (a NAT, a proxy); they have their own limits.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from '../audit/store.js';
import { API_KEY_PATTERN, hashApiKey, hashesMatch, OPERATOR_KEY_PATTERN } from '../directory/api-keys.js';
import { readSessionCookie } from '../people/cookies.js';
import { type Need, needOf, type Role, roleMay } from '../people/roles.js';
import type { SessionAuth } from '../people/sessions.js';
import { AppError } from './errors.js';

export type Scope = 'full' | 'read';

/** An organization key as the directory knows it: its optional label and owner name it in the audit. */
export interface OrgKey {
  keyId: string;
  organizationId: string;
  scope: Scope;
  label?: string | null;
  ownerUserId?: string | null;
}

export type Auth =
  | { kind: 'operator'; operatorId: string | null; name: string }
  | ({ kind: 'org' } & OrgKey)
  /** A signed-in person; `organizationId` null for an operator user. */
  | { kind: 'user'; userId: string; organizationId: string | null; role: Role; sessionHash: Buffer };

declare module 'fastify' {
  interface FastifyRequest {
    auth: Auth | null;
  }
  interface FastifyContextConfig {
    /** A route anyone may call without a key (rate-limited per client address instead). */
    public?: boolean;
    /**
     * A route that changes nothing and reveals nothing of anyone's data, open to every key: an
     * organization's of either scope, and an operator's.
     */
    anyKey?: boolean;
    /** A POST that changes nothing (a dry run): organization keys of the read scope may call it. */
    readOnly?: boolean;
  }
}

/** How keys are looked up (the directory, cached). */
export interface KeyLookup {
  /** The active organization key with this SHA-256, if any. */
  authenticate(keyHash: Buffer): Promise<OrgKey | undefined>;
  /** The active named operator with this key hash, if any. */
  authenticateOperator(keyHash: Buffer): Promise<{ id: string; name: string } | undefined>;
}

/** How session cookies are checked (people/sessions.ts). */
export interface SessionLookup {
  authenticate(sessionId: string): Promise<SessionAuth | undefined>;
  /** Whether `header` is the CSRF token of the session with this (cookie's) id. */
  csrfMatches(sessionId: string, header: unknown): boolean;
}

/** The bootstrap operator's name in the audit (`operator:bootstrap`). */
export const BOOTSTRAP_OPERATOR = 'bootstrap';

const READ_METHODS = new Set(['GET', 'HEAD']);

const unauthenticated = () =>
  new AppError('UNAUTHENTICATED', 'Send a valid, unrevoked API key in the x-api-key header.');

/** Failed authentications per client address, per second (see the module's comment). */
class FailedAuthentications {
  private counts = new Map<string, number>();
  private windowStart = 0;

  constructor(private readonly perSecond: number) {}

  /** Counts a failure from this address; true once it is past the limit. */
  fail(address: string): boolean {
    const now = Date.now();
    if (now - this.windowStart >= 1000 || this.counts.size > 10_000) {
      this.counts = new Map();
      this.windowStart = now;
    }
    const n = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, n);
    return n > this.perSecond;
  }
}

const tooManyFailures = () =>
  new AppError('RATE_LIMITED', 'Too many failed authentications from this address; retry later.', undefined, {
    headers: { 'retry-after': '1' },
  });

export interface Authenticator {
  /** Checks a request's key (runs as an onRequest hook; call it for requests no hook sees). */
  authenticate(request: FastifyRequest): Promise<void>;
  /**
   * Counts a failed authentication that a route found itself (an unknown link token): the error
   * to answer with instead of the route's own once the address is past the limit.
   */
  failed(request: FastifyRequest): AppError | undefined;
}

/** Checks every /v1 request's key in an onRequest hook; returns the check for requests no hook sees. */
export function registerAuth(
  app: FastifyInstance,
  adminKey: string,
  keys: KeyLookup,
  options: { failuresPerSecond: number; sessions?: SessionLookup },
): Authenticator {
  const adminHash = hashApiKey(adminKey);
  const failures =
    options.failuresPerSecond > 0 ? new FailedAuthentications(options.failuresPerSecond) : undefined;
  const failed = (request: FastifyRequest) => (failures?.fail(request.ip) ? tooManyFailures() : undefined);
  const fail = (request: FastifyRequest) => failed(request) ?? unauthenticated();
  app.decorateRequest('auth', null);

  const identify = async (key: unknown): Promise<Auth | undefined> => {
    if (typeof key !== 'string' || key.length === 0 || key.length > 256) return undefined;
    const keyHash = hashApiKey(key);
    if (hashesMatch(keyHash, adminHash))
      return { kind: 'operator', operatorId: null, name: BOOTSTRAP_OPERATOR };
    if (OPERATOR_KEY_PATTERN.test(key)) {
      const operator = await keys.authenticateOperator(keyHash);
      return operator && { kind: 'operator', operatorId: operator.id, name: operator.name };
    }
    if (!API_KEY_PATTERN.test(key)) return undefined;
    const found = await keys.authenticate(keyHash);
    return found && { kind: 'org', ...found };
  };

  const authenticate = async (request: FastifyRequest): Promise<void> => {
    const path = request.routeOptions.url ?? request.url;
    if (!path.startsWith('/v1/') && path !== '/v1') return;
    if (request.routeOptions.config?.public) return;
    const adminRoute = path === '/v1/admin' || path.startsWith('/v1/admin/') || path.startsWith('/v1/admin?');
    const need = needOf(request.method, request.routeOptions.url ?? path.split('?')[0]!);
    const key = request.headers['x-api-key'];
    if (key === undefined && options.sessions) {
      const sessionId = readSessionCookie(request.headers.cookie);
      const session = sessionId === undefined ? undefined : await options.sessions.authenticate(sessionId);
      if (sessionId === undefined || !session) throw fail(request);
      if (
        !READ_METHODS.has(request.method) &&
        !options.sessions.csrfMatches(sessionId, request.headers['x-csrf-token'])
      ) {
        throw new AppError(
          'FORBIDDEN',
          'A signed-in request that changes something needs the x-csrf-token header.',
        );
      }
      authorizeUser(session, adminRoute, request.routeOptions.config?.anyKey ? 'self' : need);
      request.auth = {
        kind: 'user',
        userId: session.userId,
        organizationId: session.organizationId,
        role: session.role,
        sessionHash: session.sessionHash,
      };
      return;
    }
    const auth = await identify(key);
    if (!auth) throw fail(request);
    if (request.routeOptions.config?.anyKey) {
      request.auth = auth;
      return;
    }
    if (need === 'self')
      throw new AppError('FORBIDDEN', 'This route is for a signed-in person, not an API key.');
    if (auth.kind === 'operator' && !adminRoute) {
      throw new AppError('FORBIDDEN', 'The operator key is accepted only on /v1/admin routes.');
    }
    if (auth.kind === 'org' && adminRoute)
      throw new AppError('FORBIDDEN', 'This route needs the operator key.');
    if (
      auth.kind === 'org' &&
      auth.scope === 'read' &&
      !READ_METHODS.has(request.method) &&
      !request.routeOptions.config?.readOnly
    ) {
      throw new AppError('FORBIDDEN', 'This API key has the read scope: it may only read (GET).');
    }
    request.auth = auth;
  };
  app.addHook('onRequest', authenticate);
  return { authenticate, failed };
}

/**
 * Whether a signed-in person may call a route that needs `need`: organization users on their
 * organization's routes by role, operator users on /v1/admin (a viewer only reads); a user whose
 * organization requires a second factor and who has none yet may only enrol (`self` routes).
 */
function authorizeUser(session: SessionAuth, adminRoute: boolean, need: Need): void {
  if (need === 'self') return;
  if (session.organizationId !== null && session.requireTotp && !session.totpEnabled) {
    throw new AppError(
      'FORBIDDEN',
      'Your organization requires a second factor: enrol one (POST /v1/users/me/totp) before anything else.',
    );
  }
  if (session.organizationId === null) {
    if (!adminRoute) throw new AppError('FORBIDDEN', 'Operator users are accepted only on /v1/admin routes.');
    if (need !== 'read' && session.role !== 'admin') {
      throw new AppError('FORBIDDEN', 'An operator viewer may only read.');
    }
    return;
  }
  if (adminRoute) throw new AppError('FORBIDDEN', 'This route needs an operator.');
  if (!roleMay(session.role, need)) {
    throw new AppError('FORBIDDEN', `The role ${session.role} may not do this (it needs ${need}).`);
  }
}

/** The calling organization's id; routes outside /v1/admin always have one. */
export function orgOf(request: FastifyRequest): string {
  return callerOf(request).organizationId;
}

/** The calling organization, and the key it called with or the person signed in (the other null). */
export function callerOf(request: FastifyRequest): {
  organizationId: string;
  keyId: string | null;
  scope: Scope | null;
  userId: string | null;
} {
  const auth = request.auth;
  if (auth?.kind === 'user' && auth.organizationId !== null) {
    return { organizationId: auth.organizationId, keyId: null, scope: null, userId: auth.userId };
  }
  if (auth?.kind !== 'org') throw new AppError('FORBIDDEN', 'This route needs an organization API key.');
  return { organizationId: auth.organizationId, keyId: auth.keyId, scope: auth.scope, userId: null };
}

/** The signed-in person making the request, if it is one (null for a key). */
export function userOf(request: FastifyRequest): { userId: string; organizationId: string | null } | null {
  const auth = request.auth;
  return auth?.kind === 'user' ? { userId: auth.userId, organizationId: auth.organizationId } : null;
}

/**
 * Who made the request, for an audit row's details: a signed-in person as the row's actor
 * (`user:<id>`, with its organization), or the key (id, scope, and its label and owner when set).
 */
export function auditIdentity(request: FastifyRequest): {
  actor?: Actor;
  organizationId?: string;
  keyId?: string;
  scope?: string;
  keyLabel?: string;
  keyOwner?: string;
} {
  const auth = request.auth;
  if (auth?.kind === 'user') {
    return {
      actor: `user:${auth.userId}`,
      ...(auth.organizationId ? { organizationId: auth.organizationId } : {}),
    };
  }
  if (auth?.kind !== 'org') return {};
  return {
    keyId: auth.keyId,
    scope: auth.scope,
    ...(auth.label ? { keyLabel: auth.label } : {}),
    ...(auth.ownerUserId ? { keyOwner: auth.ownerUserId } : {}),
  };
}

/**
 * Whether the caller may read personal data where a route reads it only on request (a customer-name
 * search, a CSV with names): organization keys of either scope, and users whose role has `pii` (SPEC §17).
 */
export function mayReadPii(request: FastifyRequest): boolean {
  const auth = request.auth;
  if (auth?.kind === 'org') return true;
  return auth?.kind === 'user' && auth.organizationId !== null && roleMay(auth.role, 'pii');
}

/** The audit's actor when a person acts, else undefined (a key's actions are its organization's). */
export function userActorOf(request: FastifyRequest): Actor | undefined {
  const auth = request.auth;
  return auth?.kind === 'user' ? `user:${auth.userId}` : undefined;
}

/**
 * Who acts, for the audit: `operator:<id>:<name>` for a named operator (the id tells apart
 * operators that held one name at different times), `operator:bootstrap`, `user:<id>` for a
 * signed-in person (SPEC §17), or `org:<id>`.
 */
export function actorOf(request: FastifyRequest): Actor {
  const auth = request.auth;
  if (auth?.kind === 'user') return `user:${auth.userId}`;
  if (auth?.kind === 'operator') {
    return auth.operatorId === null ? `operator:${auth.name}` : `operator:${auth.operatorId}:${auth.name}`;
  }
  return `org:${orgOf(request)}`;
}

/** The rate-limit bucket of a request: its organization, its operator, or its client address. */
export function rateLimitBucket(request: FastifyRequest): string {
  const auth = request.auth;
  if (auth?.kind === 'org') return `org:${auth.organizationId}`;
  if (auth?.kind === 'operator') return `operator:${auth.operatorId ?? BOOTSTRAP_OPERATOR}`;
  if (auth?.kind === 'user')
    return auth.organizationId ? `org:${auth.organizationId}` : `user:${auth.userId}`;
  return `ip:${request.ip}`;
}
