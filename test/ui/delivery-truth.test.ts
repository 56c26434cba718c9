/**
 * Delivery truth as the originator sees it (SPEC §17), in headless Chromium against a real hub (on
 * PGlite, then on PostgreSQL) and real webhook receivers: a MAIN transfer reaches the beneficiary,
 * then the beneficiary's endpoint goes down and the originator confirms. The `confirmed-data`
 * message retries, and the originator's own pages must say so: the transaction's Delivery box
 * (worst state, the message it is about, every message owed with its own state), the Outbox's
 * "Delivery failing" filter and the "Failing" count of Needs my action. axe-core checks each page.
 * (That the summary and its evidence outlive the transaction is tested through the API.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { OrgFixture, TestHub } from '../harness.js';
import { eventually, type Receiver } from '../support/receiver.js';
import { mainRequest } from '../support/requests.js';
import { assertNoKeyLeaked, axe, browserSuiteSkip, cspViolations, newPage, shot, signIn } from './browser.js';
import { type Members, startMembers, stopMembers } from './members.js';

for (const backend of ['pglite', 'postgres'] as const) {
  describe(`delivery truth for the originator (Chromium) [${backend}]`, {
    skip: await browserSuiteSkip(backend, 'delivery truth in the dashboard'),
    timeout: 180_000,
  }, () => {
    let scene: Members;
    let hub: TestHub;
    let receiver: Receiver;
    let alpha: OrgFixture; // the originator
    let rhein: OrgFixture; // the beneficiary, whose endpoint goes down
    let page: Page;
    let ref = '';
    const watched = { requested: [] as string[], consoleErrors: [] as string[] };

    before(async () => {
      // Two quick retries, then a long wait: the failing message stays "retrying" with a next attempt.
      scene = await startMembers(backend, { HUB_RETRY_SCHEDULE: '200ms,200ms,1h' });
      ({ hub, receiver, alpha, rhein } = scene);
    });

    after(() => stopMembers(scene ?? {}));

    it('tells the originator that the confirmed data is not getting through', async () => {
      const sent = await hub.request('POST', '/v1/transactions/initiate', {
        key: alpha.apiKey,
        body: mainRequest(rhein.vaspDid),
      });
      assert.equal(sent.status, 200, sent.text);
      ref = sent.body.transactionRef;
      await eventually(async () => {
        const tx = await hub.request('GET', `/v1/transactions/${ref}`, { key: alpha.apiKey });
        return tx.body.status === 'RECEIVER_NOTIFIED' && tx.body.delivery.state === 'delivered';
      }, 'the beneficiary got the first notice');
      // The beneficiary's endpoint goes down; the originator confirms.
      receiver.script('/rhein/v1/notify/confirmed-data', 503, 503, 503, 503, 503, 503);
      const confirmed = await hub.request('POST', '/v1/transactions/confirm', {
        key: alpha.apiKey,
        body: { transactionRef: ref },
      });
      assert.equal(confirmed.status, 200, confirmed.text);
      let last = '';
      await eventually(async () => {
        const tx = await hub.request('GET', `/v1/transactions/${ref}`, { key: alpha.apiKey });
        last = JSON.stringify(tx.body.delivery);
        return tx.body.delivery.state === 'retrying' && tx.body.delivery.event === 'confirmed-data';
      }, 'confirmed-data is retrying').catch((err: Error) => {
        throw new Error(`${err.message}: ${last}`);
      });

      page = await signIn(await newPage(scene.browser, watched), hub.url, alpha.apiKey);
      await page.goto(`${hub.url}/ui/#/tx/${ref}`);
      const box = page.getByRole('region', { name: 'Delivery' });
      await box.getByText('Retrying', { exact: true }).first().waitFor();
      await box.getByText('(confirmed-data webhook)').waitFor();
      const messages = box.getByRole('region', { name: /Messages owed to the counterparty/ });
      const received = messages.getByRole('row').filter({ hasText: 'received webhook' });
      const data = messages.getByRole('row').filter({ hasText: 'confirmed-data webhook' });
      assert.match((await received.textContent()) ?? '', /Delivered/);
      assert.match((await data.textContent()) ?? '', /Retrying/);
      assert.match((await data.textContent()) ?? '', /server error \(HTTP 5xx\)/);
      assert.doesNotMatch((await box.textContent()) ?? '', /all is well|got through/i);
      await shot(page, 'transaction-delivery-retrying');
    });

    it('lists it under Delivery failing and counts it in Needs my action', async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Outbox' }).click();
      await page.getByLabel('Delivery failing').check();
      await page.getByRole('link', { name: `Transaction ${ref}` }).waitFor();
      await axe(page, 'the Outbox filtered to failing deliveries');
      const failing = page.getByRole('link', { name: /^Failing/ });
      await eventually(async () => /1/.test((await failing.textContent()) ?? ''), 'the Failing count');
      await failing.click();
      await page.getByRole('heading', { name: 'Needs my action' }).waitFor();
      await page.getByRole('link', { name: `Transaction ${ref}` }).waitFor();
      const queue = await hub.request('GET', '/v1/queue', { key: alpha.apiKey });
      assert.equal(queue.body.failingDeliveries, 1, queue.text);
      assertNoKeyLeaked([alpha.apiKey, rhein.apiKey, hub.adminKey], watched.requested, hub);
      assert.deepEqual(cspViolations(watched.consoleErrors), []);
    });
  });
}
