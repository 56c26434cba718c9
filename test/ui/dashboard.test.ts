/**
 * The compliance dashboard end to end, in headless Chromium against a real hub (PGlite) whose
 * delivery worker posts webhooks to a real receiver on 127.0.0.1: a MAIN transaction arrives in
 * the beneficiary's inbox, the originator confirms it, the beneficiary reads the personal data
 * and declines, the originator sees why, a failed webhook is redelivered, a read-only key sees
 * everything and is offered nothing it may not do, the operator verifies an organization and
 * manages named operators. Screenshots of each main page go to docs/screenshots/.
 * The steps share one hub and run in order.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type OrgFixture, startHub, type TestHub } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { mainRequest, notifyRequest } from '../support/requests.js';
import {
  assertNoKeyLeaked,
  axe,
  browserProblem,
  cspViolations,
  DESKTOP,
  launchChromium,
  newPage,
  overflowOf,
  prepareBrowserSuite,
  shot,
  signIn,
} from './browser.js';
import { member } from './members.js';

/** A larger phone than the other suites' PHONE: the one docs/screenshots/phone-*.png show. */
const PHONE = { width: 390, height: 844 };
/** The only buttons a read-only session may see: none of them changes anything at the hub. */
const READ_ONLY_BUTTONS = new Set([
  'Skip to content',
  'Times in UTC',
  'Sign out',
  'Clear filters',
  'Load more',
  'Download CSV',
  'Show personal data',
  'Hide personal data',
]);
const skip = browserProblem();

