/**
 * Single sign-on with OpenID Connect, one identity provider per organization (SPEC §17), through
 * `openid-client` (which checks the ID token: signature, issuer, audience, nonce, expiry).
 *
 * - An admin sets `{ issuer, clientId, clientSecret }`; the issuer must answer discovery then. The
 *   client secret is sealed under the master key (the organization id as context; keys/sealed.ts).
 * - A sign-in is the authorization code flow with PKCE (S256), `state` and `nonce`. Its start gives
 *   the browser a random binding value in a short-lived HttpOnly, SameSite=Lax cookie (Lax, or the
 *   provider's top-level redirect back would not carry it); the PKCE verifier and the nonce are
 *   derived from that value, and the database keeps only the SHA-256 of the state and of the value.
 *   A callback takes its state's row away before anything else: it works once, in that browser.
 * - The ID token must say `email_verified: true`. Its e-mail is matched, ignoring case, to an
 *   active user of that organization; failing that, to an open invitation of that organization,
 *   which SSO then accepts (the account's name from the token, and no usable password: a random
 *   one nobody knows). Anything else is refused and audited, without the code or any token.
 * - The session is opened exactly as a password sign-in opens it (sessions.ts). SSO does not ask
 *   the hub's TOTP: the provider authenticates, and its MFA is the organization's to require
 *   there. The organization's require-TOTP policy still applies to the session as to any other.
 * - Every request to the provider (discovery, token, keys) goes through the hub's SSRF policy.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { type Actor, recordAudit } from '../audit/store.js';
import { openPii, type SealingKeys, sealPii } from '../crypto/envelope.js';
import { type Database, isUniqueViolation } from '../db/database.js';
import { guardedLookup, targetProblem } from '../deliveries/ssrf.js';
import { notFound, validationFailed } from '../http/errors.js';
import { isEmail, isPrintableName } from '../text/formats.js';
import * as oidc from './oidc-store.js';
import { oidcSecretContext } from './oidc-store.js';
import { hashPassword } from './passwords.js';
import type { Client, SessionService } from './sessions.js';
import * as store from './store.js';

/** How long a started sign-in waits for the provider to send the browser back. */
export const SIGN_IN_VALID_MS = 10 * 60_000;
/** How long the hub waits for the provider on each request (seconds). */
const PROVIDER_TIMEOUT_S = 10;

const sha256 = (value: string) => createHash('sha256').update(value).digest();
const derive = (binding: string, purpose: string) =>
  createHmac('sha256', binding).update(purpose).digest('base64url');

/** Why a sign-in was refused: the audit's word, and what the browser is told. */
const REFUSALS = {
  state: 'The sign-in is unknown, used or expired; start it again.',
  provider: 'The identity provider did not confirm the sign-in.',
  unverified: 'The identity provider does not vouch for the e-mail address (email_verified).',
  'not-invited': 'Nobody of this organization has that e-mail address, and no invitation is open for it.',
  'email-in-use': 'Another account uses that e-mail address.',
  'not-configured': 'Single sign-on is not set up for this organization.',
} as const;
export type Refusal = keyof typeof REFUSALS;

export class SsoRefused extends Error {
  constructor(
    readonly reason: Refusal,
    readonly organizationId: string | undefined,
    /** What the provider did wrong, as describe() puts it (never a body or a token). */
    readonly providerError?: string,
  ) {
    super(REFUSALS[reason]);
  }
}

export interface OidcDeps {
  db: Database;
  keys: SealingKeys;
  sessions: SessionService;
  allowPrivate: boolean;
  /** The hub's own base URL, of which `/v1/sso/callback` is the redirect URI. */
  baseUrl: () => string;
}

export class OidcService {
  private readonly clients = new Map<string, { version: string; config: Promise<client.Configuration> }>();
  private readonly fetcher: client.CustomFetch;

  constructor(private readonly deps: OidcDeps) {
    this.fetcher = guardedFetch(deps.allowPrivate);
  }

  redirectUri(): string {
    return `${this.deps.baseUrl().replace(/\/+$/, '')}/v1/sso/callback`;
  }

  async get(organizationId: string) {
    const found = await oidc.findConfig(this.deps.db, organizationId);
    if (!found) throw notFound('Single sign-on for this organization');
    return this.shape(organizationId, found.issuer, found.clientId);
  }

  /** Sets the organization's provider once its issuer answers discovery. */
  async set(
    organizationId: string,
    body: { issuer: string; clientId: string; clientSecret: string },
    actor: Actor,
  ) {
    const issuer = body.issuer;
    await this.discover(issuer, body.clientId, body.clientSecret).catch((err: unknown) => {
      throw validationFailed([{ path: '/issuer', message: `could not be discovered: ${describe(err)}` }]);
    });
    await this.deps.db.transaction(async (tx) => {
      await oidc.upsertConfig(tx, {
        organizationId,
        issuer,
        clientId: body.clientId,
        sealedClientSecret: sealPii(this.deps.keys, oidcSecretContext(organizationId), body.clientSecret),
      });
      await recordAudit(tx, {
        actor,
        action: 'organization.sso_configured',
        subjectType: 'organization',
        subjectId: organizationId,
        details: { organizationId, issuer, clientId: body.clientId },
      });
    });
    this.clients.delete(organizationId);
    return this.shape(organizationId, issuer, body.clientId);
  }

