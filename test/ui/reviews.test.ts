/**
 * Reviews, "Needs my action" and the confirmation dialog in headless Chromium against a real hub
 * (on PGlite, then on PostgreSQL) with a real webhook receiver: an analyst reviews a received
 * transfer (assigns it to herself, writes a note, clears it); the navigation's counts equal the
 * lists they link to; the originator confirms through the dialog with the keyboard alone (Escape
 * goes back and sends nothing; Tab stays inside; yes sends), at desktop and phone width. axe-core
 * checks every screenshot.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { OrgFixture, TestHub } from '../harness.js';
import { addPerson, PASSWORD } from '../support/people.js';
import { eventually, type Receiver } from '../support/receiver.js';
import { mainRequest } from '../support/requests.js';
import type { SmtpSink } from '../support/smtp.js';
import {
  assertNoKeyLeaked,
  axe,
  browserSuiteSkip,
  cspViolations,
  DESKTOP,
  newPage,
  PHONE,
  shot,
  signIn,
  signInAsPerson,
} from './browser.js';
import { startMembers, stopMembers } from './members.js';

/** Presses Tab until `name`d button has the focus (keyboard only: no click, no scripted focus). */
async function tabTo(page: Page, name: string, limit = 120): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    if (focused === name) return;
  }
  assert.fail(`Tab never reached "${name}"`);
}

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');