describe('compliance dashboard in Chromium', { skip: skip ?? false, timeout: 240_000 }, () => {
  let hub: TestHub;
  let browser: Browser;
  let receiver: Receiver;
  let alpha: OrgFixture; // originator
  let beta: OrgFixture; // beneficiary
  let gamma: OrgFixture; // waiting to be verified
  let ref: string;
  let alphaPage: Page;
  let betaPage: Page;
  const requested: string[] = [];
  const consoleErrors: string[] = [];
  const keysSeen: string[] = [];
  const watched = { requested, consoleErrors };

  before(async () => {
    prepareBrowserSuite();
    [hub, browser, receiver] = await Promise.all([startHub('pglite'), launchChromium(), Receiver.start()]);
    alpha = await hub.createOrg(member('Alpha Exchange', receiver.url));
    beta = await hub.createOrg(member('Beta Custody', receiver.url));
    gamma = await hub.createOrg({ name: 'Gamma Markets', vaspDid: 'did:web:gamma-markets.example' });
    keysSeen.push(alpha.apiKey, beta.apiKey, gamma.apiKey, hub.adminKey);
  });

  after(async () => {
    await browser?.close();
    await receiver?.close();
    await hub?.destroy();
  });

  /** A fresh browser context (its own session storage), signed in with `key`. */
  const signedIn = async (key: string, viewport = DESKTOP, frozenClock = false) =>
    signIn(await newPage(browser, watched, { viewport, frozenClock, acceptDialogs: true }), hub.url, key);

  const statusOf = async (key: string, transactionRef: string) =>
    (await hub.request('GET', `/v1/transactions/${transactionRef}`, { key })).body.status;
  /** Buttons on the page that a read-only session should not see. */
  const writeButtons = async (page: Page) =>
    (await page.getByRole('button').allTextContents())
      .map((t) => t.trim())
      .filter((t) => !READ_ONLY_BUTTONS.has(t));
  /** An operator's row, by the name in its first cell (others may name it as their creator). */
  const operatorRow = (page: Page, name: string) =>
    page
      .getByRole('row')
      .filter({ has: page.locator('td[data-label="Name"]').getByText(name, { exact: true }) });

  it('shows the sign-in page and refuses an unknown key', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB' });
    const page = await context.newPage();
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(`${hub.url}/ui`);
    await page.getByRole('heading', { name: 'Compliance dashboard' }).waitFor();
    await shot(page, 'sign-in');
    await page.getByText('Sign in with an API key').click();
    await page.getByLabel('API key').fill(`trh_${'x'.repeat(43)}`);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await page
      .getByRole('alert')
      .getByText(/unknown or has been revoked/)
      .waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await context.close();
  });

  it('signs in and sees a MAIN transaction arrive in the beneficiary’s inbox', async () => {
    betaPage = await signedIn(beta.apiKey);
    await betaPage.getByRole('heading', { name: 'Inbox' }).waitFor();
    await betaPage.getByText('No transactions yet').waitFor();
    assert.equal(await betaPage.evaluate(() => sessionStorage.length), 1, 'the key is in session storage');

    // An earlier, already notified transaction and a NOTIFY one, so the pages have some history.
    const res = await hub.request('POST', '/v1/transactions/initiate', {
      key: alpha.apiKey,
      body: mainRequest(beta.vaspDid, 'Muster'),
    });
    assert.equal(res.status, 200, res.text);
    ref = res.body.transactionRef;
    await hub.request('POST', '/v1/transactions/initiate', {
      key: alpha.apiKey,
      body: notifyRequest('5b0e7c3e-6c1e-4a55-9a57-0f4c1d2e3f40'),
    });

    // Live refresh: the row appears without a reload, and moves on once `received` is acknowledged.
    const row = betaPage
      .getByRole('row')
      .filter({ has: betaPage.getByRole('link', { name: `Transaction ${ref}` }) });
    await row.waitFor({ timeout: 15_000 });
    await receiver.waitFor((r) => r.to('/beta/v1/notify/received').length > 0, 10_000, 'received webhook');
    await row.getByText('Receiver notified').waitFor({ timeout: 15_000 });
    assert.match((await row.textContent()) ?? '', /Alpha Exchange/);
    await shot(betaPage, 'inbox');
  });

  it('lets the originator confirm it from its outbox, offering no beneficiary action', async () => {
    alphaPage = await signedIn(alpha.apiKey);
    await alphaPage.getByRole('link', { name: 'Outbox' }).click();
    await alphaPage.getByRole('heading', { name: 'Outbox' }).waitFor();
    await alphaPage.getByRole('link', { name: `Transaction ${ref}` }).click();
    await alphaPage.getByRole('heading', { name: /MAIN transaction/ }).waitFor();
    await alphaPage.getByText('You are the originator.').waitFor();
    assert.equal(await alphaPage.getByRole('button', { name: 'Decline transaction' }).count(), 0);
    await alphaPage.getByRole('button', { name: 'Confirm transaction' }).click();
    // Confirm sends personal data: a dialog says so first (test/ui/reviews.test.ts drives it by keyboard).
    await alphaPage
      .getByRole('dialog', { name: 'Send the personal data?' })
      .getByRole('button', { name: 'Yes, confirm and send' })
      .click();
    await alphaPage
      .getByRole('status')
      .getByText(/Confirmed\./)
      .waitFor();
    await alphaPage.getByRole('button', { name: 'Confirm transaction' }).waitFor({ state: 'detached' });
    assert.equal(await statusOf(alpha.apiKey, ref), 'CONFIRMED');
  });

  it('lets the beneficiary read the personal data and decline with a category', async () => {
    await betaPage.getByRole('link', { name: `Transaction ${ref}` }).click();
    await betaPage.getByText('You are the beneficiary.').waitFor();
    await betaPage.getByRole('button', { name: 'Show personal data' }).click();
    const originator = betaPage.getByRole('region', { name: 'Originator personal data' });
    await originator.getByRole('heading', { name: /Erika Muster/ }).waitFor();
    await originator.getByText('Heidestrasse 17').waitFor();
    await originator.getByText('Germany (DE)').first().waitFor();
    await originator.getByText('C01X00T47').waitFor();
    const audited = await hub.db.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE action = 'transaction.pii_read' AND subject_id = $1",
      [ref],
    );
    assert.equal(audited[0]!.n, 1, 'the read is in the audit trail');

    // The declined webhook to the originator will fail every attempt (one try plus three retries).
    receiver.script('/alpha/v1/notify/declined', 500, 500, 500, 500);
    const decline = betaPage.getByRole('button', { name: 'Decline transaction' });
    assert.equal(await decline.isDisabled(), true, 'a category and a description are required');
    await betaPage.getByLabel('Reason').selectOption('SANCTIONS_MATCH');
    await betaPage.getByLabel('Description').fill('Beneficiary name matches a sanctions list entry.');
    await shot(betaPage, 'transaction-beneficiary');
    await decline.click();
    // Declining is final: the form asks once more, and the question takes the focus.
    await betaPage.waitForFunction(() => document.activeElement?.id === 'decline-question');
    await betaPage.getByRole('button', { name: 'Yes, decline the transfer' }).click();
    await betaPage.getByRole('note', { name: 'Decline reason' }).waitFor();
    assert.equal(await statusOf(beta.apiKey, ref), 'DECLINED');
  });

  it('shows the originator DECLINED and the reason, with no action left', async () => {
    const reason = alphaPage.getByRole('note', { name: 'Decline reason' });
    await reason.waitFor({ timeout: 15_000 }); // by polling, no reload
    assert.match((await reason.textContent()) ?? '', /Sanctions match/);
    assert.match((await reason.textContent()) ?? '', /matches a sanctions list entry/);
    await alphaPage.locator('.page-head').getByText('Declined').waitFor();
    await alphaPage.getByText('The transaction is declined; nothing more can happen to it.').waitFor();
    for (const name of ['Confirm transaction', 'Share hash', 'Decline transaction']) {
      assert.equal(await alphaPage.getByRole('button', { name }).count(), 0, name);
    }
    await shot(alphaPage, 'transaction-originator');
  });

  it('gives a read-only key every view, the personal data included, and no action', async () => {
    // A transaction its originator could confirm now, and (from the decline) a failed webhook.
    const open = await hub.request('POST', '/v1/transactions/initiate', {
      key: alpha.apiKey,
      body: mainRequest(beta.vaspDid, 'Muster'),
    });
    assert.equal(open.status, 200, open.text);
    const openRef = open.body.transactionRef as string;
    await eventually(
      async () => (await statusOf(alpha.apiKey, openRef)) === 'RECEIVER_NOTIFIED',
      'the new transaction to be notified',
    );
    await eventually(async () => {
      const r = await hub.request('GET', '/v1/webhooks/deliveries?status=FAILED', { key: alpha.apiKey });
      return r.body.deliveries.length === 1;
    }, 'the declined webhook to fail');
    const issued = await hub.request('POST', '/v1/organizations/me/api-keys', {
      key: alpha.apiKey,
      body: { scope: 'read' },
    });
    assert.equal(issued.status, 201, issued.text);
    keysSeen.push(issued.body.apiKey);

    const page = await signedIn(issued.body.apiKey);
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.locator('.who').getByText('read-only key').waitFor();
    await page.getByRole('link', { name: 'Outbox' }).click();
    await page.getByRole('link', { name: `Transaction ${openRef}` }).click();
    await page.getByText('You are the originator.').waitFor();
    await page.getByText(/may only read\. With a full-scope key you could now confirm it/).waitFor();
    assert.deepEqual(await writeButtons(page), [], 'no action on the transaction');
    await page.getByRole('button', { name: 'Show personal data' }).click();
    const originator = page.getByRole('region', { name: 'Originator personal data' });
    await originator.getByRole('heading', { name: /Erika Muster/ }).waitFor();
    await axe(page, 'the read-only transaction');

    await page.getByRole('link', { name: 'Delivery health' }).click();
    await page.getByRole('heading', { name: 'Delivery health' }).waitFor();
    await page
      .getByRole('article', { name: 'declined webhook, failed' })
      .locator('tbody tr')
      .first()
      .waitFor();
    assert.deepEqual(await writeButtons(page), [], 'no redelivery');

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByText(/signed in with a read-only key/).waitFor();
    const own = page.getByRole('row').filter({ hasText: 'active · this session' });
    await own.waitFor();
    assert.match((await own.textContent()) ?? '', /Read only/);
    assert.equal(await page.getByRole('textbox').count(), 0, 'nothing to edit');
    assert.equal(await page.getByRole('combobox').count(), 0, 'no scope to choose');
    assert.deepEqual(await writeButtons(page), [], 'no settings action');
    await axe(page, 'the read-only settings');
    await page.context().close();
  });

  it('redelivers a failed webhook from the delivery health page', async () => {
    await eventually(async () => {
      const r = await hub.request('GET', '/v1/webhooks/deliveries?status=FAILED', { key: alpha.apiKey });
      return r.body.deliveries.length === 1;
    }, 'the declined webhook to fail');
    await alphaPage.getByRole('link', { name: 'Delivery health' }).click();
    // The transaction page it leaves lists the same failed webhook: wait for the new view, or the
    // rows below could be found on the old one just before it goes.
    await alphaPage.getByRole('heading', { name: 'Delivery health' }).waitFor();
    const failed = alphaPage.getByRole('article', { name: 'declined webhook, failed' });
    // The attempts table fills in after the article appears: wait for the fourth row.
    const attempts = failed.locator('tbody tr').filter({ hasText: 'HTTP 500' });
    await attempts.nth(3).waitFor();
    assert.equal(await attempts.count(), 4, 'every attempt');
    await shot(alphaPage, 'delivery-health');
    await failed.getByRole('button', { name: 'Redeliver' }).click();
    await receiver.waitFor(
      (r) => r.to('/alpha/v1/notify/declined').some((x) => x.answered === 200),
      10_000,
      'the redelivered webhook',
    );
    await alphaPage.getByText('No failed webhook to you.').waitFor({ timeout: 15_000 });
    // The outcome is committed after the receiver's answer (results are recorded in batches
    // that wait up to 20 ms for each other), so the receiver can hold it a moment before.
    await eventually(async () => {
      const r = await hub.request('GET', `/v1/webhooks/deliveries?transactionRef=${ref}`, {
        key: alpha.apiKey,
      });
      return r.body.deliveries[0].status === 'DELIVERED';
    }, 'the redelivered webhook to be recorded as DELIVERED');
  });

  it('shows a 409 plainly when the counterparty’s move beat the page', async () => {
    const second = await hub.request('POST', '/v1/transactions/initiate', {
      key: alpha.apiKey,
      body: mainRequest(beta.vaspDid),
    });
    const secondRef = second.body.transactionRef;
    await eventually(
      async () => (await statusOf(alpha.apiKey, secondRef)) === 'RECEIVER_NOTIFIED',
      'the second transaction to be notified',
    );
    // This page's clock stands still, so it does not poll and keeps offering what it loaded.
    const page = await signedIn(alpha.apiKey, DESKTOP, true);
    await page.goto(`${hub.url}/ui/#/tx/${secondRef}`);
    const confirm = page.getByRole('button', { name: 'Confirm transaction' });
    await confirm.waitFor();
    const elsewhere = await hub.request('POST', '/v1/transactions/confirm', {
      key: alpha.apiKey,
      body: { transactionRef: secondRef },
    });
    assert.equal(elsewhere.status, 200, elsewhere.text);
    await confirm.click();
    await page.getByRole('button', { name: 'Yes, confirm and send' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Not possible now:' });
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /CONFIRMED/);
    await confirm.waitFor({ state: 'detached' }); // the page reloaded the current state
    await page.context().close();
  });

  it('manages the organization’s settings: test event, secret rotation, keys', async () => {
    await betaPage.getByRole('link', { name: 'Settings' }).click();
    await betaPage.getByRole('heading', { name: 'Settings' }).waitFor();
    assert.equal(await betaPage.getByLabel('Travel endpoint').inputValue(), `${receiver.url}/beta`);

    await betaPage.getByRole('button', { name: 'Send test event' }).click();
    await betaPage.getByText('Delivered.').waitFor();
    assert.equal(receiver.to('/beta/v1/notify/ping').length, 1);

    await betaPage.getByRole('button', { name: 'Create API key' }).click();
    const created = await betaPage.getByLabel('New API key').inputValue();
    assert.match(created, /^trh_/);
    keysSeen.push(created);
    assert.equal((await hub.request('GET', '/v1/organizations/me', { key: created })).status, 200);
    const revoke = betaPage.getByRole('button', { name: /^Revoke key/ });
    await revoke.first().waitFor(); // the list reloads once the key is created
    assert.equal(await revoke.count(), 1, 'not the key in use');

    await betaPage.getByRole('button', { name: 'Rotate secret' }).click();
    await betaPage.getByRole('button', { name: 'Yes, rotate' }).click();
    assert.match(await betaPage.getByLabel('New webhook secret').inputValue(), /^whsec_/);
    await axe(betaPage, 'the settings');

    await betaPage.getByRole('button', { name: /^Revoke key/ }).click();
    await betaPage.getByText(/^revoked/).waitFor();
    assert.equal((await hub.request('GET', '/v1/organizations/me', { key: created })).status, 401);

    await betaPage.getByLabel('Public key (PEM)').fill('not a key');
    await betaPage.getByRole('button', { name: 'Save' }).click();
    await betaPage.locator('#public-key-error').waitFor();
    assert.equal(await betaPage.getByLabel('Public key (PEM)').getAttribute('aria-invalid'), 'true');
  });

  it('saves the contact address, with the hub’s problems shown at the field, and issues a read-only key', async () => {
    await betaPage.reload(); // a fresh form: the previous test left a bad public key in it
    await betaPage.getByRole('heading', { name: 'Settings' }).waitFor();
    const contact = betaPage.getByLabel('Contact e-mail');
    await contact.fill('compliance at beta');
    await betaPage.getByRole('button', { name: 'Save' }).click();
    await betaPage.locator('#contact-email-error').waitFor();
    assert.equal(await contact.getAttribute('aria-invalid'), 'true');

    // With a contact address, a new public key is e-mailed there (an "Endpoint changed" notice).
    const pem = generateKeyPairSync('x25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await contact.fill('compliance@beta-custody.example');
    await betaPage.getByLabel('Public key (PEM)').fill(pem);
    await betaPage.getByRole('button', { name: 'Save' }).click();
    await betaPage.getByRole('status').getByText('Settings saved.').waitFor();
    assert.equal(await betaPage.locator('#contact-email-error').count(), 0);
    assert.equal(await contact.getAttribute('aria-invalid'), null);
    const me = await hub.request('GET', '/v1/organizations/me', { key: beta.apiKey });
    assert.equal(me.body.contactEmail, 'compliance@beta-custody.example');
    assert.equal(me.body.organizationType, 'verified', 'only a new name costs the badge');

    await betaPage.getByLabel('Scope of the new key').selectOption('read');
    await betaPage.getByRole('button', { name: 'Create API key' }).click();
    const created = await betaPage.getByLabel('New API key').inputValue();
    keysSeen.push(created);
    const row = betaPage.getByRole('row').filter({ hasText: created.slice(0, 12) });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Read only/);
    assert.equal((await hub.request('GET', '/v1/organizations/me', { key: created })).status, 200);
    const write = await hub.request('POST', '/v1/organizations/me/test-event', { key: created });
    assert.equal(write.status, 403, 'the hub holds the key to its scope');
    await shot(betaPage, 'settings');
  });

  it('lets the operator see the hub’s counters and verify an organization', async () => {
    const op = await signedIn(hub.adminKey);
    await op.getByRole('heading', { name: 'Hub overview' }).waitFor();
    const declined = op.locator('.counter').filter({ hasText: 'Declined' });
    assert.equal(((await declined.locator('.counter-value').textContent()) ?? '').trim(), '1');
    await shot(op, 'operator-overview');

    await op.getByRole('link', { name: 'Organizations' }).click();
    await op.getByRole('button', { name: 'Verify Gamma Markets' }).click();
    // Verifying vouches for the name to every member: a dialog asks first.
    await op
      .getByRole('dialog', { name: 'Verify Gamma Markets?' })
      .getByRole('button', { name: 'Yes, verify' })
      .click();
    await op.getByRole('button', { name: 'Unverify Gamma Markets' }).waitFor();
    const entry = await hub.admin('GET', `/v1/admin/organizations/${gamma.id}`);
    assert.equal(entry.body.organizationType, 'verified');
    await shot(op, 'operator-organizations');

    // One organization: its contact address, and a read-only key issued for it.
    await op.getByRole('link', { name: 'Gamma Markets' }).click();
    await op.getByRole('heading', { name: 'Gamma Markets' }).waitFor();
    await op.getByLabel('Contact e-mail').fill('kyc@gamma-markets.example');
    await op.getByRole('button', { name: 'Save changes' }).click();
    await op.getByRole('status').getByText('Saved.').waitFor();
    await op.getByLabel('Scope of the new key').selectOption('read');
    await op.getByRole('button', { name: 'Issue API key' }).click();
    const issued = await op.getByLabel('New API key').inputValue();
    keysSeen.push(issued);
    await op
      .getByRole('row')
      .filter({ hasText: issued.slice(0, 12) })
      .getByText('Read only')
      .waitFor();
    const gammaNow = await hub.admin('GET', `/v1/admin/organizations/${gamma.id}`);
    assert.equal(gammaNow.body.contactEmail, 'kyc@gamma-markets.example');
    assert.equal((await hub.request('POST', '/v1/organizations/me/test-event', { key: issued })).status, 403);
    await axe(op, 'the organization page');

    await op.getByRole('link', { name: 'E-mails' }).click();
    await op.getByRole('heading', { name: 'E-mails' }).waitFor();
    const announcement = op.getByRole('row').filter({ hasText: 'compliance@unlisted-exchange.example' });
    await announcement.getByText('Announcement').waitFor();
    const notice = op.getByRole('row').filter({ hasText: 'compliance@beta-custody.example' });
    await notice.getByText('Endpoint changed').waitFor();
    await op.getByText(/No SMTP server is configured/).waitFor();
    await shot(op, 'operator-emails');
    // An e-mail whose retries ran out (this hub has no SMTP server, so it is marked so here).
    await hub.db.query(
      "UPDATE deliveries SET status = 'FAILED' WHERE channel = 'email' AND event = 'notify'",
    );
    await announcement.getByRole('button', { name: 'Redeliver' }).click({ timeout: 15_000 });
    await eventually(async () => {
      const r = await hub.admin('GET', '/v1/admin/emails');
      return r.body.emails.every((m: { status: string }) => m.status === 'PENDING');
    }, 'the e-mail queued again');

    await op.getByRole('button', { name: 'Sign out' }).click();
    await op.getByRole('heading', { name: 'Compliance dashboard' }).waitFor();
    assert.equal(await op.evaluate(() => sessionStorage.length), 0, 'signing out forgets the key');
  });

  it('lets the operator create named operators, who sign in as themselves, and revoke them', async () => {
    const op = await signedIn(hub.adminKey);
    await op.locator('.who').getByText('Hub operator · bootstrap key').waitFor();
    await op.getByRole('link', { name: 'Operators' }).click();
    await op.getByRole('heading', { name: 'Operators' }).waitFor();
    await op.getByText('No named operator yet').waitFor();
    await op.getByLabel('Name').fill('Ana Lima');
    await op.getByRole('button', { name: 'Create operator' }).click();
    const anaKey = await op.getByLabel('New operator key').inputValue();
    assert.equal(
      await op.evaluate(() => document.activeElement?.id),
      'secret-new-operator-key',
      'the key shown once takes the focus',
    );
    assert.match(anaKey, /^trh_op_/);
    keysSeen.push(anaKey);
    const anaRow = operatorRow(op, 'Ana Lima');
    await anaRow.waitFor();
    assert.match((await anaRow.textContent()) ?? '', /bootstrap/, 'created by');
    assert.ok(((await anaRow.textContent()) ?? '').includes(anaKey.slice(0, 15)), 'the key’s prefix');
    await op.getByRole('button', { name: 'Done, it is handed over' }).click();
    assert.equal(await op.getByLabel('New operator key').count(), 0, 'the key is shown once');
    assert.equal(await op.evaluate(() => document.activeElement?.id), 'operator-name');

    // Ana signs in with her key, sees herself, and cannot revoke herself.
    const ana = await signedIn(anaKey);
    await ana.locator('.who').getByText('Hub operator · Ana Lima').waitFor();
    await ana.getByRole('link', { name: 'Operators' }).click();
    const herself = operatorRow(ana, 'Ana Lima');
    await herself.getByText('active · this session').waitFor();
    assert.equal(await herself.getByRole('button').count(), 0, 'no revoking oneself');
    await ana.getByLabel('Name').fill('Ben Okafor');
    await ana.getByRole('button', { name: 'Create operator' }).click();
    const benKey = await ana.getByLabel('New operator key').inputValue();
    keysSeen.push(benKey);
    await ana.getByRole('button', { name: 'Done, it is handed over' }).click();
    const benRow = operatorRow(ana, 'Ben Okafor');
    await benRow.waitFor();
    assert.match((await benRow.textContent()) ?? '', /Ana Lima/, 'created by');
    assert.equal((await hub.request('GET', '/v1/admin/stats', { key: benKey })).status, 200);

    // Revoking asks first.
    const asked: string[] = [];
    ana.on('dialog', (d) => asked.push(d.message()));
    await ana.getByRole('button', { name: 'Revoke operator Ben Okafor' }).click();
    await benRow.getByText(/^revoked/).waitFor();
    assert.match(asked[0] ?? '', /Revoke the operator key of Ben Okafor/);
    assert.equal((await hub.request('GET', '/v1/admin/stats', { key: benKey })).status, 401);
    const audit = await hub.db.query(
      "SELECT actor FROM audit_events WHERE action = 'operator.revoked' ORDER BY id DESC LIMIT 1",
    );
    assert.match(String(audit[0]!.actor), /^operator:[0-9a-f-]{36}:Ana Lima$/, 'the audit names who revoked');
    await shot(ana, 'operator-operators');
    await ana.setViewportSize(PHONE);
    const overflow = await overflowOf(ana);
    assert.ok(overflow <= 0, `the operators page is ${overflow}px wider than a phone`);
    await axe(ana, 'the operators page at phone width');

    // The bootstrap operator revokes Ana; her key stops working.
    await op.reload();
    await op.getByRole('button', { name: 'Revoke operator Ana Lima' }).click();
    await operatorRow(op, 'Ana Lima')
      .getByText(/^revoked/)
      .waitFor();
    assert.equal((await hub.request('GET', '/v1/admin/stats', { key: anaKey })).status, 401);
    await ana.getByRole('link', { name: 'Overview' }).click();
    await ana.getByText('The hub no longer accepts this key; sign in again.').waitFor();
    await ana.context().close();
    await op.context().close();
  });

  it('warns before a verified organization renames itself, and shows it unverified after', async () => {
    const page = await signedIn(gamma.apiKey); // verified by the operator above
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.locator('.page-head').getByText('verified by the operator').waitFor();
    const asked: string[] = [];
    page.on('dialog', (d) => asked.push(d.message()));
    await page.getByLabel('Name', { exact: true }).fill('Gamma Markets Ltd');
    await page.getByText('Renaming makes the organization unverified').waitFor();
    assert.match(
      (await page.getByLabel('Name', { exact: true }).getAttribute('aria-describedby')) ?? '',
      /org-name-hint/,
      'the warning is the field’s description',
    );
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .locator('.note')
      .getByText(/Gamma Markets Ltd is now unverified/)
      .waitFor();
    assert.match(asked[0] ?? '', /becomes unverified until the operator verifies the new name/);
    await page.locator('.page-head').getByText('not verified').waitFor();
    await page
      .locator('.who')
      .getByText(/Gamma Markets Ltd/)
      .waitFor();
    const entry = await hub.admin('GET', `/v1/admin/organizations/${gamma.id}`);
    assert.equal(entry.body.name, 'Gamma Markets Ltd');
    assert.equal(entry.body.organizationType, 'unverified');
    await page.context().close();
  });

  it('ends the session when its key is revoked elsewhere', async () => {
    const extra = await hub.request('POST', '/v1/organizations/me/api-keys', { key: gamma.apiKey });
    keysSeen.push(extra.body.apiKey);
    const page = await signedIn(extra.body.apiKey);
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    const revoke = await hub.request('DELETE', `/v1/organizations/me/api-keys/${extra.body.keyId}`, {
      key: gamma.apiKey,
    });
    assert.equal(revoke.status, 204);
    await page.getByText('The hub no longer accepts this key; sign in again.').waitFor({ timeout: 15_000 });
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await page.context().close();
  });

  it('can be used with the keyboard alone', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${hub.url}/ui/`);
    // The page first asks the hub whether the browser's session cookie is signed in.
    await page.getByLabel('E-mail address').waitFor();
    await page.keyboard.press('Tab');
    const focused = () =>
      page.evaluate(() => document.activeElement?.textContent || document.activeElement?.id);
    // A person's fields come first (the sign-in button is disabled until they are filled), then
    // the API key's disclosure, which opens with Enter.
    for (const expected of ['email', 'password', 'totp', 'Sign in with an API key']) {
      assert.equal(await focused(), expected);
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'api-key');
    await page.keyboard.type(gamma.apiKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    assert.equal(await focused(), 'Inbox', 'the page’s heading takes the focus');
    // The "Needs my action" entries (with their counts) come after the tabs.
    for (const entry of ['Failing', 'To review', 'To confirm']) {
      await page.keyboard.press('Shift+Tab');
      assert.ok((await focused())?.startsWith(entry), `${entry} in the navigation`);
    }
    for (const expected of [
      'People',
      'Settings',
      'Audit trail',
      'IVMS101 check',
      'Counterparties',
      'Delivery health',
      'Rules',
      'Travel addresses',
      'Outbox',
    ]) {
      await page.keyboard.press('Shift+Tab');
      assert.equal(await focused(), expected);
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Outbox' }).waitFor();
    assert.equal(await focused(), 'Outbox', 'the new page’s heading takes the focus');
    // After a reload (the session survives in this tab) focus starts at the top: the skip link
    // comes first, and it leads into the content.
    await page.reload();
    await page.getByRole('heading', { name: 'Outbox' }).waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    await context.close();
  });

  it('works at phone width without sideways scrolling', async () => {
    const phone = await signedIn(beta.apiKey, PHONE);
    await phone.getByRole('link', { name: `Transaction ${ref}` }).waitFor();
    const overflow = await overflowOf(phone);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
    await shot(phone, 'phone-inbox');
    await phone.getByRole('link', { name: `Transaction ${ref}` }).click();
    await phone.getByRole('heading', { name: /MAIN transaction/ }).waitFor();
    const overflowTx = await overflowOf(phone);
    assert.ok(overflowTx <= 0, `the transaction page is ${overflowTx}px wider than the screen`);
    await shot(phone, 'phone-transaction');
  });

  it('serves the page under a strict Content-Security-Policy and loads nothing from elsewhere', async () => {
    const res = await fetch(`${hub.url}/ui/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "object-src 'none'",
      "frame-ancestors 'none'",
    ]) {
      assert.ok(csp.includes(directive), `${directive} in ${csp}`);
    }
    assert.ok(!csp.includes('unsafe'), csp);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const asset = (await res.text()).match(/src="(\/ui\/assets\/[^"]+\.js)"/)?.[1];
    assert.ok(asset);
    const js = await fetch(`${hub.url}${asset}`);
    assert.match(js.headers.get('cache-control') ?? '', /immutable/);

    assert.ok(requested.length > 20);
    const foreign = requested.filter((url) => !url.startsWith(`${hub.url}/`));
    assert.deepEqual(foreign, [], 'every request goes to the hub itself');
    assert.deepEqual(cspViolations(consoleErrors), [], 'no CSP violation');
  });

  it('keeps /docs working under its own policy', async () => {
    const res = await fetch(`${hub.url}/docs/static/index.html`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${hub.url}/docs`);
    await page.getByText('Travel Rule Hub API').first().waitFor();
    assert.deepEqual(cspViolations(errors), []);
    await context.close();
  });

  it('knows the originator by its organization, not its DID, after the operator changes the DID', async () => {
    const delta = await hub.createOrg({
      name: 'Delta Exchange',
      vaspDid: 'did:web:delta-exchange.example',
      travelEndpoint: `${receiver.url}/delta`,
    });
    keysSeen.push(delta.apiKey);
    const res = await hub.request('POST', '/v1/transactions/initiate', {
      key: delta.apiKey,
      body: mainRequest(beta.vaspDid),
    });
    assert.equal(res.status, 200, res.text);
    const deltaRef = res.body.transactionRef as string;
    await eventually(
      async () => (await statusOf(delta.apiKey, deltaRef)) === 'RECEIVER_NOTIFIED',
      'notified',
    );
    const renamed = await hub.admin('PATCH', `/v1/admin/organizations/${delta.id}`, {
      vaspDid: 'did:web:delta-renamed.example',
    });
    assert.equal(renamed.status, 200, renamed.text);
    const page = await signedIn(delta.apiKey);
    await page.goto(`${hub.url}/ui/#/tx/${deltaRef}`);
    await page.getByText('You are the originator.').waitFor();
    await page.getByRole('button', { name: 'Confirm transaction' }).waitFor();
    // A malformed address shows the not-found page with the navigation, never a blank page.
    await page.goto(`${hub.url}/ui/#/tx/%E0%A4%A`);
    await page.reload();
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Outbox' }).waitFor();
    await page.context().close();
  });

  it('shows every failed delivery, past the first hundred, so each can be redelivered', async () => {
    await hub.db.query(
      `INSERT INTO deliveries (id, message_id, channel, event, organization_id, transaction_ref, payload, status, attempts)
       SELECT gen_random_uuid(), 'msg_bulk_' || g, d.channel, d.event, d.organization_id, d.transaction_ref, d.payload,
              'FAILED', 11
         FROM (SELECT * FROM deliveries WHERE organization_id = $1 AND event = 'declined' LIMIT 1) d,
              generate_series(1, 101) g`,
      [alpha.id],
    );
    const [{ n: total }] = (await hub.db.query(
      `SELECT count(*)::int AS n FROM deliveries WHERE organization_id = $1 AND status = 'FAILED'`,
      [alpha.id],
    )) as [{ n: number }];
    assert.ok(total > 100, String(total));
    try {
      const page = await signedIn(alpha.apiKey);
      await page.getByRole('link', { name: 'Delivery health' }).click();
      const failedCounter = page.locator('.counter').filter({ hasText: 'Failed' }).locator('.counter-value');
      await page.getByRole('button', { name: 'Load more' }).waitFor();
      assert.equal(((await failedCounter.textContent()) ?? '').trim(), '100+');
      await page.getByRole('button', { name: 'Load more' }).click();
      // While the page loads, the button reads "Loading…"; it goes once the last page is in.
      await page.getByRole('button', { name: /Load more|Loading/ }).waitFor({ state: 'detached' });
      assert.equal(((await failedCounter.textContent()) ?? '').trim(), String(total));
      assert.equal(await page.getByRole('article', { name: /webhook, failed/ }).count(), total);
      await page.context().close();
    } finally {
      await hub.db.query("DELETE FROM deliveries WHERE message_id LIKE 'msg_bulk_%'");
    }
  });

  it('never puts an API key in a URL or in the logs', () => {
    assertNoKeyLeaked(keysSeen, requested, hub);
  });
});
