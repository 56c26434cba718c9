/**
 * NOTIFY progress in the dashboard (SPEC §12, §17), in headless Chromium against a real hub on
 * each database, sending its e-mails to a real SMTP server: the originator follows its NOTIFY
 * transfer's claim link through a rejected application, a new application and an approval on the
 * transaction page; the applicant, reopening the link from the e-mail, sees its application's
 * state, the operator's reason, applies again on the page, and sees the approval. Screenshots are
 * saved and axe-core checks each one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type Backend, type OrgFixture, startHub, type TestHub } from '../harness.js';
import { Receiver } from '../support/receiver.js';
import { notifyRequest } from '../support/requests.js';
import { decodeBody, SmtpSink } from '../support/smtp.js';
import {
  axe,
  browserSuiteSkip,
  DESKTOP,
  launchChromium,
  newPage as openPage,
  overflowOf,
  PHONE,
  prepareBrowserSuite,
  shot,
  signIn,
} from './browser.js';
import { member } from './members.js';

const PUBLIC_URL = 'https://hub.example';

for (const backend of ['pglite', 'postgres'] as Backend[]) {
  describe(`NOTIFY progress in the dashboard [${backend}] (Chromium)`, {
    skip: await browserSuiteSkip(backend, 'NOTIFY progress'),
    timeout: 240_000,
  }, () => {
    let hub: TestHub;
    let browser: Browser;
    let smtp: SmtpSink;
    let receiver: Receiver;
    let alpha: OrgFixture;
    let ref: string;
    let token: string;
    const email = 'compliance@newcomer.example';
    const watched = { requested: [] as string[], consoleErrors: [] as string[] };
    /** docs/screenshots keeps the PGlite run's pictures; the PostgreSQL run's go to a temporary directory. */
    const snap = (page: Page, name: string) =>
      backend === 'pglite'
        ? shot(page, name)
        : process.env.UPDATE_SCREENSHOTS === 'true'
          ? axe(page, name)
          : shot(page, `${name}-postgres`);

    before(async () => {
      prepareBrowserSuite();
      smtp = await SmtpSink.start();
      [hub, browser, receiver] = await Promise.all([
        startHub(backend, {
          SMTP_URL: smtp.url,
          HUB_PUBLIC_URL: PUBLIC_URL,
          HUB_OPERATOR_CONTACT: 'desk@hub-operator.example',
        }),
        launchChromium(),
        Receiver.start(),
      ]);
      alpha = await hub.createOrg(member('Alpha Exchange', receiver.url));
      const body = notifyRequest('5b0e7c3e-6c1e-4a55-9a57-0f4c1d2e3f40');
      body.notificationEmail = email;
      const res = await hub.request('POST', '/v1/transactions/initiate', { key: alpha.apiKey, body });
      assert.equal(res.status, 200, res.text);
      ref = res.body.transactionRef;
      await smtp.waitFor((s) => s.messages.some((m) => m.to.includes(email) && m.raw.includes('/claim/')));
      const mail = smtp.messages.find((m) => m.to.includes(email) && m.raw.includes('/claim/'))!;
      token = /hub\.example\/claim\/([A-Za-z0-9_-]{43})/.exec(decodeBody(mail.raw))![1]!;
    });

    after(async () => {
      await browser?.close();
      await receiver?.close();
      await hub?.destroy();
      await smtp?.close();
    });

    const newPage = (viewport = DESKTOP) => openPage(browser, watched, { viewport });
    /** The originator's transaction page, signed in with its key. */
    const originatorPage = async () => {
      const page = await signIn(await newPage(), hub.url, alpha.apiKey);
      await page.goto(`${hub.url}/ui/#/tx/${ref}`);
      await page.getByRole('heading', { name: 'NOTIFY progress' }).waitFor();
      return page;
    };
    const steps = async (page: Page) =>
      (
        await page.getByRole('list', { name: 'Claim link progress' }).getByRole('listitem').allInnerTexts()
      ).map((t) => t.replace(/\s+/g, ' ').trim());
    const pendingId = async () => {
      const waiting = await hub.admin('GET', '/v1/admin/applications?status=pending');
      return waiting.body.applications.find((a: { transactionRef: string }) => a.transactionRef === ref).id;
    };

    it('shows the originator where the announcement went and that nobody opened it yet', async () => {
      const page = await originatorPage();
      await page.getByTestId('notification-email').getByText(email).waitFor();
      const list = await steps(page);
      assert.match(list[0]!, /^Announcement e-mailed \d/);
      assert.ok(
        list.slice(1).every((s) => s.endsWith('not yet')),
        list.join(' | '),
      );
      await page.context().close();
    });

    it('lets the applicant apply, see the rejection with its reason, apply again and see the approval', async () => {
      const page = await newPage(PHONE);
      await page.goto(`${hub.url}/claim/${token}`);
      await page.getByRole('heading', { name: 'Travel rule data is waiting for you' }).waitFor();
      await page.getByLabel('Name of your exchange').fill('Newcomer Exchange');
      await page.getByLabel('DID').fill('did:web:newcomer.example');
      await page.getByLabel('Contact e-mail').fill('ops@newcomer.example');
      await page.getByRole('button', { name: 'Send application' }).click();
      await page.getByRole('heading', { name: 'Application sent' }).waitFor();

      const rejected = await hub.admin('POST', `/v1/admin/applications/${await pendingId()}/reject`, {
        reason: 'Add your licence number to the name, as registered.',
      });
      assert.equal(rejected.status, 200, rejected.text);

      await page.reload();
      await page.getByRole('heading', { name: 'Your application was not approved' }).waitFor();
      const state = page.getByTestId('application-state');
      await state.getByText('Add your licence number to the name, as registered.').waitFor();
      const main = (await page.locator('main').textContent()) ?? '';
      assert.doesNotMatch(main, /ops@newcomer\.example|Newcomer Exchange/, 'nothing the applicant typed');
      assert.ok((await overflowOf(page)) <= 0, 'no sideways scrolling at 375 px');
      await snap(page, 'claim-rejected');

      await page.getByLabel('Name of your exchange').fill('Newcomer Exchange (licence 12345)');
      await page.getByLabel('DID').fill('did:web:newcomer.example');
      await page.getByLabel('Contact e-mail').fill('ops@newcomer.example');
      await page.getByRole('button', { name: 'Send application' }).click();
      await page.getByRole('heading', { name: 'Application sent' }).waitFor();
      await page.reload();
      await page.getByRole('heading', { name: 'Your application is waiting for review' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Send application' }).count(), 0, 'one at a time');
      await snap(page, 'claim-pending');

      const approved = await hub.admin('POST', `/v1/admin/applications/${await pendingId()}/approve`);
      assert.equal(approved.status, 200, approved.text);
      await page.reload();
      await page.getByRole('heading', { name: 'Your application was approved' }).waitFor();
      await page.getByText(/went by e-mail to the address this claim link was sent to/).waitFor();
      await snap(page, 'claim-approved');
      await page.context().close();
    });

    it('shows the originator every step with its time: rejected, applied again, approved, attached', async () => {
      const page = await originatorPage();
      await page.getByText(/The beneficiary has the transfer/).waitFor();
      const list = await steps(page);
      assert.deepEqual(
        list.map((s) => s.replace(/ \d.*$/, '')),
        [
          'Announcement e-mailed',
          'Claim page opened',
          'Applied to join',
          'Application rejected by the operator',
          'Applied to join',
          'Application approved: the exchange joined',
          'Transfer attached to the beneficiary',
        ],
      );
      assert.ok(
        list.every((s) => /\d{4}|\d{1,2}:\d{2}/.test(s)),
        `each step has its time: ${list.join(' | ')}`,
      );
      const current = page.locator('.stepper [aria-current="step"]');
      assert.match((await current.textContent()) ?? '', /Transfer attached/);
      await snap(page, 'transaction-notify-progress');
      await page.setViewportSize(PHONE);
      assert.ok((await overflowOf(page)) <= 0, 'no sideways scrolling at 375 px');
      await page.context().close();
    });
  });
}
