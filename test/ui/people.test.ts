/**
 * People in the dashboard (SPEC §17) in headless Chromium against a real hub (on PGlite, then on
 * PostgreSQL) that sends its invitations to a real SMTP server: the first admin signs in with the
 * organization's key and invites a person from People; the person accepts from the link in the
 * e-mail, signs in with the password, works in a second tab without signing in again, enrols TOTP
 * (the code computed here from the secret the page showed, with the hub's own TOTP module), signs
 * out and back in with a code; a viewer sees neither personal data nor decline, and its cookie gets
 * 403 for both from the API (and without the CSRF token for anything unsafe); a removed person's
 * open page is signed out; an admin changes a role and requires two factors, and a person without
 * one is taken to enrol; a signed-in analyst claims a NOTIFY transfer on the claim page with the
 * session instead of a key; the operator's People, and an operator viewer without controls.
 * axe-core checks every new page. The steps share one hub per database and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { base32Decode, hotp, timeStep } from '../../src/people/totp.js';
import type { OrgFixture, TestHub } from '../harness.js';
import { invitationLink, PASSWORD, tokenOf } from '../support/people.js';
import { eventually, type Receiver } from '../support/receiver.js';
import { mainRequest, notifyRequest } from '../support/requests.js';
import { decodeBody, type SmtpSink } from '../support/smtp.js';
import {
  assertNoKeyLeaked,
  axe,
  browserSuiteSkip,
  cspViolations,
  newPage,
  shot,
  signIn,
  signInAsPerson,
} from './browser.js';
import { PUBLIC_URL, startMembers, stopMembers } from './members.js';

/** The TOTP code of `secret` at `offset` steps from now's. */
const codeOf = (secret: string, offset = 0) => hotp(base32Decode(secret)!, timeStep(Date.now()) + offset);

