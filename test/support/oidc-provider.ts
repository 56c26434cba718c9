/**
 * A real OpenID provider for the SSO suites: `oidc-provider` on 127.0.0.1 with one confidential
 * client, an in-memory account store and a minimal login interaction that signs in whichever
 * account the test names (a person typing at the provider's login page, in effect). Consent is
 * given ahead, as for a first-party client. Plus a cookie jar that follows redirects like a browser.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface Account {
  email: string;
  email_verified: boolean;
  name?: string;
}

export class TestProvider {
  readonly accounts = new Map<string, Account>();
  /** The account the next login interaction signs in ('deny': none, the person cancels). */
  nextLogin = '';
  readonly clientId = `hub-${randomBytes(4).toString('hex')}`;
  readonly clientSecret = randomBytes(24).toString('base64url');

  private constructor(
    readonly issuer: string,
    private readonly server: Server,
  ) {}

  static async start(redirectUri: string): Promise<TestProvider> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const t = new TestProvider(issuer, server);
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: t.clientId,
          client_secret: t.clientSecret,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      findAccount: (_ctx, id) => {
        const account = t.accounts.get(id);
        return account && { accountId: id, claims: () => ({ sub: id, ...account }) };
      },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      loadExistingGrant: async (ctx) => {
        const accountId = ctx.oidc.session?.accountId;
        const clientId = ctx.oidc.client?.clientId;
        if (!accountId || !clientId) return undefined;
        const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
      cookies: { keys: [randomBytes(16).toString('hex')] },
    });
    const callback = provider.callback();
    server.on('request', async (req, res) => {
      const m = /^\/interaction\/([\w-]+)$/.exec(req.url ?? '');
      if (!m) return callback(req, res);
      try {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name !== 'login') throw new Error(`unexpected prompt ${details.prompt.name}`);
        // 'deny': the person cancels at the provider, which sends the browser back with an error.
        const result =
          t.nextLogin === 'deny'
            ? { error: 'access_denied', error_description: 'The person cancelled.' }
            : { login: { accountId: t.nextLogin } };
        await provider.interactionFinished(req, res, result);
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
    });
    return t;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A browser's cookies, by host (like a browser: not by port) and path; Secure is not enforced. */
export class CookieJar {
  private cookies = new Map<string, { value: string; path: string; attrs: string }>();

  store(url: URL, setCookies: string[]) {
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const path =
        attrs
          .map((a) => a.trim())
          .find((a) => /^path=/i.test(a))
          ?.slice(5) ?? '/';
      const key = `${url.hostname} ${name}`;
      if (/max-age=0\b/i.test(line) || /expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(key);
      else this.cookies.set(key, { value, path, attrs: line });
    }
  }

  header(url: URL): string {
    return [...this.cookies.entries()]
      .filter(([key, c]) => key.startsWith(`${url.hostname} `) && url.pathname.startsWith(c.path))
      .map(([key, c]) => `${key.slice(key.indexOf(' ') + 1)}=${c.value}`)
      .join('; ');
  }

  /** The Set-Cookie line that set a cookie of this name. */
  line(name: string): string | undefined {
    return [...this.cookies.entries()].find(([key]) => key.endsWith(` ${name}`))?.[1].attrs;
  }
}

export interface Hop {
  url: URL;
  status: number;
  location?: string;
  body: string;
}

/**
 * Follows redirects from `start` with the jar, like a browser, until a response that is not a
 * redirect, or one whose Location `stop` accepts (returned, not followed). Every hop is returned.
 */
export async function browse(
  jar: CookieJar,
  start: string,
  stop: (location: URL) => boolean,
): Promise<Hop[]> {
  const hops: Hop[] = [];
  let url = new URL(start);
  for (let i = 0; i < 20; i++) {
    const cookie = jar.header(url);
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    jar.store(url, res.headers.getSetCookie());
    const location = res.headers.get('location') ?? undefined;
    hops.push({ url, status: res.status, location, body: await res.text() });
    if (res.status < 300 || res.status >= 400 || !location) return hops;
    const next = new URL(location, url);
    if (stop(next)) return hops;
    url = next;
  }
  throw new Error(`too many redirects: ${hops.map((h) => h.url.href).join(' → ')}`);
}
