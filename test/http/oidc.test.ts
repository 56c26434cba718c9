/**
 * Single sign-on with OpenID Connect (SPEC §17) against a real provider (`oidc-provider` on
 * 127.0.0.1, test/support/oidc-provider.ts), driven over HTTP with a cookie jar like a browser:
 * start → the provider's login → callback → a session cookie that works. And what must be refused:
 * an uninvited or unverified e-mail, a tampered or replayed state, a callback in another browser.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { eachBackend, type TestHub } from '../harness.js';
import { browse, CookieJar, TestProvider } from '../support/oidc-provider.js';
import { addPerson, as, invitationLink, uniqueEmail } from '../support/people.js';
import { SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
after(() => smtp.close());

/** Runs the browser's part up to the provider's redirect back: the jar and the callback URL. */
async function toCallback(hub: TestHub, provider: TestProvider, organizationId: string, account: string) {
  const jar = new CookieJar();
  provider.nextLogin = account;
  const hops = await browse(jar, `${hub.url}/v1/sso/${organizationId}/start`, (next) =>
    next.href.startsWith(`${hub.url}/v1/sso/callback`),
  );
  const last = hops.at(-1)!;
  assert.ok(
    last.location?.startsWith(`${hub.url}/v1/sso/callback?`),
    JSON.stringify(hops.map((h) => [h.url.href, h.status])),
  );
  return { jar, hops, callback: new URL(last.location!) };
}

