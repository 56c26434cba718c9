/**
 * The dashboard's side of the TRP bridge (SPEC §16), in headless Chromium against a real hub
 * (PGlite) with its TRP listener on mutual TLS, a member whose travel endpoint is a real receiver,
 * and a TRP VASP outside the hub (test/support/trp-peer.ts) that sends inquiries to the member's travel
 * addresses with a client certificate from the hub's CA and answers the hub at its callback:
 * travel addresses (mint, copy, revoke, expired, Load more), the page's plain states for a hub
 * without the bridge and a member that cannot mint yet, an inbound transfer shown with its peer
 * and approved with an address (also at phone width by keyboard alone), another one declined, an
 * outbound one cancelled with a reason, and a read-only key offered nothing. axe-core checks every
 * new page. The steps share one hub and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TestCa } from '../../scripts/certs.js';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { encodeTravelAddress } from '../../src/trp/travel-address.js';
import { type OrgFixture, startHub, type TestHub } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { basicRequest, type Json, uniqueName } from '../support/requests.js';
import { TrpPeer, trpHub } from '../support/trp-peer.js';
import {
  assertNoKeyLeaked,
  axe,
  browserProblem,
  cspViolations,
  DESKTOP,
  focusedId,
  launchChromium,
  newPage,
  overflowOf,
  PHONE,
  prepareBrowserSuite,
  shot,
  signIn,
} from './browser.js';
import { member } from './members.js';

const PEER = { name: 'Northwind Digital Assets', lei: '5493001KJTIIGC8Y1R12' };
const skip = browserProblem();
/** As the page names an address in its buttons: its start and its distinct end. */
const short = (travelAddress: string) => `${travelAddress.slice(0, 4)}…${travelAddress.slice(-8)}`;