for (const backend of ['pglite', 'postgres'] as const) {
  describe(`people in the dashboard (Chromium) [${backend}]`, {
    skip: await browserSuiteSkip(backend, 'people in the dashboard'),
    timeout: 240_000,
  }, () => {
    let hub: TestHub;
    let browser: Browser;
    let smtp: SmtpSink;
    let receiver: Receiver;
    let rhein: OrgFixture; // the organization whose people these are
    let alpha: OrgFixture; // an originator sending to it
    let confirmedRef: string; // a transfer to Rhein that the originator confirmed
    let admin: { email: string; page: Page; context: BrowserContext };
    let secret = '';
    let recoveryCodes: string[] = [];
    let viewerPage: Page;
    let annPage: Page; // an analyst, signed in
    let annId = '';
    /** Never in a URL nor in the logs. */
    const secrets: string[] = [PASSWORD];
    /** The e-mailed links' tokens: in the links' own URLs by design, never in the logs. */
    const linkTokens: string[] = [];
    const watched = { requested: [] as string[], consoleErrors: [] as string[] };

    before(async () => {
      ({ hub, browser, smtp, receiver, rhein, alpha } = await startMembers(backend));
      secrets.push(rhein.apiKey, alpha.apiKey, hub.adminKey);
      const sent = await hub.request('POST', '/v1/transactions/initiate', {
        key: alpha.apiKey,
        body: mainRequest(rhein.vaspDid),
      });
      assert.equal(sent.status, 200, sent.text);
      confirmedRef = sent.body.transactionRef;
      await eventually(async () => {
        const tx = await hub.request('GET', `/v1/transactions/${confirmedRef}`, { key: alpha.apiKey });
        return tx.body.status === 'RECEIVER_NOTIFIED';
      }, 'the beneficiary was notified');
      const confirmed = await hub.request('POST', '/v1/transactions/confirm', {
        key: alpha.apiKey,
        body: { transactionRef: confirmedRef },
      });
      assert.equal(confirmed.status, 200, confirmed.text);
    });

    after(async () => {
      await stopMembers({ hub, browser, smtp, receiver });
    });

    /** The page of the e-mailed link, opened on the test hub (the link names the public URL). */
    const onHub = (link: string) => `${hub.url}${new URL(link).pathname}`;

    /** Invites `email` as `role` from the People page of `page`, as whoever is signed in there. */
    async function invite(page: Page, email: string, role: string) {
      await page.goto(`${hub.url}/ui/#/people`);
      await page.getByRole('heading', { name: 'People' }).waitFor();
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('Role', { exact: true }).selectOption(role);
      await page.getByRole('button', { name: 'Send the invitation' }).click();
      await page
        .getByRole('region', { name: 'Invitations waiting' })
        .getByText(email, { exact: true })
        .waitFor();
    }

    /** The CSRF token and cookie of a page's session, as another client of the same origin gets them. */
    async function sessionOf(page: Page): Promise<{ cookie: string; csrf: string }> {
      const [cookie] = (await page.context().cookies(hub.url)).filter((c) => c.name === 'trh_session');
      assert.ok(cookie, 'the session cookie');
      assert.ok(cookie.httpOnly, 'HttpOnly');
      assert.equal(cookie.sameSite, 'Strict');
      const current = await hub.request('GET', '/v1/sessions/current', {
        headers: { cookie: `trh_session=${cookie.value}` },
      });
      assert.equal(current.status, 200, current.text);
      secrets.push(cookie.value, current.body.csrfToken);
      return { cookie: `trh_session=${cookie.value}`, csrf: current.body.csrfToken };
    }

    it('lets the first admin, signed in with the key, invite a person from People', async () => {
      const page = await signIn(await newPage(browser, watched), hub.url, rhein.apiKey);
      await page.getByRole('link', { name: 'People' }).click();
      await page.getByText('Nobody has an account yet').waitFor();
      await shot(page, 'people-empty');
      admin = { email: 'ada@rhein-bank.example', page, context: page.context() };
      await invite(page, admin.email, 'admin');
      await axe(page, 'People with an invitation waiting');
      await page.context().close();
    });

    it('accepts the invitation from the e-mailed link with a name and a password', async () => {
      const link = await invitationLink(smtp, admin.email);
      assert.ok(link.startsWith(`${PUBLIC_URL}/invitation/`), link);
      linkTokens.push(tokenOf(link));
      const page = await newPage(browser, watched);
      await page.goto(onHub(link));
      await page.getByRole('heading', { name: 'Join your team' }).waitFor();
      await axe(page, 'the invitation page');

      await page.getByLabel('Your name').fill('Ada Admin');
      await page.getByLabel('Password', { exact: true }).fill('too short');
      await page.getByLabel('The password again').fill('too short');
      await page.getByRole('button', { name: 'Create my account' }).click();
      await page
        .locator('#invite-password-error')
        .getByText(/at least 12/)
        .waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'invite-password');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('The password again').fill(`${PASSWORD}!`);
      await page.getByRole('button', { name: 'Create my account' }).click();
      await page.locator('#invite-again-error').getByText('The two passwords differ.').waitFor();
      await page.getByLabel('The password again').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create my account' }).click();
      await page.getByRole('heading', { name: 'Your account is ready' }).waitFor();
      await page.getByText(admin.email).waitFor();
      await shot(page, 'invitation-accepted');

      // The link is used up: said plainly, and not why.
      await page.reload();
      await page.getByLabel('Your name').fill('Eve');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('The password again').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create my account' }).click();
      await page.getByText('This link is not valid any more.').waitFor();
      assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /used|expired/i);
      await page.getByRole('link', { name: 'compliance dashboard' }).click();
      await page.getByRole('heading', { name: 'Compliance dashboard' }).waitFor();
      await page.context().close();
    });

    it('signs the person in with the password; a second tab needs no sign-in; nothing is stored in the page', async () => {
      const page = await newPage(browser, watched);
      await page.goto(`${hub.url}/ui/`);
      await page.getByLabel('E-mail address').fill(admin.email);
      await page.getByLabel('Password').fill('not the password at all');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page
        .getByRole('alert')
        .getByText('The e-mail address, the password or the code is not right.')
        .waitFor();
      await axe(page, 'the sign-in page with a failure');

      await signInAsPerson(page, hub.url, { email: admin.email, password: PASSWORD });
      await page.getByRole('heading', { name: 'Inbox' }).waitFor();
      const who = (await page.locator('.who').textContent()) ?? '';
      assert.match(who, /Ada Admin · Rhein Bank/);
      assert.match(who, /admin/);
      assert.equal(
        await page.evaluate(() => sessionStorage.length + localStorage.length),
        0,
        'no key, token or session in the page’s storage',
      );
      admin.page = page;
      admin.context = page.context();

      const second = await admin.context.newPage();
      await second.goto(`${hub.url}/ui/#/tx/${confirmedRef}`);
      await second.getByRole('button', { name: 'Show personal data' }).waitFor();
      await second.getByRole('button', { name: 'Show personal data' }).click();
      await second.getByRole('button', { name: 'Hide personal data' }).waitFor();
      await second.close();
      const audit = await hub.request('GET', '/v1/audit?action=transaction.pii_read', { key: rhein.apiKey });
      assert.ok(
        audit.body.events.some((e: { actor: string }) => e.actor.startsWith('user:')),
        'the read is audited as the person',
      );
    });

    it('enrols a second factor from My account: QR code, secret, a code, ten recovery codes shown once', async () => {
      const page = admin.page;
      await page.getByRole('link', { name: 'My account' }).click();
      await page.getByRole('heading', { name: 'My account' }).waitFor();
      await axe(page, 'My account');
      await page.getByRole('button', { name: 'Set up a second factor' }).click();
      const qr = page.getByRole('img', { name: /QR code/ });
      await qr.waitFor();
      assert.ok((await qr.locator('path').getAttribute('d'))!.length > 1000, 'the QR code has modules');
      secret = await page.locator('#secret-secret').inputValue();
      assert.match(secret, /^[A-Z2-7]{32}$/);
      secrets.push(secret);
      assert.match(
        (await page.getByRole('link', { name: 'open it in your authenticator app' }).getAttribute('href')) ??
          '',
        /^otpauth:\/\/totp\//,
      );
      await axe(page, 'the enrolment');

      await page
        .getByLabel('The 6-digit code the app shows now')
        .fill(codeOf(secret) === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: 'Turn the second factor on' }).click();
      await page.locator('#totp-code-error').waitFor();
      await page.getByLabel('The 6-digit code the app shows now').fill(codeOf(secret));
      await page.getByRole('button', { name: 'Turn the second factor on' }).click();
      const codes = page.locator('.recovery-codes li');
      await codes.first().waitFor();
      recoveryCodes = await codes.allTextContents();
      assert.equal(recoveryCodes.length, 10);
      secrets.push(...recoveryCodes);
      await shot(page, 'account-recovery-codes');
      await page.getByRole('button', { name: 'I have stored them' }).click();
      await page.getByText(/^On: you sign in with a code/).waitFor();
      assert.equal(await page.locator('.recovery-codes').count(), 0, 'shown only once');
    });

    it('signs out everywhere and back in only with a code', async () => {
      const page = admin.page;
      const other = await admin.context.newPage();
      await other.goto(`${hub.url}/ui/#/outbox`);
      await other.getByRole('heading', { name: 'Outbox' }).waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Compliance dashboard' }).waitFor();
      assert.equal((await admin.context.cookies(hub.url)).filter((c) => c.name === 'trh_session').length, 0);
      // The other tab's session ended with it: its next request is answered 401.
      await other.getByRole('link', { name: 'Inbox' }).click();
      await other.getByText(/Your session has ended/).waitFor();
      await other.close();

      await page.getByLabel('E-mail address').fill(admin.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page
        .getByRole('alert')
        .getByText(/not right/)
        .waitFor();
      await signInAsPerson(page, hub.url, {
        email: admin.email,
        password: PASSWORD,
        code: codeOf(secret, 1),
      });
      await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    });

    it('shows a viewer no personal data and no decline, and the API refuses both to its cookie', async () => {
      const email = 'vera@rhein-bank.example';
      await invite(admin.page, email, 'viewer');
      const token = tokenOf(await invitationLink(smtp, email));
      linkTokens.push(token);
      const accepted = await hub.request('POST', `/v1/invitations/${token}/accept`, {
        body: { name: 'Vera Viewer', password: PASSWORD },
      });
      assert.equal(accepted.status, 201, accepted.text);

      viewerPage = await signInAsPerson(await newPage(browser, watched), hub.url, {
        email,
        password: PASSWORD,
      });
      const nav = (await viewerPage.getByRole('navigation', { name: 'Main' }).textContent()) ?? '';
      assert.ok(!nav.includes('Settings') && !nav.includes('People'), nav);
      await viewerPage.goto(`${hub.url}/ui/#/tx/${confirmedRef}`);
      await viewerPage.getByTestId('pii-not-for-role').waitFor();
      await viewerPage
        .getByText(/Your role \(viewer\) may only read\. An analyst or admin could now decline it/)
        .waitFor();
      assert.equal(await viewerPage.getByRole('button', { name: 'Show personal data' }).count(), 0);
      assert.equal(await viewerPage.getByRole('button', { name: /Decline/ }).count(), 0);
      await shot(viewerPage, 'transaction-as-viewer');
      await viewerPage.goto(`${hub.url}/ui/#/settings`);
      await viewerPage.getByRole('heading', { name: 'Not open to you' }).waitFor();

      const viewer = await sessionOf(viewerPage);
      const pii = await hub.request('GET', `/v1/transactions/${confirmedRef}/pii`, {
        headers: { cookie: viewer.cookie },
      });
      assert.equal(pii.status, 403, pii.text);
      const decline = await hub.request('POST', '/v1/transactions/decline', {
        headers: { cookie: viewer.cookie, 'x-csrf-token': viewer.csrf },
        body: {
          transactionRef: confirmedRef,
          reason: { category: 'SANCTIONS_MATCH', description: 'a test' },
        },
      });
      assert.equal(decline.status, 403, decline.text);
      const noCsrf = await hub.request('POST', '/v1/users/me/totp', { headers: { cookie: viewer.cookie } });
      assert.equal(noCsrf.status, 403, 'an unsafe request without the CSRF token');
      const adminSession = await sessionOf(admin.page);
      const forged = await hub.request('PUT', '/v1/users/policy', {
        headers: { cookie: adminSession.cookie },
        body: { requireTotp: true },
      });
      assert.equal(forged.status, 403, 'the admin’s cookie without the token changes nothing');
    });

    it('signs a removed person’s open page out', async () => {
      const page = admin.page;
      page.once('dialog', (d) => void d.accept());
      // Vera accepted after the list was loaded: a reload shows her (the session survives it).
      await page.reload();
      await page.getByRole('heading', { name: 'People' }).waitFor();
      await axe(page, 'People with two people');
      await page.getByRole('button', { name: 'Remove Vera Viewer' }).click();
      await page.getByRole('status').getByText('Vera Viewer is removed.').waitFor();
      assert.equal(await page.getByRole('cell', { name: 'Vera Viewer' }).count(), 0);

      await viewerPage.getByRole('link', { name: 'Inbox' }).click();
      await viewerPage.getByText(/Your session has ended/).waitFor();
      await viewerPage.getByRole('heading', { name: 'Compliance dashboard' }).waitFor();
      await axe(viewerPage, 'the sign-in page after the session ended');
      await viewerPage.context().close();
    });

    it('changes a role, and requires two factors of everyone', async () => {
      const page = admin.page;
      const email = 'ann@rhein-bank.example';
      await invite(page, email, 'viewer');
      const token = tokenOf(await invitationLink(smtp, email));
      linkTokens.push(token);
      const accepted = await hub.request('POST', `/v1/invitations/${token}/accept`, {
        body: { name: 'Ann Analyst', password: PASSWORD },
      });
      assert.equal(accepted.status, 201, accepted.text);
      annId = accepted.body.user.id;
      await page.reload();
      await page.getByLabel('Role of Ann Analyst').selectOption('analyst');
      await page.getByRole('button', { name: 'Change role of Ann Analyst' }).click();
      await page.getByRole('status').getByText('Ann Analyst is now analyst.').waitFor();

      await page.getByLabel('Require two factors for everyone').check();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Now required.').waitFor();
      const policy = await hub.request('GET', '/v1/users/policy', { key: rhein.apiKey });
      assert.equal(policy.body.requireTotp, true);

      // Ann has no second factor yet: after signing in, only My account is open.
      const ann = await signInAsPerson(await newPage(browser, watched), hub.url, {
        email,
        password: PASSWORD,
      });
      await ann.getByRole('heading', { name: 'My account' }).waitFor();
      await ann.getByText(/requires a second factor of everyone/).waitFor();
      const nav = (await ann.getByRole('navigation', { name: 'Main' }).textContent()) ?? '';
      assert.equal(nav.trim(), 'My account');
      await axe(ann, 'My account when a second factor is required');
      await ann.getByRole('button', { name: 'Set up a second factor' }).click();
      const annSecret = await ann.locator('#secret-secret').inputValue();
      secrets.push(annSecret);
      await ann.getByLabel('The 6-digit code the app shows now').fill(codeOf(annSecret));
      await ann.getByRole('button', { name: 'Turn the second factor on' }).click();
      await ann.locator('.recovery-codes li').first().waitFor();
      secrets.push(...(await ann.locator('.recovery-codes li').allTextContents()));
      await ann.getByRole('button', { name: 'I have stored them' }).click();
      await ann.getByRole('link', { name: 'Inbox' }).waitFor();
      annPage = ann;
    });

    it('lets a signed-in analyst claim a NOTIFY transfer on the claim page with the session, no key', async () => {
      const email = 'claims@rhein-bank.example';
      const body = notifyRequest('5b0e7c3e-6c1e-4a55-9a57-0f4c1d2e3f40');
      body.notificationEmail = email;
      const sent = await hub.request('POST', '/v1/transactions/initiate', { key: alpha.apiKey, body });
      assert.equal(sent.status, 200, sent.text);
      const ref = sent.body.transactionRef as string;
      await smtp.waitFor((s) => s.messages.some((m) => m.to.includes(email) && m.raw.includes('/claim/')));
      const mail = smtp.messages.find((m) => m.to.includes(email) && m.raw.includes('/claim/'))!;
      const link = /(https?:\/\/\S+\/claim\/[A-Za-z0-9_-]{43})/.exec(decodeBody(mail.raw))?.[1];
      assert.ok(link, 'the claim link');
      linkTokens.push(tokenOf(link));
      await eventually(async () => {
        const tx = await hub.request('GET', `/v1/transactions/${ref}`, { key: alpha.apiKey });
        return tx.body.status === 'RECEIVER_NOTIFIED';
      }, 'the NOTIFY e-mail went out');

      const keyed: string[] = [];
      annPage.on('request', (r) => {
        if (r.headers()['x-api-key'] !== undefined) keyed.push(r.url());
      });
      await annPage.goto(onHub(link));
      const claim = annPage.getByRole('button', { name: 'Claim it for Rhein Bank' });
      await claim.waitFor();
      await annPage.getByText('You are signed in to the dashboard as Ann Analyst of Rhein Bank.').waitFor();
      await axe(annPage, 'the claim page with a session');
      await claim.click();
      await annPage.getByRole('heading', { name: 'The transfer is yours' }).waitFor();
      assert.deepEqual(keyed, [], 'no key was sent');
      const tx = await hub.request('GET', `/v1/transactions/${ref}`, { key: alpha.apiKey });
      assert.equal(tx.body.beneficiaryVASPdid, rhein.vaspDid);
      const audit = await hub.request('GET', `/v1/audit?action=transaction.claimed&transactionRef=${ref}`, {
        key: rhein.apiKey,
      });
      assert.equal(audit.status, 200, audit.text);
      assert.deepEqual(
        audit.body.events.map((e: { actor: string }) => e.actor),
        [`user:${annId}`],
        'the claim is audited as the person',
      );
      await annPage.context().close();
    });

    it('gives operators people too: the operator key invites, an operator viewer reads without controls', async () => {
      const page = await signIn(await newPage(browser, watched), hub.url, hub.adminKey);
      const email = 'otto@hub-operator.example';
      await invite(page, email, 'viewer');
      await axe(page, 'the operator’s People');
      const token = tokenOf(await invitationLink(smtp, email));
      linkTokens.push(token);
      const accepted = await hub.request('POST', `/v1/invitations/${token}/accept`, {
        body: { name: 'Otto Operator', password: PASSWORD },
      });
      assert.equal(accepted.status, 201, accepted.text);
      await page.reload();
      await page.getByRole('cell', { name: 'Otto Operator', exact: true }).waitFor();
      await page.context().close();

      const otto = await signInAsPerson(await newPage(browser, watched), hub.url, {
        email,
        password: PASSWORD,
      });
      await otto.getByRole('heading', { name: 'Hub overview' }).waitFor();
      assert.match(
        (await otto.locator('.who').textContent()) ?? '',
        /Otto Operator · Hub operator.*operator viewer/,
      );
      const nav = (await otto.getByRole('navigation', { name: 'Main' }).textContent()) ?? '';
      assert.ok(!nav.includes('People'), nav);
      await otto.getByRole('link', { name: 'Organizations' }).click();
      await otto.getByRole('cell', { name: 'Rhein Bank', exact: true }).waitFor();
      assert.equal(await otto.getByRole('button', { name: /verify|register/i }).count(), 0, 'no controls');
      await otto.getByRole('link', { name: 'Operators' }).click();
      await otto.getByText(/signed in as Otto Operator, an operator viewer/).waitFor();
      assert.equal(await otto.getByRole('button', { name: /create|revoke/i }).count(), 0, 'no controls');
      await axe(otto, 'the operators page for an operator viewer');
      await otto.context().close();
    });

    it('never puts a key, password, code, token or session in a URL or the logs, and keeps to the CSP', () => {
      assertNoKeyLeaked(secrets, watched.requested, hub);
      assert.equal(linkTokens.length, 5);
      for (const token of linkTokens) assert.ok(!hub.allLogs().includes(token), 'no link token in the logs');
      assert.deepEqual(cspViolations(watched.consoleErrors), []);
    });
  });
}
