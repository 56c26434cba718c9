/**
 * The dashboard's part of the lifecycle and the NOTIFY sunrise path (SPEC §11, §12, §17), in
 * headless Chromium against a real hub (PGlite) that sends its e-mails to a real SMTP server and
 * its webhooks to real receivers: the claim page opened from the link in the captured e-mail, at
 * phone and desktop width (join, and attach with a member's key); the operator's applications
 * page (reject, approve) with its badge; the credentials page (shown once, only when asked);
 * cancelling from the transaction page; the delivery summary, the "Delivery failing" filter and
 * delivery health. axe-core checks every new page. The steps share one hub and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page, Request } from 'playwright-core';
import { type OrgFixture, startHub, type TestHub } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { mainRequest, notifyRequest } from '../support/requests.js';
import { decodeBody, SmtpSink } from '../support/smtp.js';
import {
  assertNoKeyLeaked,
  axe,
  browserProblem,
  cspViolations,
  DESKTOP,
  focusedId,
  launchChromium,
  newPage as openPage,
  overflowOf,
  PHONE,
  prepareBrowserSuite,
  shot,
  signIn,
} from './browser.js';
import { member } from './members.js';

/** The address in the hub's e-mailed links; the pages are opened on the test hub's own address. */
const PUBLIC_URL = 'https://hub.example';
const skip = browserProblem();