for (const backend of ['pglite', 'postgres'] as const) {
  describe(`reviews in the dashboard (Chromium) [${backend}]`, {
    skip: await browserSuiteSkip(backend, 'reviews in the dashboard'),
    timeout: 240_000,
  }, () => {
    let hub: TestHub;
    let browser: Browser;
    let smtp: SmtpSink;
    let receiver: Receiver;
    let rhein: OrgFixture; // the beneficiary that reviews
    let alpha: OrgFixture; // the originator
    let analyst: { id: string; email: string };
    const watched = { requested: [] as string[], consoleErrors: [] as string[] };

    const statusOf = async (ref: string) =>
      (await hub.request('GET', `/v1/transactions/${ref}`, { key: alpha.apiKey })).body.status as string;

    /** A MAIN transfer from Alpha to Rhein that Rhein acknowledged (RECEIVER_NOTIFIED). */
    async function notified(): Promise<string> {
      const sent = await hub.request('POST', '/v1/transactions/initiate', {
        key: alpha.apiKey,
        body: mainRequest(rhein.vaspDid),
      });
      assert.equal(sent.status, 200, sent.text);
      const ref = sent.body.transactionRef as string;
      await eventually(async () => (await statusOf(ref)) === 'RECEIVER_NOTIFIED', 'Rhein to be notified');
      return ref;
    }

    async function confirmed(): Promise<string> {
      const ref = await notified();
      const res = await hub.request('POST', '/v1/transactions/confirm', {
        key: alpha.apiKey,
        body: { transactionRef: ref },
      });
      assert.equal(res.status, 200, res.text);
      return ref;
    }

    before(async () => {
      ({ hub, browser, smtp, receiver, rhein, alpha } = await startMembers(backend));
      analyst = await addPerson(hub, smtp, { key: rhein.apiKey }, 'analyst', {
        email: 'ann@rhein-bank.example',
      });
    });

    after(async () => {
      assert.deepEqual(cspViolations(watched.consoleErrors), []);
      assertNoKeyLeaked([rhein.apiKey, alpha.apiKey, PASSWORD], watched.requested, hub);
      await stopMembers({ hub, browser, smtp, receiver });
    });

    it('lets an analyst review a received transfer: assign, note, clear', async () => {
      const ref = await confirmed();
      const page = await signInAsPerson(await newPage(browser, watched), hub.url, {
        email: analyst.email,
        password: PASSWORD,
      });
      await page.goto(`${hub.url}/ui/#/tx/${ref}`);
      const panel = page.getByRole('region', { name: 'Your review' });
      await panel.locator('.badge').getByText('Open', { exact: true }).waitFor();
      await panel.getByLabel('State').selectOption('in_review');
      await panel.getByLabel('Assigned to').selectOption(analyst.id);
      await panel
        .getByLabel('Add a note (optional)')
        .fill('Name screened against the sanctions list: no match.');
      await panel.getByRole('button', { name: 'Save review' }).click();
      await panel.getByText('Name screened against the sanctions list: no match.').waitFor();
      await panel.locator('.badge').getByText('In review', { exact: true }).waitFor();
      await shot(page, 'review-panel');

      await panel.getByLabel('State').selectOption('cleared');
      await panel.getByRole('button', { name: 'Save review' }).click();
      await page.getByRole('status').getByText('Review saved: Cleared.').waitFor();
      const read = await hub.request('GET', `/v1/transactions/${ref}`, { key: rhein.apiKey });
      assert.equal(read.body.review.state, 'cleared');
      assert.deepEqual(read.body.review.assignee, { id: analyst.id, name: 'Person analyst' });
      assert.equal(read.body.review.notes.length, 1);
      const theirs = await hub.request('GET', `/v1/transactions/${ref}`, { key: alpha.apiKey });
      assert.equal(theirs.body.review.state, 'open', 'the originator never sees Rhein’s review');
      await page.context().close();
    });

    it('counts what needs action in the navigation, each count the length of the list it opens', async () => {
      await notified();
      await confirmed(); // for Rhein to review
      const counts = async (key: string) => (await hub.request('GET', '/v1/queue', { key })).body;
      for (const [org, entry, field] of [
        [alpha, 'To confirm', 'toConfirm'],
        [rhein, 'To review', 'toReview'],
      ] as const) {
        const expected = (await counts(org.apiKey))[field] as number;
        assert.ok(expected > 0, `${entry} has something`);
        const page = await signIn(await newPage(browser, watched), hub.url, org.apiKey);
        const queue = page.getByRole('list', { name: 'Needs my action' });
        const link = queue.getByRole('link', { name: new RegExp(`^${entry}`) });
        await link.getByText(String(expected), { exact: true }).waitFor();
        await link.click();
        await page.getByRole('heading', { name: 'Needs my action' }).waitFor();
        const rows = page
          .getByRole('region', { name: 'Needs my action transactions (table)' })
          .locator('tbody tr');
        await eventually(async () => (await rows.count()) === expected, `${entry}: ${expected} rows`);
        assert.match(
          page.url(),
          new RegExp(`#/queue\\?needs=${field === 'toConfirm' ? 'confirm' : 'review'}$`),
        );
        if (field === 'toReview') await shot(page, 'queue-to-review');
        await page.context().close();
      }
      // At phone width the counts stay in the navigation.
      const phone = await signIn(await newPage(browser, watched, { viewport: PHONE }), hub.url, alpha.apiKey);
      await phone
        .getByRole('list', { name: 'Needs my action' })
        .getByRole('link', { name: /^To confirm/ })
        .click();
      await phone.getByRole('heading', { name: 'Needs my action' }).waitFor();
      await shot(phone, 'queue-phone');
      await phone.context().close();
    });

    for (const [width, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      it(`asks before Confirm sends the personal data, in a dialog driven by the keyboard alone (${width})`, async () => {
        const ref = await notified();
        const page = await signIn(await newPage(browser, watched, { viewport }), hub.url, alpha.apiKey);
        await page.goto(`${hub.url}/ui/#/tx/${ref}`);
        await page.getByRole('button', { name: 'Confirm transaction…' }).waitFor();
        await tabTo(page, 'Confirm transaction…');
        await page.keyboard.press('Enter');
        const dialog = page.getByRole('dialog', { name: 'Send the personal data?' });
        await dialog.waitFor();
        assert.equal(await focusedText(page), 'Go back', 'the safe choice has the focus');
        await dialog.getByText(/sends your customer’s personal data/).waitFor();
        await shot(page, `confirm-dialog-${width}`);

        // Escape goes back: nothing is sent, the focus returns to the button.
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });
        await eventually(async () => (await focusedText(page)) === 'Confirm transaction…', 'focus back');
        assert.equal(await statusOf(ref), 'RECEIVER_NOTIFIED');

        // Tab stays inside the dialog; Enter on the yes sends.
        await page.keyboard.press('Enter');
        await dialog.waitFor();
        await page.keyboard.press('Tab');
        assert.equal(await focusedText(page), 'Yes, confirm and send');
        await page.keyboard.press('Tab');
        assert.equal(await focusedText(page), 'Go back', 'Tab wraps inside the dialog');
        await page.keyboard.press('Shift+Tab');
        assert.equal(await focusedText(page), 'Yes, confirm and send');
        await page.keyboard.press('Enter');
        await page
          .getByRole('status')
          .getByText(/Confirmed\./)
          .waitFor();
        assert.equal(await statusOf(ref), 'CONFIRMED');
        await axe(page, `the confirmed transaction (${width})`);
        await page.context().close();
      });
    }
  });
}