/** The browser arriving at the callback. */
async function arrive(jar: CookieJar, callback: URL) {
  const cookie = jar.header(callback);
  const res = await fetch(callback, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  jar.store(callback, res.headers.getSetCookie());
  const text = await res.text();
  return { res, text, location: res.headers.get('location') ?? '' };
}

async function auditRows(hub: TestHub, action: string) {
  return hub.db.query<{ actor: string; subject_id: string; details: unknown }>(
    'SELECT actor, subject_id, details FROM audit_events WHERE action = $1 ORDER BY seq',
    [action],
  );
}

eachBackend(
  'Single sign-on with OpenID Connect',
  (hub) => {
    let provider: TestProvider;
    let org: Awaited<ReturnType<TestHub['createOrg']>>;
    let other: Awaited<ReturnType<TestHub['createOrg']>>;
    const codes: string[] = [];

    after(() => provider?.close());

    it('lets an admin set the provider once discovery answers, reads it back without the secret, seals it', async () => {
      provider = await TestProvider.start(`${hub().url}/v1/sso/callback`);
      org = await hub().createOrg();
      other = await hub().createOrg();
      const key = { key: org.apiKey };
      const missing = await as(hub(), key, 'GET', '/v1/organizations/me/oidc');
      assert.equal(missing.status, 404, missing.text);

      const wrong = await as(hub(), key, 'PUT', '/v1/organizations/me/oidc', {
        issuer: `${provider.issuer}/nowhere`,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
      });
      assert.equal(wrong.status, 400, wrong.text);
      assert.equal(wrong.body.errors[0].path, '/issuer');
      assert.ok(!wrong.text.includes(provider.clientSecret));

      const set = await as(hub(), key, 'PUT', '/v1/organizations/me/oidc', {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
      });
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body, {
        issuer: provider.issuer,
        clientId: provider.clientId,
        redirectUri: `${hub().url}/v1/sso/callback`,
        signInUrl: `${hub().url}/ui/?sso=${org.id}`,
      });
      const page = await fetch(`${hub().url}/v1/sso/${org.id}`);
      assert.equal(page.status, 200, 'the sign-in page reads it without a key');
      assert.deepEqual(await page.json(), { organizationName: org.name });
      assert.equal((await fetch(`${hub().url}/v1/sso/${other.id}`)).status, 404, 'no SSO, no name');
      const read = await as(hub(), key, 'GET', '/v1/organizations/me/oidc');
      assert.equal(read.status, 200, read.text);
      assert.ok(!read.text.includes(provider.clientSecret));
      assert.ok(!('clientSecret' in read.body));

      const [row] = await hub().db.query<{ sealed_client_secret: Uint8Array }>(
        'SELECT sealed_client_secret FROM oidc_configs WHERE organization_id = $1',
        [org.id],
      );
      assert.ok(row, 'stored');
      assert.ok(!Buffer.from(row.sealed_client_secret).toString('latin1').includes(provider.clientSecret));
      const audited = await auditRows(hub(), 'organization.sso_configured');
      assert.ok(audited.some((r) => r.subject_id === org.id));
      assert.ok(!JSON.stringify(audited).includes(provider.clientSecret));
    });

    it('refuses the settings to a viewer and to people of no admin role, and the start of an org without SSO', async () => {
      const viewer = await addPerson(hub(), smtp, { key: org.apiKey }, 'viewer');
      const signed = await hub().request('POST', '/v1/sessions', {
        body: { email: viewer.email, password: 'correct horse battery staple' },
      });
      const session = {
        cookie: (signed.headers.get('set-cookie') ?? '').split(';')[0]!,
        csrf: signed.body.csrfToken,
        user: signed.body.user,
      };
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { issuer: provider.issuer, clientId: 'x', clientSecret: 'y' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await as(hub(), session, method, '/v1/organizations/me/oidc', body);
        assert.equal(res.status, 403, `${method}: ${res.text}`);
      }
      const none = await fetch(`${hub().url}/v1/sso/${other.id}/start`, { redirect: 'manual' });
      assert.equal(none.status, 404);
    });

    it('signs an invited person in: PKCE, state and nonce at the provider, the invitation accepted, a working session', async () => {
      const email = uniqueEmail('sso');
      const invited = await as(hub(), { key: org.apiKey }, 'POST', '/v1/users/invitations', {
        email,
        role: 'analyst',
      });
      assert.equal(invited.status, 201, invited.text);
      await invitationLink(smtp, email);
      provider.accounts.set('ines', { email: email.toUpperCase(), email_verified: true, name: 'Inès SSO' });

      const { jar, hops, callback } = await toCallback(hub(), provider, org.id, 'ines');
      const authorize = new URL(hops[0]!.location!);
      assert.equal(authorize.origin, provider.issuer);
      assert.equal(authorize.searchParams.get('response_type'), 'code');
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(authorize.searchParams.get('code_challenge'));
      assert.ok((authorize.searchParams.get('state') ?? '').length >= 43);
      assert.ok((authorize.searchParams.get('nonce') ?? '').length >= 43);
      const binding = jar.line('trh_sso') ?? '';
      for (const flag of ['HttpOnly', 'SameSite=Lax', 'Path=/v1/sso/', 'Max-Age=600'])
        assert.ok(binding.includes(flag), binding);
      codes.push(callback.searchParams.get('code')!);

      const done = await arrive(jar, callback);
      assert.equal(done.res.status, 302, done.text);
      const target = new URL(done.location, hub().url);
      assert.equal(target.pathname, '/ui/');
      assert.equal(target.hash + target.search, '', 'no token in the address');
      const sessionLine = jar.line('trh_session') ?? '';
      for (const flag of ['HttpOnly', 'SameSite=Strict', 'Path=/'])
        assert.ok(sessionLine.includes(flag), sessionLine);
      assert.equal(jar.line('trh_sso'), undefined, 'the binding cookie is cleared');

      const cookie = jar.header(new URL(`${hub().url}/v1/users/me`));
      const me = await hub().request('GET', '/v1/users/me', { headers: { cookie } });
      assert.equal(me.status, 200, me.text);
      assert.equal(me.body.user.email, email, 'the invitation’s spelling');
      assert.equal(me.body.user.role, 'analyst');
      assert.equal(me.body.user.name, 'Inès SSO');
      assert.equal(me.body.user.organizationId, org.id);
      const list = await as(hub(), { key: org.apiKey }, 'GET', '/v1/users');
      assert.ok(!list.body.invitations.some((i: { email: string }) => i.email === email), 'accepted');
      const joined = await auditRows(hub(), 'user.joined');
      assert.ok(
        joined.some((r) => r.subject_id === me.body.user.id && JSON.stringify(r.details).includes('sso')),
      );
      const opened = await auditRows(hub(), 'session.created');
      assert.ok(
        opened.some(
          (r) => r.actor === `user:${me.body.user.id}` && JSON.stringify(r.details).includes('sso'),
        ),
      );

      // The session's CSRF token, as the dashboard reads it, works like a password sign-in's.
      const current = await hub().request('GET', '/v1/sessions/current', { headers: { cookie } });
      assert.equal(current.status, 200, current.text);
      const csrf = current.body.csrfToken as string;
      const out = await hub().request('DELETE', '/v1/sessions/current', { headers: { cookie } });
      assert.equal(out.status, 403, 'without the token');
      const out2 = await hub().request('DELETE', '/v1/sessions/current', {
        headers: { cookie, 'x-csrf-token': csrf },
      });
      assert.equal(out2.status, 204, out2.text);

      // Replaying the callback (its code and state) signs nobody in.
      const replay = await arrive(jar, callback);
      assert.equal(replay.res.status, 401, replay.text);
      assert.ok(!replay.text.includes(callback.searchParams.get('code')!));
    });

    it('signs in an existing member by verified e-mail, whatever its case', async () => {
      const member = await addPerson(hub(), smtp, { key: org.apiKey }, 'admin');
      provider.accounts.set('mia', { email: member.email.toUpperCase(), email_verified: true });
      const { jar, callback } = await toCallback(hub(), provider, org.id, 'mia');
      codes.push(callback.searchParams.get('code')!);
      const done = await arrive(jar, callback);
      assert.equal(done.res.status, 302, done.text);
      const me = await hub().request('GET', '/v1/users/me', {
        headers: { cookie: jar.header(new URL(`${hub().url}/v1/users/me`)) },
      });
      assert.equal(me.status, 200, me.text);
      assert.equal(me.body.user.id, member.id);
    });

    it('refuses an uninvited e-mail, an unverified one and a member of another organization, and audits each without the code', async () => {
      const stranger = await addPerson(hub(), smtp, { key: other.apiKey }, 'admin');
      const member = await addPerson(hub(), smtp, { key: org.apiKey }, 'viewer');
      provider.accounts.set('mallory', { email: uniqueEmail('mallory'), email_verified: true });
      provider.accounts.set('unverified', { email: member.email, email_verified: false });
      provider.accounts.set('stranger', { email: stranger.email, email_verified: true });
      const before = (await auditRows(hub(), 'session.sso_refused')).length;
      for (const [account, words] of [
        ['mallory', /no invitation/],
        ['unverified', /email_verified/],
        ['stranger', /no invitation|Another account/],
      ] as const) {
        const { jar, callback } = await toCallback(hub(), provider, org.id, account);
        const code = callback.searchParams.get('code')!;
        codes.push(code);
        const done = await arrive(jar, callback);
        assert.equal(done.res.status, 401, `${account}: ${done.text}`);
        assert.match(done.res.headers.get('content-type') ?? '', /problem\+json/);
        assert.match(done.text, words);
        assert.ok(!done.text.includes(code));
        assert.equal(jar.line('trh_session'), undefined, `${account} has no session`);
      }
      const refused = (await auditRows(hub(), 'session.sso_refused')).slice(before);
      assert.deepEqual(
        refused.map((r) => (r.details as { reason: string }).reason),
        ['not-invited', 'unverified', 'not-invited'],
      );
      assert.ok(refused.every((r) => r.subject_id === org.id && r.actor === 'hub'));
      for (const code of codes) assert.ok(!JSON.stringify(refused).includes(code));
    });

    it('refuses a tampered state, and a genuine callback in a browser that did not start it', async () => {
      const member = await addPerson(hub(), smtp, { key: org.apiKey }, 'viewer');
      provider.accounts.set('tess', { email: member.email, email_verified: true });

      const { jar, callback } = await toCallback(hub(), provider, org.id, 'tess');
      const tampered = new URL(callback);
      tampered.searchParams.set('state', `${callback.searchParams.get('state')!.slice(0, -2)}xx`);
      const bad = await arrive(jar, tampered);
      assert.equal(bad.res.status, 401, bad.text);
      assert.match(bad.text, /unknown, used or expired/);

      // Another browser (no binding cookie) with the genuine callback URL: login CSRF refused,
      // and the state is used up by it.
      const elsewhere = await arrive(new CookieJar(), callback);
      assert.equal(elsewhere.res.status, 401, elsewhere.text);
      const late = await arrive(jar, callback);
      assert.equal(late.res.status, 401, late.text);

      // A browser with its own binding cookie but another sign-in's state.
      const first = await toCallback(hub(), provider, org.id, 'tess');
      const second = await toCallback(hub(), provider, org.id, 'tess');
      const crossed = await arrive(second.jar, first.callback);
      assert.equal(crossed.res.status, 401, crossed.text);
      assert.equal(second.jar.line('trh_session'), undefined);

      // Another site navigating the browser to /start (login CSRF): sent to the sign-in page, no flow begun.
      for (const site of ['cross-site', 'same-site']) {
        const pushed = await fetch(`${hub().url}/v1/sso/${org.id}/start`, {
          redirect: 'manual',
          headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' },
        });
        assert.equal(pushed.status, 302);
        assert.equal(pushed.headers.get('location'), `/ui/?sso=${org.id}`);
        assert.equal(pushed.headers.getSetCookie().length, 0, 'no binding cookie');
      }
      const own = await fetch(`${hub().url}/v1/sso/${org.id}/start`, {
        redirect: 'manual',
        headers: { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' },
      });
      assert.equal(own.status, 302);
      assert.ok(own.headers.get('location')!.startsWith(provider.issuer), own.headers.get('location')!);

      const refused = await auditRows(hub(), 'session.sso_refused');
      assert.ok(refused.some((r) => r.subject_id === 'unknown'));
      assert.ok(
        refused.some((r) => r.subject_id === org.id && (r.details as { reason: string }).reason === 'state'),
      );
    });

    it('refuses a sign-in the provider refused, and audits what the provider said', async () => {
      const { jar, callback } = await toCallback(hub(), provider, org.id, 'deny');
      assert.equal(callback.searchParams.get('error'), 'access_denied');
      assert.equal(callback.searchParams.get('code'), null);
      const done = await arrive(jar, callback);
      assert.equal(done.res.status, 401, done.text);
      assert.match(done.text, /did not confirm/);
      const [last] = (await auditRows(hub(), 'session.sso_refused')).slice(-1);
      assert.deepEqual(
        [
          last!.subject_id,
          (last!.details as { reason: string }).reason,
          (last!.details as { error: string }).error,
        ],
        [org.id, 'provider', 'the provider answered access_denied'],
      );
    });

    it('never logs the client secret, a code or a token, and turns SSO off', async () => {
      const logs = hub().allLogs();
      assert.ok(!logs.includes(provider.clientSecret), 'client secret in logs');
      for (const code of codes) assert.ok(!logs.includes(code), 'a code in logs');
      const off = await as(hub(), { key: org.apiKey }, 'DELETE', '/v1/organizations/me/oidc');
      assert.equal(off.status, 204, off.text);
      assert.ok((await auditRows(hub(), 'organization.sso_removed')).some((r) => r.subject_id === org.id));
      const start = await fetch(`${hub().url}/v1/sso/${org.id}/start`, { redirect: 'manual' });
      assert.equal(start.status, 404);
    });
  },
  { SMTP_URL: smtp.url },
);
