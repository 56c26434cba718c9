/**
 * People (SPEC §17) through the API: invitations e-mailed to a real SMTP server, sign-in with a
 * cookie and a CSRF token, TOTP, roles enforced on the cookie, removal, the throttle, the audit.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { eachBackend } from '../harness.js';
import {
  addPerson,
  as,
  invitationLink,
  PASSWORD,
  type Session,
  signIn,
  tokenOf,
  totpCode,
  uniqueEmail,
} from '../support/people.js';
import { mainRequest } from '../support/requests.js';
import { decodeBody, header, SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
after(() => smtp.close());

eachBackend(
  'People and sessions',
  (hub) => {
    let org: Awaited<ReturnType<ReturnType<typeof hub>['createOrg']>>;
    let adminEmail = '';
    let adminId = '';
    let admin: Session;
    let secret = '';
    let recoveryCodes: string[] = [];

    it('invites by e-mail with a single-use link, accepts it once, and signs in with a strict cookie', async () => {
      org = await hub().createOrg();
      adminEmail = uniqueEmail('admin');
      const invited = await hub().request('POST', '/v1/users/invitations', {
        key: org.apiKey,
        body: { email: adminEmail, role: 'admin' },
      });
      assert.equal(invited.status, 201, invited.text);
      assert.deepEqual(Object.keys(invited.body).sort(), ['email', 'expiresAt', 'id', 'role']);
      const days = (Date.parse(invited.body.expiresAt) - Date.now()) / 86_400_000;
      assert.ok(days > 6.9 && days <= 7, `valid 7 days, not ${days}`);

      const link = await invitationLink(smtp, adminEmail);
      assert.ok(link.startsWith('https://hub.example/invitation/'), link);
      const mail = smtp.messages.find((m) => m.to.includes(adminEmail))!;
      assert.match(header(mail.raw, 'subject') ?? '', new RegExp(org.name));
      assert.match(decodeBody(mail.raw), /admin/);
      const token = tokenOf(link);
      const page = await fetch(`${hub().url}/invitation/${token}`);
      assert.equal(page.status, 200, 'the invitation page is the dashboard');
      assert.match(await page.text(), /<div id="app">/);
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
      assert.equal(page.headers.get('cache-control'), 'no-store');
      // Only the token's hash is kept.
      const stored = await hub().db.query<{ token_hash: Uint8Array }>(
        'SELECT token_hash FROM user_invitations',
      );
      for (const r of stored) assert.ok(!Buffer.from(r.token_hash).toString('latin1').includes(token));

      const short = await hub().request('POST', `/v1/invitations/${token}/accept`, {
        body: { name: 'Ada Admin', password: 'elevenchars' },
      });
      assert.equal(short.status, 400, short.text);
      const accepted = await hub().request('POST', `/v1/invitations/${token}/accept`, {
        body: { name: 'Ada Admin', password: PASSWORD },
      });
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.user.email, adminEmail);
      assert.equal(accepted.body.user.role, 'admin');
      assert.ok(!JSON.stringify(accepted.body).includes('scrypt'));
      adminId = accepted.body.user.id;
      const again = await hub().request('POST', `/v1/invitations/${token}/accept`, {
        body: { name: 'Eve', password: PASSWORD },
      });
      assert.equal(again.status, 404, 'the link is used up');

      const { res, session } = await signIn(hub(), adminEmail.toUpperCase());
      assert.equal(res.status, 200, res.text);
      const cookie = res.headers.get('set-cookie') ?? '';
      for (const flag of ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Secure'])
        assert.ok(cookie.includes(flag), cookie);
      assert.equal(res.body.user.id, adminId);
      admin = session!;
      const me = await as(hub(), admin, 'GET', '/v1/users/me');
      assert.equal(me.status, 200, me.text);
      assert.equal(me.body.user.email, adminEmail);
      // The password is hashed with scrypt, never kept as given.
      const [row] = await hub().db.query<{ password_hash: string }>(
        'SELECT password_hash FROM users WHERE id = $1',
        [adminId],
      );
      assert.match(row!.password_hash, /^scrypt\$15\$8\$3\$/);
    });

    it('refuses an unsafe method on a cookie without the CSRF token, before reading the body', async () => {
      const without = await as(hub(), admin, 'POST', '/v1/users/me/totp', undefined, { csrf: false });
      assert.equal(without.status, 403, without.text);
      const wrong = await hub().request('POST', '/v1/users/invitations', {
        headers: { cookie: admin.cookie, 'x-csrf-token': 'A'.repeat(43) },
        body: { not: 'valid' },
      });
      assert.equal(wrong.status, 403, 'CSRF before validation');
    });

    it('gives a new tab the session’s CSRF token from the cookie alone, never to a key or without the cookie', async () => {
      const current = await as(hub(), admin, 'GET', '/v1/sessions/current', undefined, { csrf: false });
      assert.equal(current.status, 200, current.text);
      assert.equal(current.body.csrfToken, admin.csrf, 'the token the sign-in answered');
      assert.equal(current.body.user.id, adminId);
      assert.equal(current.body.totpRequired, false);
      assert.equal(current.headers.get('cache-control'), 'no-store');
      // The token it hands out works for an unsafe request, like the sign-in's.
      const policy = await as(hub(), { ...admin, csrf: current.body.csrfToken }, 'PUT', '/v1/users/policy', {
        requireTotp: false,
      });
      assert.equal(policy.status, 200, policy.text);
      // Each session has its own token, none of them the session id.
      const other = (await signIn(hub(), adminEmail)).session!;
      assert.notEqual(other.csrf, admin.csrf);
      assert.ok(!admin.cookie.includes(admin.csrf));
      const crossed = await as(hub(), { ...admin, csrf: other.csrf }, 'PUT', '/v1/users/policy', {
        requireTotp: false,
      });
      assert.equal(crossed.status, 403, 'another session’s token is refused');
      assert.equal((await as(hub(), other, 'DELETE', '/v1/sessions/current')).status, 204);
      assert.equal((await hub().request('GET', '/v1/sessions/current')).status, 401, 'no cookie');
      const byKey = await hub().request('GET', '/v1/sessions/current', { key: org.apiKey });
      assert.equal(byKey.status, 403, 'a key has no session');
    });

    it('enrols TOTP, signs out, and signs in again only with a code (each code once) or a recovery code', async () => {
      const started = await as(hub(), admin, 'POST', '/v1/users/me/totp');
      assert.equal(started.status, 200, started.text);
      secret = started.body.secret;
      assert.match(started.body.otpauthUrl, /^otpauth:\/\/totp\/.*secret=[A-Z2-7]+.*digits=6.*period=30/);
      const [row] = await hub().db.query<{ sealed_totp: Uint8Array }>(
        'SELECT sealed_totp FROM users WHERE id = $1',
        [adminId],
      );
      assert.ok(!Buffer.from(row!.sealed_totp).toString('latin1').includes(secret), 'the secret is sealed');
      const bad = await as(hub(), admin, 'POST', '/v1/users/me/totp/confirm', {
        code: '000000' === totpCode(secret) ? '111111' : '000000',
      });
      assert.equal(bad.status, 400, bad.text);
      const confirmed = await as(hub(), admin, 'POST', '/v1/users/me/totp/confirm', {
        code: totpCode(secret),
      });
      assert.equal(confirmed.status, 200, confirmed.text);
      recoveryCodes = confirmed.body.recoveryCodes;
      assert.equal(recoveryCodes.length, 10);
      assert.equal(new Set(recoveryCodes).size, 10);

      const out = await as(hub(), admin, 'DELETE', '/v1/sessions/current');
      assert.equal(out.status, 204, out.text);
      assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
      assert.equal((await as(hub(), admin, 'GET', '/v1/users/me')).status, 401, 'the old cookie is dead');

      assert.equal((await signIn(hub(), adminEmail)).res.status, 401, 'no code');
      const code = totpCode(secret, 1);
      const withCode = await signIn(hub(), adminEmail, PASSWORD, code);
      assert.equal(withCode.res.status, 200, withCode.res.text);
      admin = withCode.session!;
      assert.equal((await signIn(hub(), adminEmail, PASSWORD, code)).res.status, 401, 'a code works once');
      const recovery = await signIn(hub(), adminEmail, PASSWORD, recoveryCodes[0]!.toUpperCase());
      assert.equal(recovery.res.status, 200, recovery.res.text);
      assert.equal((await signIn(hub(), adminEmail, PASSWORD, recoveryCodes[0]!)).res.status, 401, 'used up');
      assert.equal(
        (await as(hub(), admin, 'GET', '/v1/users/me')).status,
        200,
        'one session serves every tab',
      );
    });

    it('answers the same 401, in similar time, for an unknown e-mail, a wrong password and a wrong code', async () => {
      const timed = async (email: string, password: string, totp?: string) => {
        const t0 = performance.now();
        const { res } = await signIn(hub(), email, password, totp);
        return { res, ms: performance.now() - t0 };
      };
      const unknown = await timed(uniqueEmail('nobody'), PASSWORD);
      const wrongPassword = await timed(adminEmail, 'not the password at all');
      const wrongCode = await timed(
        adminEmail,
        PASSWORD,
        '123456' === totpCode(secret) ? '654321' : '123456',
      );
      const missingCode = await timed(adminEmail, PASSWORD);
      for (const f of [unknown, wrongPassword, wrongCode, missingCode]) {
        assert.equal(f.res.status, 401, f.res.text);
        assert.equal(f.res.body.detail, unknown.res.body.detail);
        assert.equal(f.res.body.code, 'UNAUTHENTICATED');
        assert.equal(f.res.headers.get('set-cookie'), null);
      }
      // Each runs one password hash: an unknown e-mail is not refused measurably sooner.
      assert.ok(
        unknown.ms > wrongPassword.ms * 0.4,
        `unknown ${unknown.ms} ms vs wrong password ${wrongPassword.ms} ms`,
      );
      // The admin's failures were within the free allowance; a success starts the count again.
      assert.equal((await signIn(hub(), adminEmail, PASSWORD, recoveryCodes[1]!)).res.status, 200);
    });

    it('lets a viewer read but not read personal data nor decline, by its cookie; an admin reads it, audited as the person', async () => {
      const viewer = await addPerson(hub(), smtp, admin, 'viewer');
      const viewerSession = (await signIn(hub(), viewer.email)).session!;
      const beneficiary = await hub().createOrg({ travelEndpoint: 'http://127.0.0.1:9/travel' });
      const tx = await hub().request('POST', '/v1/transactions/initiate', {
        key: org.apiKey,
        body: mainRequest(beneficiary.vaspDid),
      });
      assert.equal(tx.status, 200, tx.text);
      const ref = tx.body.transactionRef;
      assert.equal((await as(hub(), viewerSession, 'GET', `/v1/transactions/${ref}`)).status, 200);
      assert.equal((await as(hub(), viewerSession, 'GET', `/v1/transactions/${ref}/pii`)).status, 403);
      // HEAD runs the GET route's handler: it needs what GET needs.
      assert.equal((await as(hub(), viewerSession, 'HEAD', `/v1/transactions/${ref}/pii`)).status, 403);
      assert.equal((await as(hub(), viewerSession, 'HEAD', '/v1/users')).status, 403);
      assert.equal((await as(hub(), viewerSession, 'HEAD', `/v1/transactions/${ref}`)).status, 200);
      const decline = await as(hub(), viewerSession, 'POST', '/v1/transactions/decline', { nonsense: true });
      assert.equal(decline.status, 403, 'the role is checked before the body');
      assert.equal((await as(hub(), viewerSession, 'GET', '/v1/users')).status, 403);

      const pii = await as(hub(), admin, 'GET', `/v1/transactions/${ref}/pii`);
      assert.equal(pii.status, 200, pii.text);
      const cancel = await as(hub(), admin, 'POST', '/v1/transactions/cancel', { transactionRef: ref });
      assert.equal(cancel.status, 200, cancel.text);
      const audit = await hub().admin('GET', `/v1/admin/audit?transactionRef=${ref}`);
      const actions = audit.body.events.map((e: any) => `${e.action} ${e.actor}`);
      assert.ok(actions.includes(`transaction.pii_read user:${adminId}`), actions.join('\n'));
      assert.ok(actions.includes(`transaction.cancelled user:${adminId}`), actions.join('\n'));
      // The organization's own audit view shows what its people did.
      const own = await hub().request('GET', `/v1/audit?actor=user:${adminId}`, { key: org.apiKey });
      assert.equal(own.status, 200, own.text);
      assert.ok(own.body.events.some((e: any) => e.action === 'session.created'));
    });

    it('lets admins change roles and remove people; a removed person’s open session stops working', async () => {
      const analyst = await addPerson(hub(), smtp, admin, 'analyst');
      const session = (await signIn(hub(), analyst.email)).session!;
      assert.equal((await as(hub(), session, 'GET', '/v1/transactions')).status, 200);
      const demoted = await as(hub(), admin, 'PATCH', `/v1/users/${analyst.id}`, { role: 'viewer' });
      assert.equal(demoted.status, 200, demoted.text);
      assert.equal(demoted.body.user.role, 'viewer');
      const self = await as(hub(), admin, 'PATCH', `/v1/users/${adminId}`, { role: 'viewer' });
      assert.equal(self.status, 409, 'nobody changes their own role');
      const list = await as(hub(), admin, 'GET', '/v1/users');
      assert.equal(list.status, 200, list.text);
      assert.ok(list.body.users.some((u: any) => u.id === analyst.id && u.role === 'viewer'));
      assert.ok(!list.text.includes('scrypt') && !list.text.includes('sealed'));

      const removed = await as(hub(), admin, 'DELETE', `/v1/users/${analyst.id}`);
      assert.equal(removed.status, 204, removed.text);
      assert.equal((await as(hub(), session, 'GET', '/v1/transactions')).status, 401);
      assert.equal((await signIn(hub(), analyst.email)).res.status, 401);
    });

    it('slows down repeated failures for one e-mail, and never for good', async () => {
      const analyst = await addPerson(hub(), smtp, admin, 'analyst');
      for (let i = 0; i < 5; i++) {
        assert.equal((await signIn(hub(), analyst.email, `wrong password ${i}`)).res.status, 401);
      }
      const blocked = await signIn(hub(), analyst.email);
      assert.equal(blocked.res.status, 429, 'even the right password waits');
      assert.ok(Number(blocked.res.headers.get('retry-after')) >= 1);
      // An unknown address is slowed the same way: the throttle tells nobody which accounts exist.
      const nobody = uniqueEmail('nobody');
      for (let i = 0; i < 5; i++)
        assert.equal((await signIn(hub(), nobody, 'wrong password!')).res.status, 401);
      assert.equal((await signIn(hub(), nobody, 'wrong password!')).res.status, 429);
      await new Promise((r) => setTimeout(r, 1100));
      const later = await signIn(hub(), analyst.email);
      assert.equal(later.res.status, 200, later.res.text);
      assert.equal(
        (await signIn(hub(), analyst.email, 'wrong again, once')).res.status,
        401,
        'the count restarted',
      );
    });

    it('counts sign-in tries sent at once one after another: no more than the free ones get past', async () => {
      const analyst = await addPerson(hub(), smtp, admin, 'analyst');
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => signIn(hub(), analyst.email, `wrong at once ${i}`)),
      );
      const statuses = answers.map((a) => a.res.status).sort();
      assert.equal(statuses.filter((s) => s === 401).length, 5, statuses.join(' '));
      assert.equal(statuses.filter((s) => s === 429).length, 5, statuses.join(' '));
    });

    it('tells an inviter nothing of accounts in other organizations; the invited person learns it on accepting', async () => {
      const elsewhere = await hub().createOrg();
      const taken = await addPerson(hub(), smtp, { key: elsewhere.apiKey }, 'viewer');
      // The same address in this team is refused at once: the team sees its own people anyway.
      const own = await as(hub(), admin, 'POST', '/v1/users/invitations', {
        email: adminEmail,
        role: 'viewer',
      });
      assert.equal(own.status, 409, own.text);
      // Another organization's person: taken like any address, so the answer reveals nothing.
      const invited = await as(hub(), admin, 'POST', '/v1/users/invitations', {
        email: taken.email.toUpperCase(),
        role: 'viewer',
      });
      assert.equal(invited.status, 201, invited.text);
      // The second e-mail to that address (the first was the invitation it joined the other organization by).
      const to = (m: { to: string[] }) => m.to.some((a) => a.toLowerCase() === taken.email.toLowerCase());
      await smtp.waitFor((sm) => sm.messages.filter(to).length >= 2);
      const link = /\/invitation\/([A-Za-z0-9_-]{43})/.exec(decodeBody(smtp.messages.filter(to).at(-1)!.raw));
      assert.ok(link, 'the second invitation holds a link');
      const token = link[1]!;
      const accepted = await hub().request('POST', `/v1/invitations/${token}/accept`, {
        body: { name: 'Twice Invited', password: PASSWORD },
      });
      assert.equal(accepted.status, 409, accepted.text);
      assert.equal(accepted.body.code, 'ALREADY_EXISTS');
    });

    it('makes a person enrol a second factor first when the organization requires one', async () => {
      const analyst = await addPerson(hub(), smtp, admin, 'analyst');
      const set = await as(hub(), admin, 'PUT', '/v1/users/policy', { requireTotp: true });
      assert.equal(set.status, 200, set.text);
      const signed = await signIn(hub(), analyst.email);
      assert.equal(signed.res.status, 200, signed.res.text);
      assert.equal(signed.res.body.totpRequired, true);
      const session = signed.session!;
      assert.equal((await as(hub(), session, 'GET', '/v1/transactions')).status, 403);
      const started = await as(hub(), session, 'POST', '/v1/users/me/totp');
      assert.equal(started.status, 200, started.text);
      const ok = await as(hub(), session, 'POST', '/v1/users/me/totp/confirm', {
        code: totpCode(started.body.secret),
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await as(hub(), session, 'GET', '/v1/transactions')).status, 200);
      assert.equal((await as(hub(), admin, 'PUT', '/v1/users/policy', { requireTotp: false })).status, 200);
    });

    it('labels API keys with their owner, in the list and the audit', async () => {
      const created = await as(hub(), admin, 'POST', '/v1/organizations/me/api-keys', {
        label: 'payments backend',
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.owner, adminId);
      const list = await as(hub(), admin, 'GET', '/v1/organizations/me/api-keys');
      const key = list.body.apiKeys.find((k: any) => k.keyId === created.body.keyId);
      assert.deepEqual([key.label, key.owner], ['payments backend', adminId]);
      const audit = await hub().admin('GET', `/v1/admin/audit?action=api_key.created&actor=user:${adminId}`);
      assert.equal(audit.body.events[0].details.label, 'payments backend');
      assert.equal(audit.body.events[0].details.owner, adminId);
      const refused = await hub().request('POST', '/v1/users/me/totp', { key: org.apiKey });
      assert.equal(refused.status, 403, 'a key is no person');
    });

    it('lists a person’s own sessions, ends one of them, and changes the password: the others end', async () => {
      const analyst = await addPerson(hub(), smtp, admin, 'analyst');
      const laptop = (await signIn(hub(), analyst.email)).session!;
      const phone = (await signIn(hub(), analyst.email)).session!;
      const tablet = (await signIn(hub(), analyst.email)).session!;
      const listed = await hub().request('GET', '/v1/users/me/sessions', {
        headers: { cookie: laptop.cookie, 'user-agent': 'Laptop browser/1.0' },
      });
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.sessions.length, 3);
      assert.equal(listed.body.sessions.filter((s: any) => s.current).length, 1);
      assert.ok(listed.body.sessions.every((s: any) => s.clientAddress === '127.0.0.1'));
      const text = JSON.stringify(listed.body);
      for (const s of [laptop, phone, tablet]) {
        assert.ok(!text.includes(s.cookie.split('=')[1]!), 'no session secret in the list');
        assert.ok(!text.includes(s.csrf), 'no CSRF token in the list');
      }
      const phoneId = (await as(hub(), phone, 'GET', '/v1/users/me/sessions')).body.sessions.find(
        (s: any) => s.current,
      ).id;
      assert.equal((await as(hub(), laptop, 'DELETE', `/v1/users/me/sessions/${phoneId}`)).status, 204);
      assert.equal((await as(hub(), phone, 'GET', '/v1/transactions')).status, 401, 'the ended session');
      assert.equal((await as(hub(), laptop, 'DELETE', `/v1/users/me/sessions/${phoneId}`)).status, 404);
      const adminsId = (await as(hub(), admin, 'GET', '/v1/users/me/sessions')).body.sessions[0].id;
      assert.equal(
        (await as(hub(), laptop, 'DELETE', `/v1/users/me/sessions/${adminsId}`)).status,
        404,
        'only one’s own sessions',
      );
      assert.equal((await as(hub(), admin, 'GET', '/v1/transactions')).status, 200);
      const byKey = await hub().request('GET', '/v1/users/me/sessions', { key: org.apiKey });
      assert.equal(byKey.status, 403, 'a key has no sessions');

      const wrong = await as(hub(), laptop, 'POST', '/v1/users/me/password', {
        currentPassword: 'not the password at all',
        newPassword: 'a brand new passphrase',
      });
      assert.equal(wrong.status, 400, wrong.text);
      assert.equal(wrong.body.errors[0].path, '/currentPassword');
      const short = await as(hub(), laptop, 'POST', '/v1/users/me/password', {
        currentPassword: PASSWORD,
        newPassword: 'too short',
      });
      assert.equal(short.status, 400);
      assert.equal(short.body.errors[0].path, '/newPassword');
      const same = await as(hub(), laptop, 'POST', '/v1/users/me/password', {
        currentPassword: PASSWORD,
        newPassword: PASSWORD,
      });
      assert.equal(same.status, 400, 'the same password again');
      const noCsrf = await as(
        hub(),
        laptop,
        'POST',
        '/v1/users/me/password',
        { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' },
        { csrf: false },
      );
      assert.equal(noCsrf.status, 403);
      const changed = await as(hub(), laptop, 'POST', '/v1/users/me/password', {
        currentPassword: PASSWORD,
        newPassword: 'a brand new passphrase',
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.otherSessionsEnded, 1, 'the tablet; the phone had ended already');
      assert.equal((await as(hub(), tablet, 'GET', '/v1/transactions')).status, 401);
      assert.equal((await as(hub(), laptop, 'GET', '/v1/transactions')).status, 200, 'this one goes on');
      assert.equal((await signIn(hub(), analyst.email)).res.status, 401, 'the old password');
      assert.equal((await signIn(hub(), analyst.email, 'a brand new passphrase')).res.status, 200);
      const audit = await hub().admin('GET', `/v1/admin/audit?actor=user:${analyst.id}`);
      const actions = audit.body.events.map((e: any) => e.action);
      assert.ok(actions.includes('user.password_changed'));
      assert.ok(actions.includes('session.ended'));
      assert.ok(!audit.text.includes('a brand new passphrase'));
    });

    it('throttles guesses of the current password like sign-ins', async () => {
      const analyst = await addPerson(hub(), smtp, admin, 'analyst');
      const session = (await signIn(hub(), analyst.email)).session!;
      const guess = (currentPassword: string) =>
        as(hub(), session, 'POST', '/v1/users/me/password', {
          currentPassword,
          newPassword: 'a brand new passphrase',
        });
      for (let i = 0; i < 5; i++) assert.equal((await guess(`guess number ${i}`)).status, 400);
      const blocked = await guess(PASSWORD);
      assert.equal(blocked.status, 429, 'even the right one waits');
      assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
    });

    it('cancels an open invitation: its link stops working, and only an admin of its team cancels', async () => {
      const email = uniqueEmail('cancelled');
      const invited = await as(hub(), admin, 'POST', '/v1/users/invitations', { email, role: 'viewer' });
      assert.equal(invited.status, 201, invited.text);
      const token = tokenOf(await invitationLink(smtp, email));
      const viewer = await addPerson(hub(), smtp, admin, 'viewer');
      const viewerSession = (await signIn(hub(), viewer.email)).session!;
      const byViewer = await as(hub(), viewerSession, 'DELETE', `/v1/users/invitations/${invited.body.id}`);
      assert.equal(byViewer.status, 403);
      const byOperator = await hub().admin('DELETE', `/v1/admin/users/invitations/${invited.body.id}`);
      assert.equal(byOperator.status, 404, 'not an operator invitation');
      const cancelled = await as(hub(), admin, 'DELETE', `/v1/users/invitations/${invited.body.id}`);
      assert.equal(cancelled.status, 204, cancelled.text);
      const list = await as(hub(), admin, 'GET', '/v1/users');
      assert.ok(!list.body.invitations.some((i: any) => i.id === invited.body.id));
      const accept = await hub().request('POST', `/v1/invitations/${token}/accept`, {
        body: { name: 'Too late', password: PASSWORD },
      });
      assert.equal(accept.status, 404, 'the link no longer works');
      assert.equal(
        (await as(hub(), admin, 'DELETE', `/v1/users/invitations/${invited.body.id}`)).status,
        404,
      );
      const audit = await hub().admin('GET', `/v1/admin/audit?action=user.invitation_revoked`);
      assert.ok(audit.body.events.some((e: any) => e.subjectId === invited.body.id));
      const opInvite = await hub().admin('POST', '/v1/admin/users/invitations', {
        email: uniqueEmail('op-cancelled'),
        role: 'viewer',
      });
      assert.equal(
        (await hub().admin('DELETE', `/v1/admin/users/invitations/${opInvite.body.id}`)).status,
        204,
      );
    });

    it('gives operators people too: the operator key invites the first, who signs in on /v1/admin only', async () => {
      const op = await addPerson(hub(), smtp, { key: hub().adminKey }, 'admin', { admin: true });
      const session = (await signIn(hub(), op.email)).session!;
      assert.equal((await as(hub(), session, 'GET', '/v1/admin/organizations')).status, 200);
      assert.equal((await as(hub(), session, 'GET', '/v1/transactions')).status, 403);
      assert.equal((await as(hub(), admin, 'GET', '/v1/admin/users')).status, 403);
      const viewer = await addPerson(hub(), smtp, session, 'viewer', { admin: true });
      const viewerSession = (await signIn(hub(), viewer.email)).session!;
      assert.equal((await as(hub(), viewerSession, 'GET', '/v1/admin/organizations')).status, 200);
      const write = await as(hub(), viewerSession, 'POST', '/v1/admin/organizations', { name: 'X' });
      assert.equal(write.status, 403, 'an operator viewer only reads');
      const analyst = await as(hub(), session, 'POST', '/v1/admin/users/invitations', {
        email: uniqueEmail('op'),
        role: 'analyst',
      });
      assert.equal(analyst.status, 400, 'operators are viewers or admins');
      const audit = await hub().admin('GET', `/v1/admin/audit?actor=user:${op.id}&action=user.invited`);
      assert.equal(audit.body.events.length, 1);
    });

    it('never logs passwords, session cookies, CSRF tokens or invitation tokens', () => {
      const logs = hub().allLogs();
      assert.ok(!logs.includes(PASSWORD));
      assert.ok(!logs.includes(admin.cookie.split('=')[1]!));
      assert.ok(!logs.includes(admin.csrf));
      assert.ok(!/\/invitations\/[A-Za-z0-9_-]{43}/.test(logs));
    });
  },
  { SMTP_URL: smtp.url, HUB_PUBLIC_URL: 'https://hub.example' },
);

eachBackend(
  'Session timeouts',
  (hub) => {
    it('ends a session idle for HUB_SESSION_IDLE, and any session HUB_SESSION_MAX after sign-in', async () => {
      const org = await hub().createOrg();
      const person = await addPerson(hub(), smtp, { key: org.apiKey }, 'viewer');
      const idle = await signIn(hub(), person.email);
      // Plain HTTP on loopback: no Secure flag, or the browser would never send the cookie back.
      assert.ok(!(idle.res.headers.get('set-cookie') ?? '').includes('Secure'));
      await new Promise((r) => setTimeout(r, 2300));
      assert.equal((await as(hub(), idle.session!, 'GET', '/v1/transactions')).status, 401, 'idle too long');

      const busy = (await signIn(hub(), person.email)).session!;
      const started = Date.now();
      const seen: [number, number][] = [];
      while (Date.now() - started < 5000) {
        await new Promise((r) => setTimeout(r, 500));
        seen.push([Date.now() - started, (await as(hub(), busy, 'GET', '/v1/transactions')).status]);
      }
      assert.ok(
        seen.filter(([t]) => t < 3500).every(([, s]) => s === 200),
        JSON.stringify(seen),
      );
      assert.ok(
        seen.filter(([t]) => t > 4300).every(([, s]) => s === 401),
        JSON.stringify(seen),
      );
    });
  },
  { SMTP_URL: smtp.url, HUB_SESSION_IDLE: '2s', HUB_SESSION_MAX: '4s' },
);
