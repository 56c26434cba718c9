/**
 * Single sign-on and a person's own account security in headless Chromium against a real hub (on
 * PGlite, then on PostgreSQL) and a real OpenID provider (`oidc-provider` on 127.0.0.1): an admin
 * sets the provider in Settings and gets the team's sign-in link; an invited person opens it and
 * signs in with the SSO button, an uninvited e-mail is sent back to the sign-in page with the reason
 * in words; a person lists their sessions in My account, ends one (that browser is signed out) and
 * changes the password (the other sessions end); an admin cancels an invitation in People.
 * axe-core checks every page shown.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type OrgFixture, startHub, type TestHub } from '../harness.js';
import { TestProvider } from '../support/oidc-provider.js';
import { invitationLink, PASSWORD, tokenOf } from '../support/people.js';
import { SmtpSink } from '../support/smtp.js';
import {
  assertNoKeyLeaked,
  axe,
  browserSuiteSkip,
  cspViolations,
  launchChromium,
  newPage,
  prepareBrowserSuite,
  shot,
  signIn,
  signInAsPerson,
} from './browser.js';

for (const backend of ['pglite', 'postgres'] as const) {
  describe(`single sign-on and account security in the dashboard (Chromium) [${backend}]`, {
    skip: await browserSuiteSkip(backend, 'single sign-on in the dashboard'),
    timeout: 240_000,
  }, () => {
    let hub: TestHub;
    let browser: Browser;
    let smtp: SmtpSink;
    let provider: TestProvider;
    let org: OrgFixture;
    let admin: Page;
    let signInUrl = '';
    const secrets: string[] = [PASSWORD];
    const watched = { requested: [] as string[], consoleErrors: [] as string[] };

    before(async () => {
      prepareBrowserSuite();
      smtp = await SmtpSink.start();
      [hub, browser] = await Promise.all([startHub(backend, { SMTP_URL: smtp.url }), launchChromium()]);
      provider = await TestProvider.start(`${hub.url}/v1/sso/callback`);
      org = await hub.createOrg({ name: 'Kestrel Markets', vaspDid: 'did:web:kestrel.example' });
      secrets.push(org.apiKey, hub.adminKey, provider.clientSecret);
    });

    after(async () => {
      await browser?.close();
      await provider?.close();
      await hub?.destroy();
      await smtp?.close();
    });

    /** Invites `email` with the organization's key and accepts it with the password; the user's id. */
    async function person(email: string, name: string): Promise<string> {
      const invited = await hub.request('POST', '/v1/users/invitations', {
        key: org.apiKey,
        body: { email, role: 'analyst' },
      });
      assert.equal(invited.status, 201, invited.text);
      const token = tokenOf(await invitationLink(smtp, email));
      const accepted = await hub.request('POST', `/v1/invitations/${token}/accept`, {
        body: { name, password: PASSWORD },
      });
      assert.equal(accepted.status, 201, accepted.text);
      return accepted.body.user.id;
    }

    it('lets an admin set the provider in Settings and gives the team’s sign-in link', async () => {
      admin = await signIn(await newPage(browser, watched), hub.url, org.apiKey);
      await admin.getByRole('link', { name: 'Settings' }).click();
      const panel = admin.getByRole('region', { name: 'Single sign-on' });
      await panel.getByLabel('Issuer URL').fill(`${provider.issuer}/nowhere`);
      await panel.getByLabel('Client id').fill(provider.clientId);
      await panel.getByLabel('Client secret').fill(provider.clientSecret);
      await panel.getByRole('button', { name: 'Set the provider' }).click();
      await panel
        .locator('#sso-issuer-error')
        .getByText(/could not be discovered/)
        .waitFor();
      await panel.getByLabel('Issuer URL').fill(provider.issuer);
      await panel.getByLabel('Client secret').fill(provider.clientSecret);
      await panel.getByRole('button', { name: 'Set the provider' }).click();
      await panel.getByText('Sign-in link for your team').waitFor();
      signInUrl = ((await panel.locator('#sso-sign-in-link').textContent()) ?? '').trim();
      assert.equal(signInUrl, `${hub.url}/ui/?sso=${org.id}`);
      await panel.getByText(`${hub.url}/v1/sso/callback`).waitFor();
      assert.ok(!((await admin.content()) ?? '').includes(provider.clientSecret), 'the secret is not shown');
      await panel.scrollIntoViewIfNeeded();
      await shot(admin, 'settings-sso');
    });

    it('signs an invited person in with the SSO button of the link', async () => {
      const email = 'sam@kestrel.example';
      const invited = await hub.request('POST', '/v1/users/invitations', {
        key: org.apiKey,
        body: { email, role: 'analyst' },
      });
      assert.equal(invited.status, 201, invited.text);
      provider.accounts.set('sam', { email, email_verified: true, name: 'Sam Single' });
      provider.nextLogin = 'sam';
      const page = await newPage(browser, watched);
      await page.goto(signInUrl);
      const button = page.getByRole('link', { name: 'Sign in to Kestrel Markets with single sign-on' });
      await button.waitFor();
      await shot(page, 'sign-in-sso');
      await button.click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      assert.match((await page.locator('.who').textContent()) ?? '', /Sam Single · Kestrel Markets/);
      assert.equal(new URL(page.url()).pathname, '/ui/');
      await page.context().close();
    });

    it('sends an uninvited e-mail back to the sign-in page with the reason in words', async () => {
      provider.accounts.set('mallory', { email: 'mallory@elsewhere.example', email_verified: true });
      provider.nextLogin = 'mallory';
      const page = await newPage(browser, watched);
      await page.goto(signInUrl);
      await page.getByRole('link', { name: 'Sign in to Kestrel Markets with single sign-on' }).click();
      await page
        .getByRole('alert')
        .getByText(/Nobody of this organization has your e-mail address/)
        .waitFor();
      assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0);
      await axe(page, 'the sign-in page after a refused single sign-on');
      const stranger = await hub.request('GET', '/v1/admin/users', { key: hub.adminKey });
      assert.ok(!stranger.text.includes('mallory'), 'no account was made');
      await page.context().close();
    });

    it('lists a person’s sessions in My account, ends another, and changes the password', async () => {
      const email = 'pia@kestrel.example';
      await person(email, 'Pia Person');
      const laptop = await signInAsPerson(await newPage(browser, watched), hub.url, {
        email,
        password: PASSWORD,
      });
      const phone = await signInAsPerson(await newPage(browser, watched), hub.url, {
        email,
        password: PASSWORD,
      });
      const tablet = await signInAsPerson(await newPage(browser, watched), hub.url, {
        email,
        password: PASSWORD,
      });
      await laptop.getByRole('link', { name: 'My account' }).click();
      const sessions = laptop.getByRole('region', { name: 'Where you are signed in' });
      await sessions.getByText('(this session)').waitFor();
      assert.equal(await sessions.getByRole('button', { name: /^End the session of/ }).count(), 2);
      await shot(laptop, 'account-security');
      await sessions
        .getByRole('button', { name: /^End the session of/ })
        .first()
        .click();
      await laptop
        .getByRole('status')
        .getByText(/has ended/)
        .waitFor();
      assert.equal(await sessions.getByRole('button', { name: /^End the session of/ }).count(), 1);

      // One of the other two browsers is signed out (at its next request or refresh); the other goes on.
      const ended: boolean[] = [];
      for (const page of [phone, tablet]) {
        await page.reload();
        ended.push(
          await Promise.race([
            page
              .getByRole('heading', { name: 'Compliance dashboard' })
              .waitFor()
              .then(() => true),
            page
              .getByRole('button', { name: 'Sign out' })
              .waitFor()
              .then(() => false),
          ]),
        );
      }
      assert.deepEqual(ended.filter(Boolean).length, 1, 'exactly one other session ended');
      const still = ended[0] ? tablet : phone;

      const password = laptop.getByRole('region', { name: 'Password' });
      await password.getByLabel('Current password').fill('not the password at all');
      await password.getByLabel('New password').fill('a brand new passphrase');
      await password.getByRole('button', { name: 'Change the password' }).click();
      await password.locator('#current-password-error').getByText('is not the current password').waitFor();
      await axe(laptop, 'My account with a wrong current password');
      await password.getByLabel('Current password').fill(PASSWORD);
      await password.getByRole('button', { name: 'Change the password' }).click();
      await laptop
        .getByRole('status')
        .getByText(/password is changed; 1 other session ended/)
        .waitFor();
      secrets.push('a brand new passphrase');
      await still.reload();
      await still.getByRole('heading', { name: 'Compliance dashboard' }).waitFor();
      await laptop.getByRole('link', { name: 'Inbox' }).click();
      await laptop.getByRole('heading', { name: 'Inbox' }).waitFor();
      for (const p of [laptop, phone, tablet]) await p.context().close();
    });

    it('lets an admin cancel an invitation in People: its link stops working', async () => {
      const email = 'late@kestrel.example';
      await admin.getByRole('link', { name: 'People' }).click();
      await admin.getByLabel('E-mail address').fill(email);
      await admin.getByRole('button', { name: 'Send the invitation' }).click();
      const waiting = admin.getByRole('region', { name: 'Invitations waiting' });
      await waiting.getByText(email, { exact: true }).waitFor();
      const token = tokenOf(await invitationLink(smtp, email));
      await waiting.getByRole('button', { name: `Cancel the invitation of ${email}` }).click();
      await admin.getByRole('status').getByText(`The invitation of ${email} is cancelled.`).waitFor();
      assert.equal(await waiting.getByText(email, { exact: true }).count(), 0);
      await axe(admin, 'People after cancelling an invitation');
      const accept = await hub.request('POST', `/v1/invitations/${token}/accept`, {
        body: { name: 'Too Late', password: PASSWORD },
      });
      assert.equal(accept.status, 404, 'the link no longer works');
    });

    it('never puts a key, password, secret or session in a URL or the logs, and keeps to the CSP', () => {
      assertNoKeyLeaked(secrets, watched.requested, hub);
      assert.deepEqual(cspViolations(watched.consoleErrors), []);
    });
  });
}
