/**
 * The dashboard's side of the jurisdiction rules (SPEC §15), in headless Chromium against a real
 * hub (PGlite): a member sets its jurisdiction in Settings, reads the rules table with its sources,
 * checks a pasted transfer (validate) and sees what is missing, and opens a transaction that shows
 * the rules it was held to and its wallet proof. axe-core checks every new page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type OrgFixture, startHub, type TestHub } from '../harness.js';
import { mainRequest } from '../support/requests.js';
import {
  assertNoKeyLeaked,
  browserProblem,
  cspViolations,
  launchChromium,
  newPage,
  prepareBrowserSuite,
  shot,
  signIn,
} from './browser.js';

const skip = browserProblem();

describe('rules in the dashboard (Chromium)', { skip: skip ?? false, timeout: 300_000 }, () => {
  let hub: TestHub;
  let browser: Browser;
  let rhein: OrgFixture; // originator, Germany (EU)
  let liberty: OrgFixture; // beneficiary, United States
  const requested: string[] = [];
  const consoleErrors: string[] = [];
  const watched = { requested, consoleErrors };

  before(async () => {
    prepareBrowserSuite();
    [hub, browser] = await Promise.all([startHub('pglite'), launchChromium()]);
    rhein = await hub.createOrg({ name: 'Rhein Exchange', vaspDid: 'did:web:rhein.example' });
    liberty = await hub.createOrg({
      name: 'Liberty Coins',
      vaspDid: 'did:web:liberty.example',
      travelEndpoint: 'https://liberty.example/travel',
      jurisdiction: 'US',
    });
  });
  after(async () => {
    await browser?.close();
    await hub?.destroy();
  });

  it('sets the jurisdiction in Settings', async () => {
    const page = await signIn(await newPage(browser, watched), hub.url, rhein.apiKey);
    await page.goto(`${hub.url}/ui/#/settings`);
    await page.getByLabel('Jurisdiction').fill('de');
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText('Settings saved.').first().waitFor();
    const me = await hub.request('GET', '/v1/organizations/me', { key: rhein.apiKey });
    assert.equal(me.body.jurisdiction, 'DE');
    await page.context().close();
  });

  it('lists the rules table with sources and checks a pasted transfer', async () => {
    const page = await signIn(await newPage(browser, watched), hub.url, rhein.apiKey);
    await page.goto(`${hub.url}/ui/#/rules`);
    await page.getByRole('heading', { name: 'The rules table' }).waitFor();
    const eu = page.getByRole('row', { name: /European Union/ });
    assert.match(await eu.innerText(), /2023\/1113/);
    const body = { ...mainRequest(liberty.vaspDid), transferValue: { amount: '800', currency: 'EUR' } };
    await page.getByLabel('Initiate request (JSON)').fill(JSON.stringify(body, null, 2));
    await page.getByRole('button', { name: 'Check' }).click();
    const result = page.getByRole('status').filter({ hasText: 'Misses 1 required item' });
    await result.waitFor();
    const text = await result.innerText();
    assert.match(text, /\/pii\/originator\/originatorPersons\/0\/naturalPerson/);
    assert.match(text, /originator \(DE\): EU/);
    assert.match(text, /beneficiary \(US\): US/);
    await shot(page, 'rules');
    await page.getByLabel('Initiate request (JSON)').fill('{ not json');
    await page.getByRole('button', { name: 'Check' }).click();
    await page
      .getByText(/Not JSON/)
      .first()
      .waitFor();
    await page.context().close();
  });

  it('shows a transaction’s rules and its wallet proof to the beneficiary', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const message = 'I control this wallet.';
    const proof = await hub.request('POST', '/v1/wallet-proofs', {
      key: rhein.apiKey,
      body: {
        chain: 'ETH',
        address: account.address,
        message,
        signature: await account.signMessage({ message }),
      },
    });
    assert.equal(proof.status, 201, proof.text);
    const body = mainRequest(liberty.vaspDid);
    body.pii.originator.originatorPersons[0].naturalPerson.customerIdentification = 'CUST-1';
    body.transactionBlockchainInfo.origin = account.address;
    const tx = await hub.request('POST', '/v1/transactions/initiate', {
      key: rhein.apiKey,
      body: { ...body, walletProofId: proof.body.id },
    });
    assert.equal(tx.status, 200, tx.text);
    const page = await signIn(await newPage(browser, watched), hub.url, liberty.apiKey);
    await page.goto(`${hub.url}/ui/#/tx/${tx.body.transactionRef}`);
    const panel = page.getByRole('region', { name: 'Rules and wallet proof' });
    await panel.getByText(/EIP-191 signature/).waitFor();
    const text = await panel.innerText();
    assert.match(text, /originator \(DE\): EU/);
    assert.match(text, /2023\/1113/);
    assert.ok(text.includes(account.address));
    await shot(page, 'transaction-rules');
    await page.context().close();
  });

  it('keeps keys out of URLs and the logs, with no CSP violation', () => {
    assertNoKeyLeaked([rhein.apiKey, liberty.apiKey], requested, hub);
    assert.deepEqual(cspViolations(consoleErrors), []);
  });
});
