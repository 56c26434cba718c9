/**
 * The dashboard's audit trail (SPEC §14, docs/records.md) in headless Chromium against a real hub
 * (PGlite): an organization pages through its own events, narrows them by action and transaction,
 * downloads CSV and JSON Lines that are the API's export with the same filters, and sees the
 * chain intact; the operator filters by organization, verifies the chain, and after a row was
 * changed behind the trigger's back sees where it broke, as the organization then does too. No
 * personal data reaches the page; axe-core checks every page.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checkpointSigned } from '../../src/audit/checkpoint.js';
import { type OrgFixture, startHub, type TestHub } from '../harness.js';
import { mainRequest } from '../support/requests.js';
import {
  assertNoKeyLeaked,
  axe,
  browserProblem,
  cspViolations,
  launchChromium,
  newPage,
  overflowOf,
  PHONE,
  prepareBrowserSuite,
  shot,
  signIn,
} from './browser.js';

const skip = browserProblem();
const PERSON = 'Zelda Quartermaine';
/** Keys issued and revoked again: more than one page (50) of events about the member. */
const KEYS = 28;

const rows = (page: Page) => page.getByRole('region', { name: 'Audit events (table)' }).locator('tbody tr');

/** Waits until the table shows exactly `n` rows. */
async function rowsAre(page: Page, n: number) {
  await page.waitForFunction(
    (n) =>
      document.querySelectorAll('table.list tbody tr').length === n && !document.querySelector('[aria-busy]'),
    n,
  );
}

/** Clicks `button` and returns the file the page saved, with its name. */
async function downloaded(page: Page, button: string): Promise<{ name: string; text: string }> {
  const saved = page.waitForEvent('download');
  await page.getByRole('button', { name: button }).click();
  const download = await saved;
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') };
}

/** An export's events, without its checkpoint (whose `at` is the moment it was made). */
function jsonlEvents(text: string) {
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const last = lines.pop();
  assert.ok(last.checkpoint, 'the export ends with its checkpoint');
  assert.ok(checkpointSigned(last.checkpoint), 'signed by the audit key');
  return lines;
}
/** A CSV export's header and event rows, without its checkpoint row. */
function csvEvents(text: string): string {
  const [events, checkpoint] = text.split('\r\ncheckpoint,');
  assert.ok(events !== undefined && checkpoint, 'the CSV ends with its checkpoint row');
  return events;
}

/** As the database's owner could: with the triggers off for one transaction. */
function bypassing(hub: TestHub, sql: string, params: unknown[] = []) {
  return hub.db.transaction(async (tx) => {
    await tx.query('SET LOCAL session_replication_role = replica');
    await tx.query(sql, params);
  });
}