describe('TRP in the dashboard (Chromium)', { skip: skip ?? false, timeout: 300_000 }, () => {
  let ca: TestCa;
  let hub: TestHub;
  let browser: Browser;
  let receiver: Receiver;
  let peer: TrpPeer;
  let kappa: OrgFixture; // a member that receives TRP transfers
  let alpha: OrgFixture; // a member that sends one to the peer
  let sigma: OrgFixture; // a member without a public key: cannot mint
  let address: { id: string; travelAddress: string; url: string }; // kappa's, for the inquiries
  let peerHost: string;
  let otherHubUrl = ''; // the hub without a TRP bridge
  const requested: string[] = [];
  const consoleErrors: string[] = [];
  const keysSeen: string[] = [];
  const watched = { requested, consoleErrors };

  before(async () => {
    prepareBrowserSuite();
    ca = TestCa.create('ui-trp');
    [hub, browser, receiver, peer] = await Promise.all([
      trpHub('pglite', ca, 'dashboard-hub'),
      launchChromium(),
      Receiver.start(),
      TrpPeer.start(ca, PEER),
    ]);
    peerHost = new URL(peer.url).host;
    kappa = await hub.createOrg(
      member('Kappa Bank', receiver.url, { publicKey: generateParticipantKeyPair().publicKeyPem }),
    );
    alpha = await hub.createOrg(member('Alpha Exchange', receiver.url));
    sigma = await hub.createOrg(member('Sigma Pay', receiver.url, { organizationType: 'unverified' }));
    keysSeen.push(kappa.apiKey, alpha.apiKey, sigma.apiKey, hub.adminKey);
  });

  after(async () => {
    await browser?.close();
    await peer?.close();
    await receiver?.close();
    await hub?.destroy();
    ca?.remove();
  });

  /** A fresh browser context (its own storage), watched for requests and errors, signed in with `key`. */
  async function signedIn(key: string, url = hub.url, viewport = DESKTOP): Promise<Page> {
    const context = { permissions: ['clipboard-read', 'clipboard-write'] };
    return signIn(await newPage(browser, watched, { viewport, context }), url, key);
  }

  /**
   * Closes the page's context after checking what the browser kept: the session's key in session
   * storage (this tab only, as the dashboard keeps it), nothing in local storage, no cookie.
   */
  async function done(page: Page): Promise<void> {
    const kept = await page.evaluate(() => ({
      local: localStorage.length,
      session: Object.keys(sessionStorage),
    }));
    assert.deepEqual(kept, { local: 0, session: ['trh.dashboard.apiKey'] });
    assert.deepEqual(await page.context().cookies(), []);
    await page.context().close();
  }

  const focusMovesTo = (page: Page, id: string) =>
    page.waitForFunction((want) => document.activeElement?.id === want, id, { timeout: 5000 });
  const tx = async (key: string, ref: string) =>
    (await hub.request('GET', `/v1/transactions/${ref}`, { key })).body;
  const rowOf = (page: Page, ref: string) =>
    page.getByRole('row').filter({ has: page.getByRole('link', { name: `Transaction ${ref}` }) });
  const openTravelAddresses = async (page: Page) => {
    await page.getByRole('link', { name: 'Travel addresses' }).click();
    await page.getByRole('heading', { name: 'Travel addresses', level: 1 }).waitFor();
  };

  /**
   * The peer sends an inquiry for a customer named `name` to kappa's travel address; resolves to
   * the new transaction's ref once kappa's endpoint was told (`received`) and it is RECEIVER_NOTIFIED.
   */
  async function inbound(name = uniqueName()): Promise<string> {
    const list = async () =>
      (await hub.request('GET', '/v1/transactions?role=beneficiary&protocol=TRP', { key: kappa.apiKey })).body
        .transactions as { transactionRef: string }[];
    const known = new Set((await list()).map((t) => t.transactionRef));
    assert.equal(await peer.inquire(address.url, name), 200);
    const ref = await eventually(
      async () => (await list()).find((t) => !known.has(t.transactionRef))?.transactionRef,
      'the inbound transfer',
    );
    await eventually(
      async () => (await tx(kappa.apiKey, ref)).status === 'RECEIVER_NOTIFIED',
      'the inbound transfer announced to the member',
    );
    return ref;
  }

  it('mints, copies and revokes travel addresses, with the hub’s problems at the field', async () => {
    const page = await signedIn(kappa.apiKey);
    await openTravelAddresses(page);
    await page.getByText('No travel address yet.').waitFor();
    await page.getByText(/what your customer gives a VASP outside the hub/).waitFor();
    await axe(page, 'the empty travel addresses page');

    // An expiry in the past: the hub's problem, at the field.
    const expires = page.getByLabel('Expires (optional)');
    await expires.fill('2020-01-01T10:00');
    await page.getByRole('button', { name: 'Mint travel address' }).click();
    await page.locator('#ta-expires-error').getByText('must be in the future').waitFor();
    assert.equal(await expires.getAttribute('aria-invalid'), 'true');

    // No expiry: the new address is shown (and focused) to be handed out, and listed.
    await expires.fill('');
    await page.getByRole('button', { name: 'Mint travel address' }).click();
    const minted = page.getByLabel('New travel address', { exact: true });
    await minted.waitFor();
    const first = await minted.inputValue();
    assert.match(first, /^ta[1-9A-HJ-NP-Za-km-z]+$/);
    await focusMovesTo(page, 'minted-address');
    assert.equal(await page.locator('#ta-expires-error').count(), 0);
    const listed = await hub.request('GET', '/v1/travel-addresses', { key: kappa.apiKey });
    address = listed.body.travelAddresses[0];
    assert.equal(address.travelAddress, first);
    const firstRow = page.getByRole('row').filter({ hasText: first });
    await firstRow.getByText('Active').waitFor();
    await firstRow.getByText('no expiry').waitFor();
    await page.getByRole('status').getByText('Travel address minted.').waitFor();

    // Copy puts the address itself on the clipboard.
    const copy = page.getByRole('button', { name: `Copy travel address ${short(first)}` });
    await copy.click();
    await firstRow.getByRole('button', { name: /^Copied travel address/ }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), first);

    // With an expiry (this browser's clock is UTC): active until then.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
    await expires.fill(tomorrow);
    await page.getByRole('button', { name: 'Mint travel address' }).click();
    await page.waitForFunction((old) => {
      const input = document.getElementById('minted-address') as HTMLInputElement | null;
      return input !== null && input.value !== old;
    }, first);
    const second = await minted.inputValue();
    const secondRow = page.getByRole('row').filter({ hasText: second });
    await secondRow.getByText(/^until/).waitFor();
    const expiresAt = (await hub.request('GET', '/v1/travel-addresses', { key: kappa.apiKey })).body
      .travelAddresses[0].expiresAt;
    assert.equal(expiresAt, `${tomorrow}:00.000Z`, 'the local time the field shows, as an instant');

    // Revoking asks once more, and going back keeps it.
    const revoke = page.getByRole('button', { name: `Revoke travel address ${short(second)}` });
    await revoke.click();
    await focusMovesTo(page, 'revoke-question');
    await page.getByRole('button', { name: 'Keep it' }).click();
    await page.waitForFunction(
      () => document.activeElement?.getAttribute('aria-label')?.startsWith('Revoke travel address') ?? false,
    );
    await revoke.click();
    await page.getByRole('button', { name: 'Yes, revoke it' }).click();
    await secondRow.getByText('Revoked').waitFor();
    assert.equal(await secondRow.getByRole('button', { name: /^Revoke/ }).count(), 0, 'revoked for good');
    const listedNow = await hub.request('GET', '/v1/travel-addresses', { key: kappa.apiKey });
    const revoked = listedNow.body.travelAddresses.find((t: Json) => t.travelAddress === second);
    assert.ok(revoked.revokedAt);
    assert.equal(await peer.inquire(revoked.url), 404, 'a revoked address takes no inquiry');

    // An address past its expiry is listed as expired.
    const third = (await hub.request('POST', '/v1/travel-addresses', { key: kappa.apiKey })).body;
    await hub.db.query("UPDATE travel_addresses SET expires_at = now() - interval '1 hour' WHERE id = $1", [
      third.id,
    ]);
    await page.reload();
    await page.getByRole('heading', { name: 'Travel addresses', level: 1 }).waitFor();
    const thirdRow = page.getByRole('row').filter({ hasText: third.travelAddress });
    await thirdRow.getByText('Expired').waitFor();
    assert.equal(await thirdRow.getByRole('button', { name: /^Revoke/ }).count(), 0);
    await shot(page, 'trp-travel-addresses');
  });

  it('pages through many travel addresses with Load more', async () => {
    for (let i = 0; i < 25; i++) {
      const res = await hub.request('POST', '/v1/travel-addresses', { key: kappa.apiKey });
      assert.equal(res.status, 201, res.text);
    }
    const page = await signedIn(kappa.apiKey);
    await openTravelAddresses(page);
    const rows = page.locator('table.list tbody tr');
    await page.getByRole('button', { name: 'Load more' }).waitFor();
    assert.equal(await rows.count(), 25);
    await page.getByRole('button', { name: 'Load more' }).click();
    // While the page loads, the button reads "Loading…": wait for the rows, then for the button to go.
    await rows.nth(27).waitFor();
    await page.getByRole('button', { name: /Load more|Loading/ }).waitFor({ state: 'detached' });
    assert.equal(await rows.count(), 28, 'every address, the first one minted last');
    await page.getByRole('row').filter({ hasText: address.travelAddress }).waitFor();
    await done(page);
  });

  it('says plainly when the organization cannot mint yet, the hub has no TRP bridge, or the key only reads', async () => {
    const page = await signedIn(sigma.apiKey);
    await openTravelAddresses(page);
    const note = page.getByRole('note', { name: 'Before minting' });
    await note.getByText(/needs a public key and a travel endpoint/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Mint travel address' }).count(), 0);
    assert.equal(
      (await hub.request('POST', '/v1/travel-addresses', { key: sigma.apiKey })).status,
      403,
      'as the hub says',
    );
    await axe(page, 'travel addresses of a member without a public key');
    await note.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByLabel('Public key (PEM)').waitFor();
    await done(page);

    const issued = await hub.request('POST', '/v1/organizations/me/api-keys', {
      key: kappa.apiKey,
      body: { scope: 'read' },
    });
    assert.equal(issued.status, 201, issued.text);
    keysSeen.push(issued.body.apiKey);
    const reader = await signedIn(issued.body.apiKey);
    await openTravelAddresses(reader);
    await reader.locator('table.list tbody tr').first().getByRole('button', { name: /^Copy/ }).waitFor();
    await reader.getByText(/may only read: minting and revoking/).waitFor();
    assert.equal(await reader.getByRole('button', { name: 'Mint travel address' }).count(), 0);
    assert.equal(await reader.getByRole('button', { name: /^Revoke/ }).count(), 0);
    await axe(reader, 'travel addresses with a read-only key');
    await done(reader);

    const plain = await startHub('pglite');
    otherHubUrl = plain.url;
    try {
      const member = await plain.createOrg({ name: 'Omicron Exchange' });
      keysSeen.push(member.apiKey);
      const other = await signedIn(member.apiKey, plain.url);
      await openTravelAddresses(other);
      await other.getByRole('heading', { name: 'This hub does not bridge to TRP' }).waitFor();
      assert.equal(await other.getByRole('button', { name: 'Mint travel address' }).count(), 0);
      assert.equal(await other.getByRole('table').count(), 0);
      await axe(other, 'travel addresses on a hub without the TRP bridge');
      await done(other);
      for (const key of keysSeen) assert.ok(!plain.allLogs().includes(key), 'no key in the other hub’s logs');
    } finally {
      await plain.destroy();
    }
  });

  it('shows an inbound TRP transfer with its peer, the data to screen, and approves it with an address', async () => {
    const name = uniqueName();
    const ref = await inbound(name);
    const page = await signedIn(kappa.apiKey);
    const row = rowOf(page, ref);
    await row.waitFor();
    const rowText = (await row.textContent()) ?? '';
    assert.ok(rowText.includes(peerHost), `the peer's host in ${rowText}`);
    assert.match(rowText, /TRP \(inbound\)/);
    assert.match(rowText, /Receiver notified/);
    await axe(page, 'the inbox with a TRP transfer');

    await row.getByRole('link', { name: `Transaction ${ref}` }).click();
    await page.getByRole('heading', { name: /TRP \(inbound\) transaction/ }).waitFor();
    await page.getByText('You are the beneficiary.').waitFor();
    const facts = page.getByRole('region', { name: 'Transfer' });
    // The peer's name comes from its /identity, read after the inquiry: the page polls.
    await facts.getByText(PEER.name).first().waitFor({ timeout: 15_000 });
    const factsText = (await facts.textContent()) ?? '';
    for (const expected of [peerHost, PEER.lei, 'CN=peer-vasp', address.travelAddress, 'TRP peer']) {
      assert.ok(factsText.includes(expected), `${expected} in the facts`);
    }
    await facts.getByText('not given yet: you give it when you approve').waitFor();
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText(PEER.name).first().waitFor();

    // The data came with the inquiry: it may be read (audited) before deciding.
    await page.getByText(/screen it before you approve or decline/).waitFor();
    await page.getByRole('button', { name: 'Show personal data' }).click();
    await page
      .getByRole('region', { name: 'Originator personal data' })
      .getByRole('heading', { name: new RegExp(name) })
      .waitFor();
    const delivery = page.getByRole('region', { name: 'Delivery', exact: true });
    await delivery.getByText('Nothing is sent to the peer until you approve or decline.').waitFor();

    // The address is checked at the field before anything is sent.
    const addressField = page.getByLabel('Address to be paid at');
    const approve = page.getByRole('button', { name: 'Approve transfer…' });
    await approve.click();
    await page.locator('#approve-address-error').getByText('Enter the address to be paid at.').waitFor();
    await focusMovesTo(page, 'approve-address');
    assert.equal(await addressField.getAttribute('aria-invalid'), 'true');
    await addressField.fill('TX kappa 1');
    await approve.click();
    await page
      .locator('#approve-address-error')
      .getByText(/without spaces/)
      .waitFor();
    await addressField.fill('x'.repeat(257));
    await approve.click();
    await page
      .locator('#approve-address-error')
      .getByText(/At most 256 characters/)
      .waitFor();
    await addressField.fill('TXkappaCustomer0001');
    assert.equal(await page.locator('#approve-address-error').count(), 0, 'the problem goes with the edit');
    await page.getByRole('button', { name: 'Decline transaction…' }).waitFor(); // offered beside it
    await shot(page, 'trp-inbound-transaction');

    // Approving is final: asked once more; going back keeps the address.
    await approve.click();
    await focusMovesTo(page, 'approve-question');
    await page.getByText(`Approve this transfer and send the address to ${PEER.name}?`).waitFor();
    assert.equal(await addressField.isDisabled(), true, 'the field is locked while asked');
    await page.getByRole('button', { name: 'Not yet' }).click();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Approve transfer…');
    assert.equal((await tx(kappa.apiKey, ref)).status, 'RECEIVER_NOTIFIED');
    await approve.click();
    await page.getByRole('button', { name: 'Yes, approve the transfer' }).click();
    await page
      .getByRole('status')
      .getByText(`Approved. The address is on its way to ${PEER.name}.`)
      .waitFor();
    await page.locator('.page-head').getByText('Confirmed').waitFor();
    await facts.getByText('TXkappaCustomer0001').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Approve transfer…' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Decline transaction…' }).count(), 0);
    const now = await tx(kappa.apiKey, ref);
    assert.equal(now.status, 'CONFIRMED');
    assert.equal(now.destination, 'TXkappaCustomer0001');
    await eventually(
      () => peer.seen.some((r) => r.body.approved?.address === 'TXkappaCustomer0001'),
      'the approval at the peer’s callback',
    );
    await delivery.locator('.badge').getByText('Delivered').waitFor({ timeout: 15_000 });
    await delivery.getByText(/Your answer \(approval or rejection\)/).waitFor();
    // The hub's TRP messages to the peer, each with its attempts.
    const messages = page.getByRole('region', { name: `TRP messages to ${PEER.name}` });
    await messages.getByRole('article', { name: 'trp-resolution TRP message, delivered' }).waitFor();
    await messages.getByRole('article', { name: 'trp-identity TRP message, delivered' }).waitFor();
    await axe(page, 'an approved inbound TRP transfer');
    await done(page);
  });

  it('declines another inbound transfer, and offers a read-only key nothing but the sentence', async () => {
    const ref = await inbound();
    const issued = await hub.request('POST', '/v1/organizations/me/api-keys', {
      key: kappa.apiKey,
      body: { scope: 'read' },
    });
    keysSeen.push(issued.body.apiKey);
    const reader = await signedIn(issued.body.apiKey);
    await reader.goto(`${hub.url}/ui/#/tx/${ref}`);
    await reader
      .getByText(/may only read\. With a full-scope key you could now approve it or decline it\./)
      .waitFor();
    const buttons = (await reader.getByRole('button').allTextContents()).map((t) => t.trim());
    assert.deepEqual(
      buttons.filter(
        (t) => !['Skip to content', 'Times in UTC', 'Sign out', 'Show personal data'].includes(t),
      ),
      [],
    );
    await axe(reader, 'an inbound TRP transfer with a read-only key');
    await done(reader);

    const page = await signedIn(kappa.apiKey);
    await page.goto(`${hub.url}/ui/#/tx/${ref}`);
    const decline = page.getByRole('button', { name: 'Decline transaction…' });
    await decline.waitFor();
    await page
      .getByText(/is told over TRP that it is rejected/)
      .first()
      .waitFor();
    await page.getByLabel('Reason').selectOption('SANCTIONS_MATCH');
    await page.getByLabel('Description').fill('Originator matches a sanctions list entry.');
    await decline.click();
    await focusMovesTo(page, 'decline-question');
    await page.getByRole('button', { name: 'Yes, decline the transfer' }).click();
    await page.getByRole('note', { name: 'Decline reason' }).waitFor();
    await page.locator('.page-head').getByText('Declined').waitFor();
    assert.equal((await tx(kappa.apiKey, ref)).status, 'DECLINED');
    await eventually(
      () => peer.seen.some((r) => r.body.rejected === 'Originator matches a sanctions list entry.'),
      'the rejection at the peer’s callback',
    );
    await axe(page, 'a declined inbound TRP transfer');
    await done(page);
  });

  it('shows a TRP message the peer did not take in delivery health, and redelivers it', async () => {
    const ref = await inbound();
    peer.refuseCallbacks = true;
    const approved = await hub.request('POST', '/v1/transactions/approve', {
      key: kappa.apiKey,
      body: { transactionRef: ref, address: 'TXkappaRetry0003' },
    });
    assert.equal(approved.status, 200, approved.text);
    const failedTrp = async () =>
      (
        await hub.request('GET', `/v1/webhooks/deliveries?channel=trp&status=FAILED&transactionRef=${ref}`, {
          key: kappa.apiKey,
        })
      ).body.deliveries as Json[];
    await eventually(async () => (await failedTrp()).length === 1, 'the resolution to fail');

    const page = await signedIn(kappa.apiKey);
    await page.getByRole('link', { name: 'Delivery health' }).click();
    await page.getByRole('heading', { name: 'Delivery health' }).waitFor();
    await page.getByRole('heading', { name: 'Failed TRP messages to peers' }).waitFor();
    const failed = page.getByRole('article', { name: 'trp-resolution TRP message, failed' });
    const attempts = failed.locator('tbody tr').filter({ hasText: 'HTTP 503' });
    await attempts.nth(3).waitFor();
    assert.equal(await attempts.count(), 4, 'one try and three retries');
    assert.equal(await page.getByText(/^All is well/).count(), 0);
    await axe(page, 'delivery health with a failed TRP message');

    // The transaction's delivery box tells the same, as an error class.
    await failed.getByRole('link', { name: /^transaction / }).click();
    const box = page.getByRole('region', { name: 'Delivery', exact: true });
    await box.locator('.badge').getByText('Failed', { exact: true }).waitFor();
    await box
      .locator('dd')
      .getByText(/server error \(HTTP 5xx\)/)
      .waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Delivery health' }).waitFor();

    peer.refuseCallbacks = false;
    await page
      .getByRole('article', { name: 'trp-resolution TRP message, failed' })
      .getByRole('button', { name: 'Redeliver' })
      .click();
    await eventually(
      () => peer.seen.some((r) => r.body.approved?.address === 'TXkappaRetry0003'),
      'the approval redelivered to the peer',
    );
    await page.getByRole('heading', { name: 'Failed TRP messages to peers' }).waitFor({ state: 'detached' });
    assert.equal((await failedTrp()).length, 0);
    await done(page);
  });

  it('approves by keyboard alone at phone width', async () => {
    const ref = await inbound();
    const page = await signedIn(kappa.apiKey, hub.url, PHONE);
    await openTravelAddresses(page);
    assert.ok((await overflowOf(page)) <= 0, 'the travel addresses page fits 375 px');
    await axe(page, 'travel addresses at phone width');

    await page.goto(`${hub.url}/ui/#/tx/${ref}`);
    await page.reload(); // focus starts at the top of the page, as for anyone arriving by a link
    await page.getByRole('heading', { name: /TRP \(inbound\) transaction/ }).waitFor();
    await page.getByLabel('Address to be paid at').waitFor();
    assert.ok((await overflowOf(page)) <= 0, 'the transaction page fits 375 px');
    let presses = 0;
    while ((await focusedId(page)) !== 'approve-address') {
      await page.keyboard.press('Tab');
      assert.ok(++presses < 60, 'the address field is reachable with Tab');
    }
    await page.keyboard.type('TXkappaPhone0002');
    await page.keyboard.press('Enter');
    await focusMovesTo(page, 'approve-question');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Yes, approve the transfer');
    await page.keyboard.press('Enter');
    await page.locator('.page-head').getByText('Confirmed').waitFor();
    assert.equal((await tx(kappa.apiKey, ref)).destination, 'TXkappaPhone0002');
    assert.ok((await overflowOf(page)) <= 0);
    await axe(page, 'an approved inbound TRP transfer at phone width');
    await done(page);
  });

  it('shows an outbound TRP transfer with the peer (by its /identity) and travel address, and its cancel reason', async () => {
    const travelAddress = encodeTravelAddress(`${peer.url}/inquiries/kappa-customer`);
    const { transactionBlockchainInfo, beneficiaryVASPdid, ...rest } = basicRequest('did:web:unused.example');
    const started = await hub.request('POST', '/v1/transactions/initiate', {
      key: alpha.apiKey,
      body: {
        ...rest,
        protocol: 'TRP',
        transactionAsset: 'ETH-USDC',
        transactionAssetDecimals: 6,
        transactionAmount: '12.5',
        travelAddress,
        transactionBlockchainInfo: { origin: transactionBlockchainInfo.origin },
      },
    });
    assert.equal(started.status, 200, started.text);
    const ref = started.body.transactionRef as string;
    await eventually(
      async () => (await tx(alpha.apiKey, ref)).status === 'RECEIVER_NOTIFIED',
      'the peer took the inquiry',
    );
    // After the inquiry the hub reads the peer's /identity: from then on it is shown by name.
    await eventually(
      async () => (await tx(alpha.apiKey, ref)).trp?.peer.name === PEER.name,
      'the peer identified',
    );

    const page = await signedIn(alpha.apiKey);
    await page.getByRole('link', { name: 'Outbox', exact: true }).click();
    const row = rowOf(page, ref);
    await row.waitFor();
    const rowText = (await row.textContent()) ?? '';
    assert.ok(rowText.includes(peerHost), `the peer's host in ${rowText}`);
    assert.match(rowText, /TRP \(outbound\)/);

    await row.getByRole('link', { name: `Transaction ${ref}` }).click();
    await page.getByRole('heading', { name: /TRP \(outbound\) transaction/ }).waitFor();
    const facts = page.getByRole('region', { name: 'Transfer' });
    const factsText = (await facts.textContent()) ?? '';
    assert.ok(factsText.includes(travelAddress), 'the travel address');
    assert.ok(factsText.includes(PEER.name), 'the peer by its name');
    assert.ok(factsText.includes(PEER.lei), 'and its LEI');
    assert.ok(!factsText.includes('Peer certificate'), 'no certificate for an outbound transfer');
    await page.getByText(`Waiting for ${PEER.name} to approve`).waitFor();
    await page
      .getByRole('region', { name: 'Delivery', exact: true })
      .getByText(/The TRP inquiry that tells the beneficiary VASP/)
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Confirm transaction' }).count(), 0);
    await axe(page, 'an outbound TRP transfer');

    await page.getByLabel('Reason (optional)').fill('The customer withdrew the order.');
    await page.getByRole('button', { name: 'Cancel transfer…' }).click();
    await page.getByRole('button', { name: 'Yes, cancel the transfer' }).click();
    const final = page.getByRole('note', { name: 'Final state' });
    await final.getByText('You cancelled this transfer').waitFor();
    await final.getByText('The customer withdrew the order.').waitFor();
    assert.equal((await tx(alpha.apiKey, ref)).cancelReason, 'The customer withdrew the order.');
    await axe(page, 'a cancelled outbound TRP transfer');
    await done(page);
  });

  it('lets the operator edit a TRP peer (pin, version, amounts), block and unblock it, and add one by host', async () => {
    const peerOf = async (host: string) =>
      ((await hub.admin('GET', '/v1/admin/trp/counterparties')).body.counterparties as Json[]).find(
        (c) => c.host === host,
      );
    const known = await peerOf(peerHost);
    assert.ok(known, 'the peer the hub talked to is listed');
    const op = await signedIn(hub.adminKey);
    await op.getByRole('link', { name: 'TRP peers' }).click();
    await op.getByRole('heading', { name: 'TRP peers', level: 1 }).waitFor();
    const row = op.getByRole('row').filter({ hasText: peerHost });
    await row.getByText(PEER.name).waitFor();
    await row.getByText('CN=peer-vasp').waitFor();
    await axe(op, 'the operator’s TRP peers');

    // Edit: pin the certificate it presented, speak 3.1.0 to it, send amounts in whole units.
    await row.getByRole('button', { name: `Edit ${peerHost}` }).click();
    const form = op.getByRole('form', { name: `Edit ${peerHost}` });
    assert.equal(
      await form.getByLabel('Certificate fingerprint (SHA-256)').inputValue(),
      known.certificateFingerprint,
    );
    await form.getByLabel('Pin this certificate').check();
    await form.getByLabel('TRP version').fill('3.1');
    await form.getByRole('button', { name: 'Save peer' }).click();
    await op.locator('#peer-version-error').waitFor(); // the hub's problem, at the field
    await form.getByLabel('TRP version').fill('3.1.0');
    await form.getByLabel('Amounts').selectOption('whole-units-number');
    await axe(op, 'the TRP peer form');
    await form.getByRole('button', { name: 'Save peer' }).click();
    await op.getByRole('status').getByText(`${peerHost} saved.`).waitFor();
    await row.getByText('(pinned)').waitFor();
    await row.getByText('whole-units-number').waitFor();
    let now = await peerOf(peerHost);
    assert.deepEqual(
      [now!.pinned, now!.apiVersion, now!.amountEncoding],
      [true, '3.1.0', 'whole-units-number'],
    );

    // Back to the defaults, unpinned.
    await row.getByRole('button', { name: `Edit ${peerHost}` }).click();
    await form.getByLabel('Pin this certificate').uncheck();
    await form.getByLabel('TRP version').fill('');
    await form.getByLabel('Amounts').selectOption('');
    await form.getByRole('button', { name: 'Save peer' }).click();
    await op.getByRole('status').getByText(`${peerHost} saved.`).waitFor();
    now = await peerOf(peerHost);
    assert.deepEqual([now!.pinned, now!.apiVersion, now!.amountEncoding], [false, null, null]);

    // Block and unblock from the row.
    await row.getByRole('button', { name: `Block ${peerHost}` }).click();
    await row.getByText('Blocked').waitFor();
    assert.equal((await peerOf(peerHost))!.blocked, true);
    await row.getByRole('button', { name: `Unblock ${peerHost}` }).click();
    await row.getByText('Active').waitFor();
    assert.equal((await peerOf(peerHost))!.blocked, false);

    // Add a peer before it ever called; the same host again is the hub's 409.
    const added = 'trp.newpeer.example:8443';
    await op.getByRole('button', { name: 'Add peer' }).click();
    const adding = op.getByRole('form', { name: 'Add a TRP peer' });
    await adding.getByLabel('Host').fill(added);
    await adding.getByLabel('TRP version').fill('3.1.0');
    await adding.getByLabel('Blocked').check();
    await adding.getByRole('button', { name: 'Add peer' }).click();
    await op.getByRole('status').getByText(`${added} added.`).waitFor();
    const addedRow = op.getByRole('row').filter({ hasText: added });
    await addedRow.getByText('Blocked').waitFor();
    const stored = await peerOf(added);
    assert.deepEqual([stored!.apiVersion, stored!.blocked, stored!.addedBy], ['3.1.0', true, 'operator']);
    await op.getByRole('button', { name: 'Add peer' }).click();
    await adding.getByLabel('Host').fill(added);
    await adding.getByRole('button', { name: 'Add peer' }).click();
    await adding.getByText(/already/i).waitFor();
    await adding.getByRole('button', { name: 'Cancel' }).click();
    await shot(op, 'operator-trp-peers');
    await done(op);
  });

  it('keeps keys out of URLs and the logs, and every request on the hub', () => {
    assertNoKeyLeaked(keysSeen, requested, hub);
    assert.ok(
      requested.every((url) => url.startsWith(`${hub.url}/`) || url.startsWith(`${otherHubUrl}/`)),
      'every request goes to the hub it signed in to',
    );
    assert.deepEqual(cspViolations(consoleErrors), [], 'no CSP violation');
  });
});