describe('sunrise and lifecycle in the dashboard (Chromium)', {
  skip: skip ?? false,
  timeout: 240_000,
}, () => {
  let hub: TestHub;
  let browser: Browser;
  let smtp: SmtpSink;
  let receiver: Receiver; // alpha's and kappa's endpoints, answering 200
  let down: Receiver; // omega's endpoint, answering 503 to everything
  let alpha: OrgFixture; // originator
  let kappa: OrgFixture; // a member that claims a NOTIFY transfer with its key
  let omega: OrgFixture; // a member whose endpoint is down
  let joinedRef: string; // the NOTIFY transfer the newcomer applied for
  const requested: string[] = [];
  /** Requests to /v1 that carried an x-api-key header, from the public pages. */
  const keyed: string[] = [];
  const consoleErrors: string[] = [];
  const keysSeen: string[] = [];
  const watched = { requested, consoleErrors };

  before(async () => {
    prepareBrowserSuite();
    smtp = await SmtpSink.start();
    [hub, browser, receiver, down] = await Promise.all([
      startHub('pglite', {
        SMTP_URL: smtp.url,
        HUB_PUBLIC_URL: PUBLIC_URL,
        // Two quick retries, then a long wait: a failing message stays "retrying" with a next attempt.
        HUB_RETRY_SCHEDULE: '200ms,200ms,1h',
      }),
      launchChromium(),
      Receiver.start(),
      Receiver.start(),
    ]);
    down.otherwise(503);
    alpha = await hub.createOrg(member('Alpha Exchange', receiver.url));
    kappa = await hub.createOrg(member('Kappa Bank', receiver.url));
    omega = await hub.createOrg(member('Omega Wallets', down.url));
    keysSeen.push(alpha.apiKey, kappa.apiKey, omega.apiKey, hub.adminKey);
  });

  after(async () => {
    await browser?.close();
    await receiver?.close();
    await down?.close();
    await hub?.destroy();
    await smtp?.close();
  });

  /** Records in `keyed` a call to /v1 with a key, but for the attach one (which sends the member's). */
  const keyedUnasked = (r: Request) => {
    const attach = r.url().endsWith('/attach');
    if (!attach && r.url().includes('/v1/') && r.headers()['x-api-key'] !== undefined) keyed.push(r.url());
  };
  /**
   * A fresh browser context (its own storage) and page, watched for requests and errors. On a
   * public page (`linkPage`), every call to the hub but the attach one must go without a key.
   */
  const newPage = (viewport = DESKTOP, linkPage = false) =>
    openPage(browser, watched, {
      viewport,
      acceptDialogs: true,
      onRequest: linkPage ? keyedUnasked : undefined,
    });

  const signedIn = async (key: string, viewport = DESKTOP) => signIn(await newPage(viewport), hub.url, key);

  /** Waits until the element with `id` has the focus (views move it after rendering). */
  const focusMovesTo = async (page: Page, id: string, why: string) => {
    try {
      await page.waitForFunction((want) => document.activeElement?.id === want, id, { timeout: 5000 });
    } catch {
      assert.equal(await focusedId(page), id, why);
    }
  };
  const stored = (page: Page) => page.evaluate(() => sessionStorage.length + localStorage.length);
  const tx = async (key: string, ref: string) =>
    (await hub.request('GET', `/v1/transactions/${ref}`, { key })).body;

  /** Alpha announces a NOTIFY transfer to `email`. */
  async function notify(email: string): Promise<string> {
    const body = notifyRequest('5b0e7c3e-6c1e-4a55-9a57-0f4c1d2e3f40');
    body.notificationEmail = email;
    const res = await hub.request('POST', '/v1/transactions/initiate', { key: alpha.apiKey, body });
    assert.equal(res.status, 200, res.text);
    return res.body.transactionRef as string;
  }

  /** The token of the `path` link in the e-mail to `to`, as the recipient's mail client shows it. */
  async function linkIn(to: string, path: 'claim' | 'credentials'): Promise<string> {
    const has = (raw: string) => raw.includes(`/${path}/`);
    await smtp.waitFor((s) => s.messages.some((m) => m.to.includes(to) && has(m.raw)));
    const mail = smtp.messages.find((m) => m.to.includes(to) && has(m.raw))!;
    const text = decodeBody(mail.raw);
    const match = new RegExp(`${PUBLIC_URL.replaceAll('.', '\\.')}/${path}/([A-Za-z0-9_-]{43})`).exec(text);
    assert.ok(match, `no ${path} link in:\n${text}`);
    return match[1]!;
  }

  /** An application through a claim link, by HTTP (the page's own path is tested on its own). */
  async function applyByHttp(email: string, name: string, did: string, contactEmail: string) {
    await notify(email);
    const token = await linkIn(email, 'claim');
    const res = await hub.request('POST', `/v1/claims/${token}/application`, {
      body: { name, vaspDid: did, contactEmail },
    });
    assert.equal(res.status, 201, res.text);
  }

  it('shows the announcement at phone width and takes an application, with the hub’s problems at the fields', async () => {
    const email = 'compliance@newcomer.example';
    joinedRef = await notify(email);
    const token = await linkIn(email, 'claim');

    const page = await newPage(PHONE, true);
    await page.goto(`${hub.url}/claim/${token}`);
    await page.getByRole('heading', { name: 'Travel rule data is waiting for you' }).waitFor();
    const facts = page.getByRole('region', { name: 'The transfer' });
    await facts.getByText('Alpha Exchange').waitFor();
    const text = (await facts.textContent()) ?? '';
    for (const expected of ['99.99', 'TRX-USDT', 'TXYZ1234567890abcdefghijkLMNOPQRS', joinedRef]) {
      assert.ok(text.includes(expected), `${expected} in ${text}`);
    }
    assert.equal(await page.title(), 'Claim a transfer · Travel Rule Hub');
    assert.ok((await overflowOf(page)) <= 0, 'no sideways scrolling at 375 px');
    await shot(page, 'claim-phone');

    // The schema's problem first (a DID), then the directory's (an e-mail address), each at its field.
    await page.getByLabel('Name of your exchange').fill('Newcomer Exchange');
    await page.getByLabel('DID').fill('not-a-did');
    await page.getByLabel('Contact e-mail').fill('nope');
    await page.getByRole('button', { name: 'Send application' }).click();
    await page.locator('#join-vaspDid-error').waitFor();
    assert.equal(await page.getByLabel('DID').getAttribute('aria-invalid'), 'true');
    await focusMovesTo(page, 'join-vaspDid', 'the first field at fault takes the focus');
    await page
      .getByRole('alert')
      .getByText(/could not accept the application/)
      .waitFor();
    await axe(page, 'the claim page with field problems');

    await page.getByLabel('DID').fill('did:web:newcomer.example');
    await page.getByRole('button', { name: 'Send application' }).click();
    await page.locator('#join-contactEmail-error').waitFor();
    assert.equal(await page.locator('#join-vaspDid-error').count(), 0);
    await focusMovesTo(page, 'join-contactEmail', 'the field at fault takes the focus');

    await page.getByLabel('Contact e-mail').fill('ops@newcomer.example');
    await page.getByLabel('Travel endpoint (optional)').fill(`${receiver.url}/newcomer`);
    await page.getByRole('button', { name: 'Send application' }).click();
    await page.getByRole('heading', { name: 'Application sent' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1'); // the result takes the focus
    await page.getByText(/operator reviews the application/).waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', /ops@newcomer\.example/);
    assert.ok((await overflowOf(page)) <= 0);
    await axe(page, 'the claim page after applying');

    const waiting = await hub.admin('GET', '/v1/admin/applications?status=pending');
    const application = waiting.body.applications.find(
      (a: { name: string }) => a.name === 'Newcomer Exchange',
    );
    assert.ok(application);
    assert.equal(application.vaspDid, 'did:web:newcomer.example');
    assert.equal(application.notificationEmail, email);
    assert.equal(application.travelEndpoint, `${receiver.url}/newcomer`);

    // Reopened, the link shows the application waiting, without what the applicant typed.
    await page.reload();
    await page.getByRole('heading', { name: 'Your application is waiting for review' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send application' }).count(), 0);
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /ops@newcomer\.example/);
    await axe(page, 'the claim page of a pending application');
    assert.equal(await stored(page), 0, 'nothing in the browser’s storage');
    await page.context().close();
  });

  it('lets a member claim a transfer with its API key at desktop width, by keyboard, keeping no copy', async () => {
    const email = 'desk@kappa-bank.example';
    const ref = await notify(email);
    const token = await linkIn(email, 'claim');
    await eventually(async () => (await tx(alpha.apiKey, ref)).status === 'RECEIVER_NOTIFIED', 'notified');

    const page = await newPage(DESKTOP, true);
    await page.goto(`${hub.url}/claim/${token}`);
    await page.getByRole('heading', { name: 'Already a member' }).waitFor();
    await shot(page, 'claim-desktop');

    // From the top of the page, with Tab alone, to the key field.
    let presses = 0;
    while ((await focusedId(page)) !== 'member-key') {
      await page.keyboard.press('Tab');
      assert.ok(++presses < 20, 'the key field is reachable with Tab');
    }
    await page.keyboard.type(`trh_${'x'.repeat(43)}`);
    await page.keyboard.press('Enter');
    await page
      .locator('#member-key-error')
      .getByText(/does not accept this key/)
      .waitFor();
    await focusMovesTo(page, 'member-key', 'the problem is said at the field, which keeps the focus');
    assert.equal(await page.getByLabel('API key').getAttribute('aria-invalid'), 'true');

    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(kappa.apiKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'The transfer is yours' }).waitFor();
    const follow = page.getByRole('link', { name: 'Follow it in the compliance dashboard' });
    assert.equal(await follow.getAttribute('href'), `/ui/#/tx/${ref}`);
    await axe(page, 'the claim page after attaching');
    assert.equal(await stored(page), 0, 'the key is not kept in the browser');
    assert.equal(await page.getByLabel('API key').count(), 0, 'nor left in a field');

    const claimed = await tx(kappa.apiKey, ref);
    assert.equal(claimed.beneficiaryVASPid, kappa.id);
    assert.equal(claimed.beneficiaryVASPdid, kappa.vaspDid);
    await receiver.waitFor((r) => r.to('/kappa/v1/notify/received').length > 0, 10_000, 'received to kappa');
    await page.context().close();

    // The originator sees who joined, and may now confirm (the transfer follows MAIN).
    const alphaPage = await signedIn(alpha.apiKey);
    await alphaPage.goto(`${hub.url}/ui/#/tx/${ref}`);
    await alphaPage.getByRole('heading', { name: /NOTIFY transaction/ }).waitFor();
    const timeline = alphaPage.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Beneficiary joined').waitFor();
    await timeline.getByText('Kappa Bank').waitFor();
    await alphaPage.getByRole('button', { name: 'Confirm transaction' }).waitFor();
    await alphaPage.context().close();
  });

  it('lets the operator reject and approve applications, with a badge counting the waiting ones', async () => {
    await applyByHttp('x@shady.example', 'Shady Ltd', 'did:web:shady.example', 'contact@shady.example');
    await applyByHttp('y@later.example', 'Later Exchange', 'did:web:later.example', 'ops@later.example');

    const op = await signedIn(hub.adminKey);
    await op.getByRole('heading', { name: 'Hub overview' }).waitFor();
    await op.getByRole('link', { name: 'Applications (3 waiting)' }).waitFor();
    const counter = op
      .locator('.counter')
      .filter({ hasText: 'Applications waiting' })
      .locator('.counter-value');
    await op.waitForFunction(() =>
      [...document.querySelectorAll('.counter')].some(
        (c) => c.textContent?.includes('Applications waiting') && c.textContent.includes('3'),
      ),
    );
    assert.equal(((await counter.textContent()) ?? '').trim(), '3');
    await axe(op, 'the overview with waiting applications');

    await op.getByRole('link', { name: /^Applications/ }).click();
    await op.getByRole('heading', { name: 'Waiting for review (3)' }).waitFor();
    const shady = op.getByRole('article', { name: 'Shady Ltd' });
    await shady.getByText('x@shady.example').waitFor(); // where the claim link went
    await shady.getByText(/chosen by the originator, Alpha Exchange; not verified/).waitFor();
    await shady.getByText('is the DID’s domain').waitFor();
    await shady.getByText('is the contact’s domain').waitFor();
    await shady.getByRole('button', { name: 'Reject Shady Ltd' }).click();
    await focusMovesTo(
      op,
      `${await shady.locator('h3').getAttribute('id')}-reason`,
      'the reason takes the focus',
    );
    const reject = shady.getByRole('button', { name: 'Reject application' });
    assert.equal(await reject.isDisabled(), true, 'a reason is required');
    await shady.getByLabel('Reason for the rejection').fill('No VASP licence on record.');
    await reject.click();
    const decided = op.getByRole('region', { name: 'Decided applications (table)' });
    const shadyRow = decided.getByRole('row').filter({ hasText: 'Shady Ltd' });
    await shadyRow.getByText('Rejected').waitFor();
    assert.match((await shadyRow.textContent()) ?? '', /bootstrap/);
    assert.match((await shadyRow.textContent()) ?? '', /No VASP licence on record\./);
    await focusMovesTo(op, 'waiting-heading', 'the list’s heading takes the focus');

    const newcomer = op.getByRole('article', { name: 'Newcomer Exchange' });
    await newcomer.getByRole('button', { name: 'Approve Newcomer Exchange' }).click();
    await newcomer.getByText('Approve Newcomer Exchange?').waitFor();
    await newcomer.getByRole('button', { name: 'Yes, approve' }).click();
    const newcomerRow = decided.getByRole('row').filter({ hasText: 'Newcomer Exchange' });
    await newcomerRow.getByText('Approved').waitFor();
    await newcomerRow.getByRole('link', { name: 'Organization Newcomer Exchange' }).waitFor();
    await op.getByRole('heading', { name: 'Waiting for review (1)' }).waitFor();
    await op.getByRole('link', { name: 'Applications (1 waiting)' }).waitFor();
    await op
      .getByRole('status')
      .getByText(/Newcomer Exchange approved/)
      .waitFor();
    await shot(op, 'operator-applications');

    const all = (await hub.admin('GET', '/v1/admin/applications')).body;
    const statusOf = (name: string) =>
      all.applications.find((a: { name: string }) => a.name === name)?.status;
    assert.deepEqual(
      [statusOf('Newcomer Exchange'), statusOf('Shady Ltd'), statusOf('Later Exchange'), all.pending],
      ['approved', 'rejected', 'pending', 1],
    );
    const rejection = (m: { to: string[]; raw: string }) =>
      m.to.includes('contact@shady.example') && /not approved/.test(m.raw);
    await smtp.waitFor((s) => s.messages.some(rejection));
    assert.match(decodeBody(smtp.messages.find(rejection)!.raw), /No VASP licence on record/);

    await op.setViewportSize(PHONE);
    assert.ok((await overflowOf(op)) <= 0, 'the applications page fits a phone');
    await axe(op, 'the applications page at phone width');
    await op.setViewportSize(DESKTOP);

    // The e-mails page names the new kinds.
    await op.getByRole('link', { name: 'E-mails' }).click();
    await op.getByRole('heading', { name: 'E-mails' }).waitFor();
    await op.getByRole('row').filter({ hasText: 'contact@shady.example' }).getByText('Rejection').waitFor();
    // The credentials link goes where the claim link went; the contact hears of it without the link.
    await op
      .getByRole('row')
      .filter({ hasText: 'compliance@newcomer.example' })
      .getByText('Approval', { exact: true })
      .waitFor();
    await op
      .getByRole('row')
      .filter({ hasText: 'ops@newcomer.example' })
      .getByText('Approval notice')
      .waitFor();
    await op
      .getByRole('row')
      .filter({ hasText: 'compliance@newcomer.example' })
      .getByText('Announcement')
      .waitFor();
    await op.context().close();
  });

  it('shows the credentials once, and only when asked', async () => {
    const token = await linkIn('compliance@newcomer.example', 'credentials');
    const page = await newPage(DESKTOP, true);
    await page.goto(`${hub.url}/credentials/${token}`);
    const show = page.getByRole('button', { name: 'Show my credentials' });
    await show.waitFor();
    await page.waitForLoadState('networkidle');
    assert.ok(
      !requested.some((u) => u.includes('/v1/credentials/')),
      'opening the page asks the hub for nothing',
    );
    await axe(page, 'the credentials page before showing');

    await show.click();
    const apiKey = await page.getByLabel('API key').inputValue();
    const secret = await page.getByLabel('Webhook secret').inputValue();
    keysSeen.push(apiKey);
    assert.match(apiKey, /^trh_/);
    assert.match(secret, /^whsec_/);
    await focusMovesTo(page, 'secret-api-key', 'the key takes the focus');
    await page.getByText('Newcomer Exchange').first().waitFor();
    await page.getByRole('button', { name: 'Copy' }).first().waitFor();
    await shot(page, 'credentials');
    const me = await hub.request('GET', '/v1/organizations/me', { key: apiKey });
    assert.equal(me.status, 200);
    assert.equal(me.body.name, 'Newcomer Exchange');
    assert.equal(me.body.organizationType, 'verified');

    await page.getByRole('button', { name: 'Done, I have stored them' }).click();
    assert.equal(await page.getByLabel('API key').count(), 0, 'put away for good');
    await page.getByText(/are no longer shown here/).waitFor();
    assert.equal(await stored(page), 0);
    await page.context().close();

    // Shown once: the same link again says it is not valid.
    const again = await newPage(PHONE, true);
    await again.goto(`${hub.url}/credentials/${token}`);
    await again.getByRole('button', { name: 'Show my credentials' }).click();
    await again.getByText('This link is not valid any more.').waitFor();
    assert.ok((await overflowOf(again)) <= 0);
    await axe(again, 'the credentials page of a used link');
    await again.context().close();

    // The new member finds the transfer it applied for in its inbox.
    const member = await signedIn(apiKey);
    await member.getByRole('link', { name: `Transaction ${joinedRef}` }).waitFor();
    await member.context().close();
  });

  it('cancels a transfer from its page after asking once more, and shows it cancelled to both sides', async () => {
    const initiate = async () => {
      const res = await hub.request('POST', '/v1/transactions/initiate', {
        key: alpha.apiKey,
        body: mainRequest(kappa.vaspDid, 'Muster'),
      });
      assert.equal(res.status, 200, res.text);
      const ref = res.body.transactionRef as string;
      await eventually(async () => (await tx(alpha.apiKey, ref)).status === 'RECEIVER_NOTIFIED', 'notified');
      return ref;
    };
    const ref = await initiate();
    const hashed = await initiate();
    const shared = await hub.request('POST', '/v1/transactions/tx-hash', {
      key: alpha.apiKey,
      body: { transactionRef: hashed, txHash: '0xfeedbeef' },
    });
    assert.equal(shared.status, 200, shared.text);

    const page = await signedIn(alpha.apiKey);
    await page.goto(`${hub.url}/ui/#/tx/${ref}`);
    const start = page.getByRole('button', { name: 'Cancel transfer…' });
    await start.waitFor();
    await page.getByLabel('Reason (optional)').fill('Customer withdrew the order.');
    await start.click();
    await page.getByText('Cancel this transfer for good?').waitFor();
    await focusMovesTo(page, 'cancel-question', 'the question takes the focus');
    await page.getByRole('button', { name: 'Keep the transfer' }).click();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Cancel transfer…');
    assert.equal((await tx(alpha.apiKey, ref)).status, 'RECEIVER_NOTIFIED', 'kept');

    await start.click();
    await page.getByRole('button', { name: 'Yes, cancel the transfer' }).click();
    const final = page.getByRole('note', { name: 'Final state' });
    await final.getByText('You cancelled this transfer').waitFor();
    await page.locator('.page-head').getByText('Cancelled').waitFor();
    await page.getByText('The transaction is cancelled; nothing more can happen to it.').waitFor();
    for (const name of ['Cancel transfer…', 'Confirm transaction', 'Share hash', 'Decline transaction']) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    }
    await page.getByRole('region', { name: 'Timeline' }).getByText('Cancelled').waitFor();
    assert.equal((await tx(alpha.apiKey, ref)).status, 'CANCELLED');
    await shot(page, 'transaction-cancelled');
    await receiver.waitFor((r) => r.to('/kappa/v1/notify/cancelled').length > 0, 10_000, 'cancelled webhook');
    assert.match(receiver.to('/kappa/v1/notify/cancelled')[0]!.body, /Customer withdrew the order/);

    // Once the hash is shared the transfer was broadcast: no cancel, but the other actions stay.
    await page.goto(`${hub.url}/ui/#/tx/${hashed}`);
    await page.getByRole('button', { name: 'Confirm transaction' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Cancel transfer…' }).count(), 0);
    await page.context().close();

    // The beneficiary sees who cancelled it.
    const beneficiary = await signedIn(kappa.apiKey);
    await beneficiary.goto(`${hub.url}/ui/#/tx/${ref}`);
    await beneficiary
      .getByRole('note', { name: 'Final state' })
      .getByText('The originator cancelled this transfer')
      .waitFor();
    await beneficiary.getByText(/Not available to you: the transaction is cancelled/).waitFor();
    await axe(beneficiary, 'a cancelled transaction seen by its beneficiary');
    await beneficiary.context().close();

    // A read-only key is told what a full key could do, and offered no cancel.
    const issued = await hub.request('POST', '/v1/organizations/me/api-keys', {
      key: alpha.apiKey,
      body: { scope: 'read' },
    });
    assert.equal(issued.status, 201, issued.text);
    keysSeen.push(issued.body.apiKey);
    const open = await initiate();
    const reader = await signedIn(issued.body.apiKey);
    await reader.goto(`${hub.url}/ui/#/tx/${open}`);
    await reader.getByText(/could now confirm it or share its transaction hash or cancel it/).waitFor();
    assert.equal(await reader.getByRole('button', { name: 'Cancel transfer…' }).count(), 0);
    await reader.context().close();
  });

  it('shows whether the message reached the counterparty: delivery box, failing filter, delivery health', async () => {
    const page = await signedIn(alpha.apiKey);
    await page.getByRole('link', { name: 'Delivery health' }).click();
    await page.getByRole('heading', { name: 'Delivery health' }).waitFor();
    await page.getByText(/^All is well/).waitFor();

    const res = await hub.request('POST', '/v1/transactions/initiate', {
      key: alpha.apiKey,
      body: mainRequest(omega.vaspDid),
    });
    assert.equal(res.status, 200, res.text);
    const ref = res.body.transactionRef as string;
    await eventually(
      async () => (await tx(alpha.apiKey, ref)).delivery.attempts === 3,
      'three failed attempts',
    );
    const summary = (await tx(alpha.apiKey, ref)).delivery;
    assert.equal(summary.state, 'retrying');
    assert.equal(summary.lastError, 'http-5xx');

    // Delivery health: the transfer is listed, and all is no longer well.
    const failing = page.getByRole('region', {
      name: 'Your transfers not reaching the counterparty (table)',
    });
    await failing.getByRole('link', { name: `Transaction ${ref}` }).waitFor({ timeout: 15_000 });
    assert.match((await failing.textContent()) ?? '', /Omega Wallets/);
    assert.match((await failing.textContent()) ?? '', /server error \(HTTP 5xx\)/);
    assert.equal(await page.getByText(/^All is well/).count(), 0);
    const counter = page
      .locator('.counter')
      .filter({ hasText: 'Your transfers not reaching the counterparty' })
      .locator('.counter-value');
    assert.equal(((await counter.textContent()) ?? '').trim(), '1');
    await axe(page, 'delivery health with a failing transfer');

    // The transaction's Delivery box: state, attempts, error class, next attempt, and nothing more.
    await failing.getByRole('link', { name: `Transaction ${ref}` }).click();
    const box = page.getByRole('region', { name: 'Delivery', exact: true });
    await box.locator('.badge').getByText('Retrying').waitFor();
    const facts = await box.locator('dt').allTextContents();
    assert.deepEqual(facts, ['State', 'Attempts', 'Last error', 'Next attempt']);
    const boxText = (await box.textContent()) ?? '';
    assert.match(boxText, /Attempts3/);
    assert.match(boxText, /The recipient answered with a server error \(HTTP 5xx\)/);
    assert.ok(await box.locator('time').count(), 'the next attempt’s time');
    assert.ok(!boxText.includes(down.url) && !boxText.includes('503'), 'no endpoint and no answer');
    // Each message owed, with its own state.
    const messages = box.getByRole('region', { name: 'Messages owed to the counterparty (table)' });
    const received = messages.getByRole('row').filter({ hasText: 'received webhook' });
    await received.getByRole('cell', { name: 'Retrying' }).waitFor();
    await axe(page, 'a transaction whose delivery is retrying');

    // The outbox marks the row, and its "Delivery failing" filter keeps only such transfers.
    await page.getByRole('link', { name: 'Outbox', exact: true }).click();
    await page.getByRole('heading', { name: 'Outbox' }).waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: `Transaction ${ref}` }) });
    await row.getByText('delivery retrying').waitFor();
    const rows = page.locator('table.list tbody tr');
    await page.getByRole('link', { name: `Transaction ${joinedRef}` }).waitFor();
    assert.ok((await rows.count()) > 1);
    await page.getByLabel('Delivery failing').check();
    await page.getByRole('link', { name: `Transaction ${joinedRef}` }).waitFor({ state: 'detached' });
    await row.waitFor();
    assert.equal(await rows.count(), 1, 'only the failing transfer');
    await page.getByLabel('Status').selectOption('CANCELLED');
    await page.getByText('No transaction matches these filters.').waitFor();
    await axe(page, 'the outbox filtered');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('link', { name: `Transaction ${joinedRef}` }).waitFor();
    await page.context().close();
  });

  it('never sends a key from the public pages unasked, never puts one in a URL or the logs, and keeps the CSP', () => {
    assert.deepEqual(keyed, [], 'the public pages call the hub without a key');
    assertNoKeyLeaked(keysSeen, requested, hub);
    assert.ok(
      requested.every((url) => url.startsWith(`${hub.url}/`)),
      'every request goes to the hub',
    );
    assert.deepEqual(cspViolations(consoleErrors), [], 'no CSP violation');
  });
});