describe('the audit trail in the dashboard (Chromium)', { skip: skip ?? false, timeout: 300_000 }, () => {
  let hub: TestHub;
  let browser: Browser;
  let rhein: OrgFixture; // many events, and a transaction whose personal data it read
  let liberty: OrgFixture; // the beneficiary
  let quiet: OrgFixture; // a few events of its own
  let ref = '';
  const watched = { requested: [] as string[], consoleErrors: [] as string[] };

  before(async () => {
    prepareBrowserSuite();
    [hub, browser] = await Promise.all([startHub('pglite', { HUB_WORKER: 'false' }), launchChromium()]);
    rhein = await hub.createOrg({ name: 'Rhein Exchange', vaspDid: 'did:web:rhein.example' });
    liberty = await hub.createOrg({
      name: 'Liberty Coins',
      vaspDid: 'did:web:liberty.example',
      travelEndpoint: 'http://127.0.0.1:9/travel',
    });
    quiet = await hub.createOrg({ name: 'Quiet Custody', vaspDid: 'did:web:quiet.example' });
    for (let i = 0; i < KEYS; i++) {
      const k = await hub.request('POST', '/v1/organizations/me/api-keys', { key: rhein.apiKey, body: {} });
      assert.equal(k.status, 201, k.text);
      const r = await hub.request('DELETE', `/v1/organizations/me/api-keys/${k.body.keyId}`, {
        key: rhein.apiKey,
      });
      assert.equal(r.status, 204, r.text);
    }
    for (let i = 0; i < 2; i++) {
      await hub.request('POST', '/v1/organizations/me/api-keys', { key: quiet.apiKey, body: {} });
    }
    const tx = await hub.request('POST', '/v1/transactions/initiate', {
      key: rhein.apiKey,
      body: mainRequest(liberty.vaspDid, PERSON),
    });
    assert.equal(tx.status, 200, tx.text);
    ref = tx.body.transactionRef;
    const pii = await hub.request('GET', `/v1/transactions/${ref}/pii`, { key: rhein.apiKey });
    assert.equal(pii.status, 200, pii.text);
  });
  after(async () => {
    await browser?.close();
    await hub?.destroy();
  });

  it('shows an organization its events with Load more, and the chain intact', async () => {
    const all = await hub.request('GET', '/v1/audit?format=jsonl', { key: rhein.apiKey });
    const mine = jsonlEvents(all.text);
    assert.ok(mine.length > 50 && mine.length <= 100, `${mine.length} events: more than a page`);

    const page = await signIn(await newPage(browser, watched), hub.url, rhein.apiKey);
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await rowsAre(page, 50);
    // Newest first: the read of the personal data is on top.
    assert.match(await rows(page).first().innerText(), /transaction\.pii_read/);
    await page.getByRole('button', { name: 'Load more' }).click();
    await rowsAre(page, mine.length);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'the last page');
    const seqs = await rows(page).evaluateAll((trs) =>
      trs.map((tr) => Number(tr.querySelector('td')?.textContent)),
    );
    assert.deepEqual(seqs, mine.map((e) => e.seq).reverse());

    const chain = page.getByRole('region', { name: 'Chain verification' });
    await chain.getByText('Intact.').waitFor();
    const [count] = await hub.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events');
    assert.match(await chain.innerText(), new RegExp(`${count!.n} rows checked`));
    assert.equal(
      await chain.getByRole('button', { name: 'Verify chain' }).count(),
      0,
      'the operator’s action',
    );
    assert.ok(!(await page.content()).includes('Zelda'), 'no personal data on the page');
    await axe(page, 'the audit trail, two pages');
    await page.context().close();
  });

  it('narrows the events by action and transaction, and downloads what they select', async () => {
    const page = await signIn(await newPage(browser, watched), hub.url, rhein.apiKey);
    await page.goto(`${hub.url}/ui/#/audit`);
    await rowsAre(page, 50);
    await page.getByLabel('Action', { exact: true }).fill('transaction.pii_read');
    await page.getByLabel('Action', { exact: true }).press('Enter');
    await rowsAre(page, 1);
    const row = await rows(page).first().innerText();
    assert.match(row, /transaction\.pii_read/);
    assert.match(row, /Rhein Exchange/, 'its own actor by name');
    assert.ok(row.includes(ref.slice(0, 8)));

    const csv = await downloaded(page, 'Download CSV');
    assert.match(csv.name, /^audit-trail-\d{4}-\d{2}-\d{2}\.csv$/);
    const api = await hub.request('GET', '/v1/audit?action=transaction.pii_read&format=csv', {
      key: rhein.apiKey,
    });
    assert.equal(csvEvents(csv.text), csvEvents(api.text));
    assert.equal(csvEvents(csv.text).split('\r\n').length, 2, 'the header and the one event');

    await page.getByLabel('Action', { exact: true }).fill('');
    await page.getByLabel('Action', { exact: true }).press('Enter');
    await page.getByLabel('Transaction', { exact: true }).fill(ref.toUpperCase());
    await page.getByLabel('Transaction', { exact: true }).press('Enter');
    const about = jsonlEvents(
      (await hub.request('GET', `/v1/audit?transactionRef=${ref}&format=jsonl`, { key: rhein.apiKey })).text,
    );
    assert.ok(about.length >= 1);
    await rowsAre(page, about.length);
    const jsonl = await downloaded(page, 'Download JSON Lines');
    assert.match(jsonl.name, /\.jsonl$/);
    assert.deepEqual(jsonlEvents(jsonl.text), about);
    await shot(page, 'audit-trail');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await rowsAre(page, 50);
    await page.context().close();
  });

  it('lets the operator filter by organization, download, and verify the chain', async () => {
    const page = await signIn(await newPage(browser, watched), hub.url, hub.adminKey);
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await rowsAre(page, 50);
    await page.getByLabel('Organization').selectOption({ label: 'Quiet Custody' });
    const about = jsonlEvents(
      (await hub.admin('GET', `/v1/admin/audit?organizationId=${quiet.id}&format=jsonl`)).text,
    );
    assert.equal(about.length, 3, 'registered, and two keys');
    await rowsAre(page, 3);
    assert.ok(!(await rows(page).allInnerTexts()).some((t) => t.includes('Rhein')));
    const jsonl = await downloaded(page, 'Download JSON Lines');
    assert.deepEqual(jsonlEvents(jsonl.text), about);

    const chain = page.getByRole('region', { name: 'Chain verification' });
    await chain.getByText('Last verified').waitFor();
    await chain.getByRole('button', { name: 'Verify chain' }).click();
    await chain.getByText('Verified just now').waitFor();
    const verify = await hub.admin('GET', '/v1/admin/audit/verify');
    const text = await chain.innerText();
    assert.match(text, /Intact\./);
    assert.match(text, new RegExp(`${verify.body.rows} rows checked`));
    assert.ok(text.includes(verify.body.head.hash));
    await shot(page, 'operator-audit');
    await page.context().close();
  });

  it('shows the operator, then the organizations, the first broken row after a change behind the trigger', async () => {
    const [row] = await hub.db.query<{ actor: string }>('SELECT actor FROM audit_events WHERE seq = 2');
    await bypassing(hub, "UPDATE audit_events SET actor = 'operator:someone-else' WHERE seq = 2");
    try {
      const operator = await signIn(await newPage(browser, watched), hub.url, hub.adminKey);
      await operator.goto(`${hub.url}/ui/#/audit`);
      await rowsAre(operator, 50);
      await operator.getByLabel('Organization').selectOption({ label: 'Quiet Custody' });
      await rowsAre(operator, 3);
      const chain = operator.getByRole('region', { name: 'Chain verification' });
      await chain.getByRole('button', { name: 'Verify chain' }).click();
      await chain.getByText('Broken at row 2.').waitFor();
      assert.match(await chain.innerText(), /row seq 2: hash does not match its content/);
      await shot(operator, 'operator-audit-broken');
      await operator.context().close();

      // The operator's walk is what the organizations' status answers from then on.
      const member = await signIn(await newPage(browser, watched), hub.url, liberty.apiKey);
      await member.goto(`${hub.url}/ui/#/audit`);
      const seen = member.getByRole('region', { name: 'Chain verification' });
      await seen.getByText('Broken at row 2.').waitFor();
      assert.match(await seen.innerText(), /tell the hub’s operator/);
      await member.context().close();
    } finally {
      await bypassing(hub, 'UPDATE audit_events SET actor = $1 WHERE seq = 2', [row!.actor]);
    }
    assert.equal((await hub.admin('GET', '/v1/admin/audit/verify')).body.ok, true);
  });

  it('fits a phone’s width', async () => {
    const page = await signIn(await newPage(browser, watched, { viewport: PHONE }), hub.url, rhein.apiKey);
    await page.goto(`${hub.url}/ui/#/audit`);
    await rowsAre(page, 50);
    assert.equal(await overflowOf(page), 0, 'no sideways scrolling');
    await axe(page, 'the audit trail at phone width');
    await page.context().close();
  });

  it('keeps keys out of URLs and the logs, with no CSP violation', () => {
    assertNoKeyLeaked([rhein.apiKey, liberty.apiKey, quiet.apiKey, hub.adminKey], watched.requested, hub);
    assert.deepEqual(cspViolations(watched.consoleErrors), []);
  });
});
