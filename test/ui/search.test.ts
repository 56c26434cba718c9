/**
 * Search, filters and CSV export in the dashboard (SPEC §17), in headless Chromium against a real
 * hub (on PGlite, then on PostgreSQL): an analyst finds transfers by short reference, address and
 * customer name, opens a short reference in the address bar, downloads the CSV of its filters
 * (with and without the customers' names); typed text survives the 3-second refresh and the
 * filters survive a reload (they live in the address); a viewer is offered no customer search and
 * is refused one from a crafted address. axe-core checks each screenshot's page.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { OrgFixture, TestHub } from '../harness.js';
import { addPerson, PASSWORD } from '../support/people.js';
import type { Receiver } from '../support/receiver.js';
import { type Json, mainRequest } from '../support/requests.js';
import type { SmtpSink } from '../support/smtp.js';
import { axe, browserSuiteSkip, cspViolations, newPage, shot, signInAsPerson } from './browser.js';
import { startMembers, stopMembers } from './members.js';

function named(request: Json, family: string, given: string, destination: string, asset?: string): Json {
  const id = request.pii.originator.originatorPersons[0].naturalPerson.name[0].nameIdentifier[0];
  id.primaryIdentifier = family;
  id.secondaryIdentifier = given;
  request.transactionBlockchainInfo.destination = destination;
  if (asset) {
    request.transactionAsset = asset;
    request.transactionAssetDecimals = 8;
    request.transactionAmount = '0.75';
  }
  return request;
}

for (const backend of ['pglite', 'postgres'] as const) {
  describe(`search in the dashboard (Chromium) [${backend}]`, {
    skip: await browserSuiteSkip(backend, 'search in the dashboard'),
    timeout: 240_000,
  }, () => {
    let hub: TestHub;
    let browser: Browser;
    let smtp: SmtpSink;
    let receiver: Receiver;
    let alpha: OrgFixture;
    let rhein: OrgFixture;
    let analyst: Page;
    const refs: string[] = [];
    const ADDRESSES = [
      '0xA11cE00000000000000000000000000000000001',
      '0xB0B0000000000000000000000000000000000002',
      'bc1qsearchexample0000000000000000000003',
    ];
    const watched = { requested: [] as string[], consoleErrors: [] as string[] };
    const rows = (page: Page) => page.locator('table tbody tr');

    before(async () => {
      ({ hub, browser, smtp, receiver, rhein, alpha } = await startMembers(backend));
      const people = [
        ['Müller-Lüdenscheidt', 'Ödön', ADDRESSES[0]!, undefined],
        ['Smith', 'Jane', ADDRESSES[1]!, undefined],
        ['Okafor', 'Ada', ADDRESSES[2]!, 'BTC-BTC'],
      ] as const;
      for (const [family, given, destination, asset] of people) {
        const sent = await hub.request('POST', '/v1/transactions/initiate', {
          key: alpha.apiKey,
          body: named(mainRequest(rhein.vaspDid), family, given, destination, asset),
        });
        assert.equal(sent.status, 200, sent.text);
        refs.push(sent.body.transactionRef);
      }
    });

    after(async () => {
      await stopMembers({ hub, browser, smtp, receiver });
    });

    it('finds a transfer by short reference, by address and by customer name (analyst)', async () => {
      const person = await addPerson(hub, smtp, { key: alpha.apiKey }, 'analyst');
      analyst = await newPage(browser, watched);
      await signInAsPerson(analyst, hub.url, { email: person.email, password: PASSWORD });
      await analyst.goto(`${hub.url}/ui/#/outbox`);
      await analyst.getByRole('heading', { name: 'Outbox' }).waitFor();
      await analyst.getByText('3 transactions.').waitFor();

      const search = analyst.getByLabel('Search');
      await search.fill(refs[1]!.slice(0, 8).toUpperCase());
      await analyst.getByText('1 transaction match.').waitFor();
      assert.equal(await rows(analyst).count(), 1);
      assert.match(analyst.url(), new RegExp(`#/outbox\\?q=${refs[1]!.slice(0, 8).toUpperCase()}$`));
      await shot(analyst, 'search-short-ref');

      await search.fill(ADDRESSES[2]!.toUpperCase());
      await rows(analyst)
        .filter({ hasText: refs[2]!.slice(0, 8) })
        .waitFor();
      assert.equal(await rows(analyst).count(), 1);
      assert.match(await rows(analyst).first().innerText(), /BTC-BTC/);

      await search.fill('');
      await analyst.getByLabel('Customer name').fill('muller odon');
      await rows(analyst)
        .filter({ hasText: refs[0]!.slice(0, 8) })
        .waitFor();
      await analyst.getByText('1 transaction match.').waitFor();
      assert.equal(await rows(analyst).count(), 1);
      await shot(analyst, 'search-customer');
    });

    it('opens a short reference from the address bar, and says so when none or no reference matches', async () => {
      await analyst.goto(`${hub.url}/ui/#/tx/${refs[2]!.slice(0, 10)}`);
      await analyst
        .getByRole('heading', { name: new RegExp(`transaction ${refs[2]!.slice(0, 8)}`) })
        .waitFor();
      assert.ok(analyst.url().endsWith(`#/tx/${refs[2]}`), analyst.url());
      assert.ok(!(await analyst.content()).includes('must match format'));

      await analyst.goto(`${hub.url}/ui/#/tx/ffffffff`);
      await analyst.getByRole('heading', { name: 'No such transfer' }).waitFor();
      await analyst.goto(`${hub.url}/ui/#/tx/not-a-reference`);
      await analyst.getByRole('heading', { name: 'No such transfer' }).waitFor();
      await shot(analyst, 'search-no-such-transfer');
    });

    it('downloads the CSV of the current filters, with the customers’ names only when asked', async () => {
      await analyst.goto(`${hub.url}/ui/#/outbox?asset=eth-usdc&sort=oldest`);
      await analyst.getByText('2 transactions match.').waitFor();
      const plain = await download(analyst);
      assert.match(plain.name, /^transactions-\d{8}T\d{6}Z\.csv$/);
      const lines = plain.text.trim().split('\r\n');
      assert.equal(lines.length, 3, plain.text);
      assert.match(lines[0]!, /^transactionRef,createdAt,updatedAt,status,protocol,role,asset,amount,/);
      assert.ok(lines[1]!.startsWith(refs[0]!) && lines[2]!.startsWith(refs[1]!), plain.text);
      assert.ok(!plain.text.includes('Smith'));

      await analyst.getByLabel(/Include customers’ names/).check();
      const withNames = await download(analyst);
      assert.ok(withNames.text.split('\r\n')[0]!.endsWith('originatorCustomer,beneficiaryCustomer'));
      assert.ok(withNames.text.includes('Ödön Müller-Lüdenscheidt'), withNames.text);
      assert.ok(withNames.text.includes('Jane Smith'), withNames.text);
      await shot(analyst, 'search-csv-export');
    });

    it('keeps typed text through the refresh, and the filters through a reload', async () => {
      await analyst.goto(`${hub.url}/ui/#/outbox`);
      await analyst.getByText('3 transactions.').waitFor();
      const asset = analyst.getByLabel('Asset');
      await asset.click();
      // Slower than a person: the 3-second refresh runs at least once while typing.
      await asset.pressSequentially('btc-btc', { delay: 500 });
      assert.equal(await asset.inputValue(), 'btc-btc');
      await analyst.getByText('1 transaction match.').waitFor();
      assert.match(analyst.url(), /asset=btc-btc/);
      await analyst.waitForTimeout(3500); // another refresh
      assert.equal(await asset.inputValue(), 'btc-btc');
      await analyst.getByLabel('Per page').selectOption('200');
      await analyst.waitForFunction(() => window.location.hash.includes('size=200'));
      await analyst.reload();
      await analyst.getByText('1 transaction match.').waitFor();
      assert.equal(await analyst.getByLabel('Asset').inputValue(), 'btc-btc');
      assert.equal(await analyst.getByLabel('Per page').inputValue(), '200');
      await axe(analyst, 'the filtered outbox');
    });

    it('offers a viewer no customer search, and refuses one from a crafted address', async () => {
      const person = await addPerson(hub, smtp, { key: alpha.apiKey }, 'viewer');
      const viewer = await newPage(browser, watched);
      await signInAsPerson(viewer, hub.url, { email: person.email, password: PASSWORD });
      await viewer.goto(`${hub.url}/ui/#/outbox`);
      await viewer.getByText('3 transactions.').waitFor();
      assert.equal(await viewer.getByLabel('Customer name').count(), 0);
      assert.equal(await viewer.getByLabel(/Include customers’ names/).count(), 0);
      await viewer.getByLabel('Search').fill(refs[0]!.slice(0, 8));
      await viewer.getByText('1 transaction match.').waitFor();
      await viewer.goto(`${hub.url}/ui/#/outbox?customer=smith`);
      await viewer.reload();
      const alert = viewer.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.innerText(), /read personal data/);
      assert.ok(!(await viewer.content()).includes('Jane Smith'));
      await shot(viewer, 'search-viewer-refused');
      assert.deepEqual(cspViolations(watched.consoleErrors), []);
    });
  });
}

/** Clicks "Download CSV" and reads the file the browser saves. */
async function download(page: Page): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download CSV' }).click(),
  ]);
  const path = await file.path();
  return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
}