  async remove(organizationId: string, actor: Actor): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      if (!(await oidc.deleteConfig(tx, organizationId)))
        throw notFound('Single sign-on for this organization');
      await recordAudit(tx, {
        actor,
        action: 'organization.sso_removed',
        subjectType: 'organization',
        subjectId: organizationId,
        details: { organizationId },
      });
    });
    this.clients.delete(organizationId);
  }

  /** Starts a sign-in: where to send the browser, and the binding value for its cookie. */
  async start(organizationId: string): Promise<{ url: string; binding: string }> {
    const found = await oidc.findConfig(this.deps.db, organizationId);
    if (!found) throw notFound('Single sign-on for this organization');
    const config = await this.client(found);
    const binding = randomBytes(32).toString('base64url');
    const state = randomBytes(32).toString('base64url');
    await oidc.insertSignIn(this.deps.db, {
      stateHash: sha256(state),
      organizationId,
      bindingHash: sha256(binding),
      validMs: SIGN_IN_VALID_MS,
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri(),
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(derive(binding, 'pkce')),
      code_challenge_method: 'S256',
      state,
      nonce: derive(binding, 'nonce'),
    });
    return { url: url.href, binding };
  }

  /**
   * Finishes a sign-in from the provider's redirect (its query string as sent) and the browser's
   * binding cookie: a session, or an SsoRefused (audited here).
   */
  async finish(query: string, binding: string | undefined, from: Client) {
    let organizationId: string | undefined;
    try {
      const state = new URLSearchParams(query).get('state');
      if (!state) throw new SsoRefused('state', undefined);
      // Taken whatever follows: a state is good for one callback, even a refused one.
      const started = await oidc.takeSignIn(this.deps.db, sha256(state));
      organizationId = started?.organizationId;
      if (!started || binding === undefined || !timingSafeEqual(sha256(binding), started.bindingHash))
        throw new SsoRefused('state', organizationId);
      const claims = await this.exchange(started.organizationId, query, state, binding).catch(
        (err: unknown) => {
          if (err instanceof SsoRefused) throw err;
          // The provider refused, or answered what openid-client does not accept.
          throw new SsoRefused('provider', started.organizationId, describe(err));
        },
      );
      return await this.signIn(started.organizationId, claims, from);
    } catch (err) {
      // Anything else (the database) is the hub's own failure: a logged 500, not a refusal.
      if (!(err instanceof SsoRefused)) throw err;
      await recordAudit(this.deps.db, {
        actor: 'hub',
        action: 'session.sso_refused',
        subjectType: 'organization',
        subjectId: err.organizationId ?? 'unknown',
        details: {
          organizationId: err.organizationId ?? null,
          reason: err.reason,
          clientAddress: from.address,
          ...(err.providerError ? { error: err.providerError } : {}),
        },
      });
      throw err;
    }
  }

  /** The code for tokens at the provider; the ID token's claims once openid-client has checked it. */
  private async exchange(organizationId: string, query: string, state: string, binding: string) {
    const found = await oidc.findConfig(this.deps.db, organizationId);
    if (!found) throw new SsoRefused('not-configured', organizationId);
    const config = await this.client(found);
    const current = new URL(this.redirectUri());
    current.search = query;
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: derive(binding, 'pkce'),
      expectedState: state,
      expectedNonce: derive(binding, 'nonce'),
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new SsoRefused('provider', organizationId);
    if (typeof claims.email === 'string' && typeof claims.email_verified === 'boolean') return claims;
    // Providers that keep the e-mail out of the ID token in the code flow answer it at userinfo,
    // for the same subject (openid-client checks `sub`).
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    return {
      ...claims,
      email: info.email,
      email_verified: info.email_verified,
      name: claims.name ?? info.name,
    };
  }

  private async signIn(organizationId: string, claims: client.IDToken, from: Client) {
    const email = claims.email;
    if (claims.email_verified !== true || typeof email !== 'string' || !isEmail(email))
      throw new SsoRefused('unverified', organizationId);
    const member = await oidc.findMember(this.deps.db, organizationId, email);
    // A password nobody knows, for an account SSO creates: hashed before the transaction opens.
    const unusable = member ? undefined : await hashPassword(randomBytes(32).toString('base64url'));
    try {
      return await this.deps.db.transaction(async (tx) => {
        let userId = (await oidc.findMember(tx, organizationId, email))?.id;
        if (userId === undefined) {
          const invitation = await oidc.lockInvitationFor(tx, organizationId, email);
          if (!invitation || unusable === undefined) throw new SsoRefused('not-invited', organizationId);
          if (await store.emailInUse(tx, invitation.email))
            throw new SsoRefused('email-in-use', organizationId);
          const name = typeof claims.name === 'string' && isPrintableName(claims.name) ? claims.name : email;
          const user = await store.insertUser(tx, {
            id: randomUUID(),
            organizationId,
            email: invitation.email,
            name,
            role: invitation.role,
            passwordHash: unusable,
          });
          await store.markAccepted(tx, invitation.id, user.id);
          await recordAudit(tx, {
            actor: `user:${user.id}`,
            action: 'user.joined',
            subjectType: 'user',
            subjectId: user.id,
            details: { organizationId, invitationId: invitation.id, role: user.role, via: 'sso' },
          });
          userId = user.id;
        }
        const user = await store.findActiveUser(tx, userId, organizationId);
        if (!user) throw new SsoRefused('not-invited', organizationId);
        const opened = await this.deps.sessions.open(tx, user, from, { via: 'sso' });
        return { user: store.publicUser(user), ...opened };
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new SsoRefused('email-in-use', organizationId);
      throw err;
    }
  }

  /** The provider's client configuration, discovered once per version of the settings. */
  private client(found: oidc.OidcRecord): Promise<client.Configuration> {
    const version = `${found.updatedAt} ${found.issuer} ${found.clientId}`;
    const cached = this.clients.get(found.organizationId);
    if (cached?.version === version) return cached.config;
    const secret = openPii(this.deps.keys, oidcSecretContext(found.organizationId), found.sealedClientSecret);
    const config = this.discover(found.issuer, found.clientId, secret);
    this.clients.set(found.organizationId, { version, config });
    config.catch(() => {
      if (this.clients.get(found.organizationId)?.config === config)
        this.clients.delete(found.organizationId);
    });
    return config;
  }

  private discover(issuer: string, clientId: string, clientSecret: string): Promise<client.Configuration> {
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      return Promise.reject(new ProviderRefused('not an absolute URL'));
    }
    const problem = targetProblem(url, this.deps.allowPrivate);
    if (problem) return Promise.reject(new ProviderRefused(`the issuer ${problem}`));
    return client.discovery(url, clientId, undefined, client.ClientSecretBasic(clientSecret), {
      [client.customFetch]: this.fetcher,
      timeout: PROVIDER_TIMEOUT_S,
      ...(this.deps.allowPrivate && url.protocol === 'http:'
        ? { execute: [client.allowInsecureRequests] }
        : {}),
    });
  }

  private shape(organizationId: string, issuer: string, clientId: string) {
    const base = this.deps.baseUrl().replace(/\/+$/, '');
    return {
      issuer,
      clientId,
      redirectUri: this.redirectUri(),
      signInUrl: `${base}/ui/?sso=${organizationId}`,
    };
  }

  /** What the sign-in page may show before anyone signs in: the organization's name, when it has SSO. */
  async signInPage(organizationId: string): Promise<{ organizationName: string }> {
    const name = await oidc.nameWithSso(this.deps.db, organizationId);
    if (name === undefined) throw notFound('Single sign-on for this organization');
    return { organizationName: name };
  }
}

