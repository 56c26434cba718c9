/**
 * Single sign-on routes (SPEC §17; the rules in oidc.ts). An organization's admin (or a `full` key)
 * sets, reads and removes its provider under /v1/organizations/me/oidc (roles.ts); the sign-in's
 * start and callback are public browser navigations, answered with redirects.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { actorOf, orgOf } from '../http/auth.js';
import { AppError } from '../http/errors.js';
import { type HubApp, problems } from '../http/types.js';
import { sessionCookie } from './cookies.js';
import { type OidcService, refusalText, SIGN_IN_VALID_MS, SsoRefused } from './oidc.js';

/** The browser's binding to a started sign-in (oidc.ts): only the SSO routes ever see it. */
export const SSO_COOKIE = 'trh_sso';

const ssoCookie = (value: string, secure: boolean, maxAge = SIGN_IN_VALID_MS / 1000) =>
  `${SSO_COOKIE}=${value}; Path=/v1/sso/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

function readSsoCookie(header: string | undefined): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SSO_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** A top-level page load by a browser (it asks for HTML), not an API client. */
const browserNavigation = (request: FastifyRequest) =>
  (request.headers.accept ?? '').includes('text/html') || request.headers['sec-fetch-mode'] === 'navigate';

const OidcSettings = Type.Object(
  {
    issuer: Type.String({
      minLength: 8,
      maxLength: 2048,
      description: 'The provider’s issuer URL; `{issuer}/.well-known/openid-configuration` must answer.',
    }),
    clientId: Type.String({ minLength: 1, maxLength: 255 }),
    clientSecret: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'Sealed at rest; never returned.',
    }),
  },
  { additionalProperties: false },
);

const OidcAnswer = Type.Object({
  issuer: Type.String(),
  clientId: Type.String(),
  redirectUri: Type.String({ description: 'The redirect URI to register with the provider.' }),
  signInUrl: Type.String({
    description: 'The dashboard’s sign-in page with this organization’s SSO button: share it with the team.',
  }),
});

const SsoPage = Type.Object({
  organizationName: Type.String({ description: 'Shown on the sign-in page’s single sign-on button.' }),
});

const StartParams = Type.Object({ organizationId: Type.String({ format: 'uuid' }) });

const CallbackQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ maxLength: 1024 })),
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: true },
);

const Redirect = (description: string) => Type.Null({ description });

export function oidcRoutes(
  app: HubApp,
  sso: OidcService,
  opts: { secureCookies: boolean; failed: (request: FastifyRequest) => AppError | undefined },
) {
  const tags = ['people'];

  app.get(
    '/v1/organizations/me/oidc',
    {
      schema: {
        tags,
        summary: 'The organization’s OpenID Connect provider, without its secret (admin)',
        response: { 200: OidcAnswer, ...problems(404) },
      },
    },
    (request) => sso.get(orgOf(request)),
  );

  app.put(
    '/v1/organizations/me/oidc',
    {
      schema: {
        tags,
        summary: 'Set the organization’s OpenID Connect provider for single sign-on (admin)',
        description:
          'The issuer must answer OpenID Connect discovery now (the hub’s outbound address policy applies). ' +
          'Register the answer’s `redirectUri` with the provider.',
        body: OidcSettings,
        response: { 200: OidcAnswer, ...problems(400, 415) },
      },
    },
    (request) => sso.set(orgOf(request), request.body, actorOf(request)),
  );

  app.delete(
    '/v1/organizations/me/oidc',
    {
      schema: {
        tags,
        summary: 'Turn single sign-on off (admin); open sessions go on until they end',
        response: { 204: Type.Null({ description: 'Turned off' }), ...problems(404) },
      },
    },
    async (request, reply) => {
      await sso.remove(orgOf(request), actorOf(request));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/sso/:organizationId',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'What the sign-in page shows for an organization’s SSO link: its name (no key)',
        description: '404 when the organization has no single sign-on.',
        params: StartParams,
        response: { 200: SsoPage, ...problems(404) },
      },
    },
    (request) => sso.signInPage(request.params.organizationId),
  );

  app.get(
    '/v1/sso/:organizationId/start',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Start single sign-on for an organization: a redirect to its OpenID Connect provider',
        params: StartParams,
        description:
          'A navigation from another site (`Sec-Fetch-Site` `cross-site` or `same-site`) is sent to the sign-in ' +
          'page, `/ui/?sso={organizationId}`, instead: the flow starts only from a click on this hub (no login CSRF).',
        response: { 302: Redirect('To the provider, or to the sign-in page'), ...problems(400, 404) },
      },
    },
    async (request, reply) => {
      const site = request.headers['sec-fetch-site'];
      if (site === 'cross-site' || site === 'same-site') {
        // Another site may not start a sign-in in this browser: its person clicks the button here.
        return reply.redirect(`/ui/?sso=${request.params.organizationId}`, 302);
      }
      const { url, binding } = await sso.start(request.params.organizationId);
      reply.header('set-cookie', ssoCookie(binding, opts.secureCookies));
      reply.header('cache-control', 'no-store');
      return reply.redirect(url, 302);
    },
  );

  app.get(
    '/v1/sso/callback',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Where the provider sends the browser back: a session cookie and a redirect to /ui/',
        description:
          'On success, 302 to `/ui/` with the session cookie set as `POST /v1/sessions` sets it (the dashboard ' +
          'reads its CSRF token with `GET /v1/sessions/current`). A wrong, used or expired state, an unverified ' +
          'or uninvited e-mail, or a refusal by the provider answer 401; to a browser (it accepts text/html) ' +
          'they answer 302 to the sign-in page, `/ui/?sso={organizationId}&sso_refused={reason}`.',
        querystring: CallbackQuery,
        response: { 302: Redirect('To the dashboard, signed in'), ...problems(400) },
      },
    },
    async (request, reply) => {
      const cleared = ssoCookie('', opts.secureCookies, 0);
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      try {
        const signed = await sso.finish(query, readSsoCookie(request.headers.cookie), {
          address: request.ip,
          userAgent: request.headers['user-agent'],
        });
        reply.header('set-cookie', [sessionCookie(signed.sessionId, opts.secureCookies), cleared]);
        reply.header('cache-control', 'no-store');
        // No token in the address: the dashboard reads it from GET /v1/sessions/current.
        return reply.redirect('/ui/', 302);
      } catch (err) {
        if (!(err instanceof SsoRefused)) throw err;
        const throttled = opts.failed(request);
        if (!throttled && browserNavigation(request)) {
          // A person in a browser: back to the sign-in page, which says why in words (no secret in it).
          const org = err.organizationId ? `sso=${err.organizationId}&` : '';
          reply.header('set-cookie', cleared);
          reply.header('cache-control', 'no-store');
          return reply.redirect(`/ui/?${org}sso_refused=${err.reason}`, 302);
        }
        throw (
          throttled ??
          new AppError('UNAUTHENTICATED', `Single sign-on failed: ${refusalText(err.reason)}`, undefined, {
            headers: { 'set-cookie': cleared },
          })
        );
      }
    },
  );
}
