/**
 * The workbench's overviews in Chromium, on both databases: an operator overview card leads to its
 * filtered list (Cancelled), the chart of transfers per day with its table (redrawn when a transfer
 * arrives in the list), an organization's transfers and delivery health, a member's counterparty
 * directory, and the UTC switch for times.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type OrgFixture, startHub, type TestHub } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { mainRequest } from '../support/requests.js';
import {
  axe,
  browserSuiteSkip,
  cspViolations,
  DESKTOP,
  launchChromium,
  newPage,
  overflowOf,
  PHONE,
  prepareBrowserSuite,
  shot,
  signIn,
} from './browser.js';
import { member } from './members.js';

for (const backend of ['pglite', 'postgres'] as const) {
  describe(`overviews in Chromium [${backend}]`, {
    skip: await browserSuiteSkip(backend, 'overviews'),
    timeout: 240_000,
  }, () => {
    let hub: TestHub;
    let browser: Browser;
    let receiver: Receiver;
    let alpha: OrgFixture;
    let beta: OrgFixture;
    const refs: string[] = [];
    const consoleErrors: string[] = [];
    const watched = { requested: [] as string[], consoleErrors };
    // Screenshots are those of the PGlite run; the PostgreSQL run checks the same pages' accessibility.
    const picture = (page: Page, name: string) => (backend === 'pglite' ? shot(page, name) : axe(page, name));

    before(async () => {
      prepareBrowserSuite();
      [hub, browser, receiver] = await Promise.all([startHub(backend), launchChromium(), Receiver.start()]);
      alpha = await hub.createOrg(member('Alpha Exchange', receiver.url));
      beta = await hub.createOrg(member('Beta Custody', receiver.url, { organizationType: 'unverified' }));
      for (let i = 0; i < 3; i++) {
        const res = await hub.request('POST', '/v1/transactions/initiate', {
          key: alpha.apiKey,
          body: mainRequest(beta.vaspDid),
        });
        assert.equal(res.status, 200, res.text);
        refs.push(res.body.transactionRef);
      }
      await eventually(async () => {
        const rows = await hub.db.query(`SELECT 1 FROM deliveries WHERE status <> 'DELIVERED'`);
        return rows.length === 0;
      }, 'the received webhooks delivered');
      const cancel = await hub.request('POST', '/v1/transactions/cancel', {
        key: alpha.apiKey,
        body: { transactionRef: refs[0] },
      });
      assert.equal(cancel.status, 200, cancel.text);
      const place = await hub.admin('PATCH', `/v1/admin/organizations/${beta.id}`, {
        jurisdiction: 'DE',
        lei: '5493001KJTIIGC8Y1R12',
      });
      assert.equal(place.status, 200, place.text);
    });

    after(async () => {
      await browser?.close();
      await receiver?.close();
      await hub?.destroy();
    });

    const signedIn = async (key: string, timezoneId = 'UTC', viewport = DESKTOP) =>
      signIn(await newPage(browser, watched, { viewport, context: { timezoneId } }), hub.url, key);

    it('leads from an overview card to the filtered list, and draws transfers per day with a table', async () => {
      const op = await signedIn(hub.adminKey);
      await op.getByRole('heading', { name: 'Hub overview' }).waitFor();
      const summary = op.getByText(/Transfers per day \(UTC\) from .*: 3 in total/);
      await summary.waitFor();
      await op.locator('.daily-chart canvas').waitFor();
      await op.getByText('The numbers as a table').click();
      // Newest day first: today.
      const today = op.locator('.daily-chart-table tbody tr').first();
      assert.equal(((await today.locator('td').last().textContent()) ?? '').trim(), '3');
      await picture(op, 'operator-overview-chart');

      await op.getByRole('link', { name: /Cancelled/ }).click();
      await op.getByRole('heading', { name: 'Cancelled transactions' }).waitFor();
      assert.match(op.url(), /#\/transactions\/status=CANCELLED$/);
      const rows = op.locator('table.list tbody tr');
      // The heading is drawn before the list arrives.
      await rows.first().getByText('Alpha Exchange').waitFor();
      assert.equal(await rows.count(), 1);
      assert.ok(((await rows.first().textContent()) ?? '').includes(refs[0]!.slice(0, 8)));
      await picture(op, 'operator-transactions-cancelled');
      // Download CSV: the filtered list in full, as the hub's export has it.
      const saved = op.waitForEvent('download');
      await op.getByRole('button', { name: 'Download CSV' }).click();
      const file = await saved;
      assert.match(file.suggestedFilename(), /^hub-transactions-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = readFileSync((await file.path())!, 'utf8');
      const api = await hub.admin('GET', '/v1/admin/transactions?status=CANCELLED&format=csv');
      assert.equal(csv, api.text);
      assert.equal(csv.split('\r\n').filter((l) => l !== '').length, 2, 'the header and the cancelled one');
      assert.ok(csv.includes(refs[0]!));

      // Expired: the same way, an empty list that says so.
      await op.goto(`${hub.url}/ui/#/overview`);
      await op.getByRole('link', { name: /Expired/ }).click();
      await op.getByRole('heading', { name: 'Expired transactions' }).waitFor();
      await op.getByText('No transaction matches these filters.').waitFor();
    });

    it('shows the operator an organization’s transfers and delivery health', async () => {
      const op = await signedIn(hub.adminKey);
      await op.goto(`${hub.url}/ui/#/organizations/${beta.id}`);
      await op.getByRole('heading', { name: 'Beta Custody' }).waitFor();
      await op.getByRole('heading', { name: 'Delivery health' }).waitFor();
      await op.getByText('Closed: sending').waitFor();
      await op.getByText('3 received.', { exact: false }).waitFor();
      const delivered = op.locator('.counter').filter({ hasText: 'Delivered' });
      assert.equal(((await delivered.locator('.counter-value').textContent()) ?? '').trim(), '4');
      await picture(op, 'operator-organization-health');
      await op.getByRole('link', { name: 'List them' }).click();
      await op.getByRole('heading', { name: 'Transactions' }).waitFor();
      await op.locator('table.list tbody tr').nth(2).waitFor();
      assert.equal(await op.locator('table.list tbody tr').count(), 3);
    });

    it('shows a member its counterparties: verified state, jurisdiction, LEI and its messages to them', async () => {
      const page = await signedIn(alpha.apiKey);
      await page.getByRole('link', { name: 'Counterparties' }).click();
      await page.getByRole('heading', { name: 'Counterparties' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'Beta Custody' });
      await row.getByText('Germany (DE)').waitFor();
      await row.getByText('5493001KJTIIGC8Y1R12').waitFor();
      await row.getByText('Unverified').waitFor();
      await row.getByText('4 delivered').waitFor();
      await picture(page, 'counterparties');

      const asBeta = await signedIn(beta.apiKey);
      await asBeta.getByRole('link', { name: 'Counterparties' }).click();
      const alphaRow = asBeta.getByRole('row').filter({ hasText: 'Alpha Exchange' });
      await alphaRow.getByText('by the hub operator').waitFor();
    });

    it('shows times with their zone, and in UTC once switched, remembered after a reload', async () => {
      const page = await signedIn(beta.apiKey, 'America/New_York');
      await page.getByRole('heading', { name: 'Inbox' }).waitFor();
      const created = page.locator('td[data-label="Created"] time').first();
      await created.waitFor();
      assert.match((await created.textContent()) ?? '', /\d{2}:\d{2}:\d{2}( [AP]M)? (EST|EDT|GMT-[45])$/);
      const toggle = page.getByRole('button', { name: 'Times in UTC' });
      assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
      assert.match(
        (await created.textContent()) ?? '',
        /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}:\d{2} UTC$/,
      );
      await page.getByText(/Updated \d{2}:\d{2}:\d{2} UTC; refreshes by itself/).waitFor();
      await page.getByText('The numbers as a table').click();
      await picture(page, 'inbox-chart-utc');

      await page.reload();
      await page.getByRole('heading', { name: 'Inbox' }).waitFor();
      await page.locator('td[data-label="Created"] time').first().waitFor();
      assert.match(
        (await page.locator('td[data-label="Created"] time').first().textContent()) ?? '',
        / UTC$/,
      );
      assert.equal(
        await page.getByRole('button', { name: 'Times in UTC' }).getAttribute('aria-pressed'),
        'true',
      );
    });

    it('counts a transfer in the inbox’s chart once the list shows it', async () => {
      const page = await signedIn(beta.apiKey);
      await page.getByText(/Transfers per day \(UTC\) from .*: 3 in total/).waitFor();
      // Beta is in Germany by now: the EU's rules want the originator's birth date and place.
      const body = mainRequest(beta.vaspDid);
      body.pii.originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth = {
        dateOfBirth: '1984-03-09',
        placeOfBirth: 'Leipzig',
      };
      const sent = await hub.request('POST', '/v1/transactions/initiate', { key: alpha.apiKey, body });
      assert.equal(sent.status, 200, sent.text);
      await page
        .locator('table.list tbody tr')
        .filter({ hasText: sent.body.transactionRef.slice(0, 8) })
        .waitFor();
      await page.getByText(/Transfers per day \(UTC\) from .*: 4 in total/).waitFor();
    });

    it('fits a phone and breaks no content policy', async () => {
      const page = await signedIn(alpha.apiKey, 'UTC', PHONE);
      await page.goto(`${hub.url}/ui/#/counterparties`);
      await page.getByRole('heading', { name: 'Counterparties' }).waitFor();
      assert.ok((await overflowOf(page)) <= 0, 'the counterparties page fits a phone');
      await page.goto(`${hub.url}/ui/#/inbox`);
      await page.locator('.daily-chart canvas').waitFor();
      assert.ok((await overflowOf(page)) <= 0, 'the inbox with its chart fits a phone');
      assert.deepEqual(cspViolations(consoleErrors), []);
    });
  });
}