/** The public words of a refusal. */
export function refusalText(reason: Refusal): string {
  return REFUSALS[reason];
}

/**
 * What went wrong talking to a provider, for an admin's 400 or the audit: a class of failure and
 * openid-client's code, never a response body, a token or the secret.
 */
function describe(err: unknown): string {
  if (err instanceof ProviderRefused) return err.message;
  if (err instanceof client.AuthorizationResponseError) return `the provider answered ${err.error}`;
  if (err instanceof client.ResponseBodyError)
    return `the provider answered ${err.error} (HTTP ${err.status})`;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^[A-Z_]{3,64}$/.test(code)) return code.toLowerCase().replace(/_/g, ' ');
  return 'the provider could not be reached or answered wrongly';
}

class ProviderRefused extends Error {}

/** fetch for openid-client: the SSRF policy on every URL, and on every address a name resolves to. */
function guardedFetch(allowPrivate: boolean): client.CustomFetch {
  const dispatcher = allowPrivate ? undefined : new Agent({ connect: { lookup: guardedLookup } });
  return async (url, options) => {
    const problem = targetProblem(new URL(url), allowPrivate);
    if (problem) throw new ProviderRefused(`the provider's URL ${problem}`);
    const response = await undiciFetch(url, {
      method: options.method,
      headers: options.headers as Record<string, string>,
      body: options.body as string | undefined,
      redirect: 'manual',
      signal: options.signal,
      ...(dispatcher ? { dispatcher } : {}),
    });
    return response as unknown as Response;
  };
}
