/**
 * Authentication by `x-api-key` on every /v1 route (SPEC §3). The operator key opens only
 * /v1/admin/*; organization keys open everything else. The result is `request.auth`, which
 * routes read through `orgOf(request)`; authorization by party happens in the services.
 *
 * The route decides, never the raw URL: the router decodes percent-escapes (`/%761/admin/…`) and
 * accepts absolute-form targets (`http://host/v1/admin/…`), so a URL that does not look like
 * /v1/admin can still reach an admin route. Only a request that matched no route (a 404 in the
 * making) is judged by its URL, and then it can at most turn that 404 into a 401.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_KEY_PATTERN, hashApiKey, hashesMatch } from '../directory/api-keys.js';
import { AppError } from './errors.js';

export type Auth = { kind: 'operator' } | { kind: 'org'; organizationId: string; keyId: string };

declare module 'fastify' {
  interface FastifyRequest {
    auth: Auth | null;
  }
}

export interface KeyLookup {
  /** The active key with this SHA-256 (see hashApiKey), if any. */
  authenticate(keyHash: Buffer): Promise<{ keyId: string; organizationId: string } | undefined>;
}

const unauthenticated = () =>
  new AppError('UNAUTHENTICATED', 'Send a valid, unrevoked API key in the x-api-key header.');

/**
 * Unknown keys per client address, per second: past the limit, an address that presents another
 * unknown key gets 429 (with Retry-After) instead of 401 until the second ends. Only misses are
 * counted and refused, after the look-up, so a valid key is never held back by someone else's bad
 * keys behind the same address (a NAT, or a proxy when the hub sees only the proxy's address).
 */
class FailedKeys {
  private counts = new Map<string, number>();
  private windowStart = 0;

  constructor(private readonly perSecond: number) {}

  private window(): Map<string, number> {
    const now = Date.now();
    if (now - this.windowStart >= 1000 || this.counts.size > 10_000) {
      this.counts = new Map();
      this.windowStart = now;
    }
    return this.counts;
  }

  /** Counts a miss from this address; throws RATE_LIMITED once it is over the limit. */
  miss(address: string): void {
    const counts = this.window();
    const n = (counts.get(address) ?? 0) + 1;
    counts.set(address, n);
    if (n > this.perSecond) {
      throw new AppError(
        'RATE_LIMITED',
        'Too many unknown API keys from this address; retry later.',
        undefined,
        {
          headers: { 'retry-after': '1' },
        },
      );
    }
  }
}

/** Checks every /v1 request's key in an onRequest hook; returns the check for requests no hook sees. */
export function registerAuth(
  app: FastifyInstance,
  adminKey: string,
  keys: KeyLookup,
  options: { unknownKeysPerSecond: number },
): (request: FastifyRequest) => Promise<void> {
  const adminHash = hashApiKey(adminKey);
  const failed = options.unknownKeysPerSecond > 0 ? new FailedKeys(options.unknownKeysPerSecond) : undefined;
  app.decorateRequest('auth', null);
  const authenticate = async (request: FastifyRequest): Promise<void> => {
    const path = request.routeOptions.url ?? request.url;
    if (!path.startsWith('/v1/') && path !== '/v1') return;
    const key = request.headers['x-api-key'];
    if (typeof key !== 'string' || key.length === 0 || key.length > 256) throw unauthenticated();
    const adminRoute = path === '/v1/admin' || path.startsWith('/v1/admin/') || path.startsWith('/v1/admin?');
    const keyHash = hashApiKey(key);
    if (hashesMatch(keyHash, adminHash)) {
      if (!adminRoute) {
        throw new AppError('FORBIDDEN', 'The operator key is accepted only on /v1/admin routes.');
      }
      request.auth = { kind: 'operator' };
      return;
    }
    if (!API_KEY_PATTERN.test(key)) throw unauthenticated();
    const found = await keys.authenticate(keyHash);
    if (!found) {
      failed?.miss(request.ip);
      throw unauthenticated();
    }
    if (adminRoute) throw new AppError('FORBIDDEN', 'This route needs the operator key.');
    request.auth = { kind: 'org', ...found };
  };
  app.addHook('onRequest', authenticate);
  return authenticate;
}

/** The calling organization's id; routes outside /v1/admin always have one. */
export function orgOf(request: FastifyRequest): string {
  const auth = request.auth;
  if (auth?.kind !== 'org') throw new AppError('FORBIDDEN', 'This route needs an organization API key.');
  return auth.organizationId;
}
