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
  /**
   * The active key with this SHA-256 (see hashApiKey), if any. `beforeQuery` runs before the
   * database is asked (not for a key the process knows already) and may throw to refuse.
   */
  authenticate(
    keyHash: Buffer,
    beforeQuery?: () => void,
  ): Promise<{ keyId: string; organizationId: string } | undefined>;
}

const unauthenticated = () =>
  new AppError('UNAUTHENTICATED', 'Send a valid, unrevoked API key in the x-api-key header.');

/**
 * Unknown keys per client address, per second. An address over the limit gets 429 for keys
 * this process does not know, without a database look-up, until the second ends. Keys seen
 * valid in the last one to two minutes are never held back (they are still looked up, so a
 * revoked one gets its 401), so one client's bad keys do not lock out others behind the same
 * address, even right after a directory change has emptied the look-up cache.
 */
class FailedKeys {
  private counts = new Map<string, number>();
  private windowStart = 0;
  private valid = new Set<string>();
  private validBefore = new Set<string>();
  private validSince = Date.now();

  constructor(private readonly perSecond: number) {}

  /** Remembers a key that was just found valid (by its hash). */
  validated(keyHash: Buffer): void {
    const now = Date.now();
    if (now - this.validSince >= 60_000 || this.valid.size >= 10_000) {
      this.validBefore = this.valid;
      this.valid = new Set();
      this.validSince = now;
    }
    this.valid.add(keyHash.toString('base64'));
  }

  private recentlyValid(keyHash: Buffer): boolean {
    const id = keyHash.toString('base64');
    return this.valid.has(id) || this.validBefore.has(id);
  }

  private window(): Map<string, number> {
    const now = Date.now();
    if (now - this.windowStart >= 1000 || this.counts.size > 10_000) {
      this.counts = new Map();
      this.windowStart = now;
    }
    return this.counts;
  }

  check(address: string, keyHash: Buffer): void {
    if ((this.window().get(address) ?? 0) >= this.perSecond && !this.recentlyValid(keyHash)) {
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

  add(address: string): void {
    const counts = this.window();
    counts.set(address, (counts.get(address) ?? 0) + 1);
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
    const found = await keys.authenticate(keyHash, failed && (() => failed.check(request.ip, keyHash)));
    if (!found) {
      failed?.add(request.ip);
      throw unauthenticated();
    }
    failed?.validated(keyHash);
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
