/**
 * The dashboard's IVMS101 pages in headless Chromium against a real hub (PGlite): an integration
 * engineer pastes a payload in another network's dialect on the check page and sees its version,
 * its problems at the paths as pasted and the normalised form in either version; an organization
 * chooses the IVMS101 version it receives in its settings, and the operator on its page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type OrgFixture, startHub, type TestHub } from '../harness.js';
import { DIALECTS } from '../support/dialects.js';
import { eventually } from '../support/receiver.js';
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

describe('IVMS101 pages in Chromium', { skip: skip ?? false, timeout: 180_000 }, () => {
  let hub: TestHub;
  let browser: Browser;
  let member: OrgFixture;
  let page: Page;
  const watched = { requested: [] as string[], consoleErrors: [] as string[] };

  before(async () => {
    prepareBrowserSuite();
    [hub, browser] = await Promise.all([startHub('pglite'), launchChromium()]);
    member = await hub.createOrg({ name: 'Delta Exchange', vaspDid: 'did:web:delta-exchange.example' });
    page = await signIn(await newPage(browser, watched), hub.url, member.apiKey);
  });

  after(async () => {
    await browser?.close();
    await hub?.destroy();
  });

  it('checks a pasted payload: its version, its problems as pasted, the normalised form in 2023', async () => {
    await page.getByRole('link', { name: 'IVMS101 check' }).click();
    await page.getByRole('heading', { name: 'IVMS101 check' }).waitFor();
    const payload = DIALECTS.find((d) => d.network.startsWith('CODE'))!.pii(
      'Kim',
      'rKimAccount:memo',
    ) as Record<string, any>;
    payload.Originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth.dateOfBirth = '2999-01-01';
    await page.getByLabel('IVMS101 JSON').fill(JSON.stringify(payload, null, 2));
    await page.getByRole('button', { name: 'Check' }).click();
    const result = page.locator('p.note[role="status"]');
    await result.getByText('Not valid.').waitFor();
    assert.match((await result.textContent()) ?? '', /Detected version: IVMS101 2020/);
    const problem = page.getByRole('row').filter({ hasText: 'dateOfBirth' });
    assert.match(
      (await problem.textContent()) ?? '',
      /\/Originator\/originatorPersons\/0\/naturalPerson\/dateAndPlaceOfBirth\/dateOfBirth.*must be in the past/,
    );

    payload.Originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth.dateOfBirth = '1991-07-21';
    await page.getByLabel('IVMS101 JSON').fill(JSON.stringify(payload));
    await page.getByLabel('Show the normalised form as').selectOption('2023');
    await page.getByRole('button', { name: 'Check' }).click();
    await result.getByText('Valid.').waitFor();
    const normalised = JSON.parse((await page.getByTestId('ivms101-normalized').textContent()) ?? '{}');
    assert.equal(normalised.payloadMetadata.payloadVersion, '101.2023');
    assert.deepEqual(normalised.originator.originatorPerson[0].accountNumber, ['rKimAccount:memo']);
    assert.equal(
      normalised.originator.originatorPerson[0].naturalPerson.name.localNameIdentifier[0].primaryIdentifier,
      '김민지',
    );
    await shot(page, 'ivms101-check');
  });

  it('says plainly when the pasted text is not JSON, and sends nothing', async () => {
    const before = watched.requested.length;
    await page.getByLabel('IVMS101 JSON').fill('{ "originator": ');
    await page.getByRole('button', { name: 'Check' }).click();
    await page
      .locator('#ivms101-payload-error')
      .getByText(/not JSON/)
      .waitFor();
    assert.equal(await page.getByLabel('IVMS101 JSON').getAttribute('aria-invalid'), 'true');
    assert.equal(watched.requested.length, before);
  });

  it('lets the organization choose the version it receives in its settings', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('IVMS101 version').selectOption('2023');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Settings saved.').waitFor();
    const me = await hub.request('GET', '/v1/organizations/me', { key: member.apiKey });
    assert.equal(me.body.ivms101Version, '2023');
    await axe(page, 'settings with the IVMS101 version');
  });

  it('lets the operator set an organization’s version on its page', async () => {
    const operator = await signIn(await newPage(browser, watched), hub.url, hub.adminKey);
    await operator.getByRole('link', { name: 'Organizations' }).click();
    await operator.getByRole('link', { name: 'Delta Exchange' }).click();
    await operator.getByLabel('IVMS101 version').selectOption('2020');
    await operator.getByRole('button', { name: 'Save changes' }).click();
    await eventually(
      async () =>
        (await hub.request('GET', '/v1/organizations/me', { key: member.apiKey })).body.ivms101Version ===
        '2020',
      'the operator’s change',
    );
    await operator.getByRole('link', { name: 'IVMS101 check' }).click();
    await operator.getByRole('heading', { name: 'IVMS101 check' }).waitFor();
  });

  it('works at phone width without sideways scrolling', async () => {
    const phone = await signIn(await newPage(browser, watched, { viewport: PHONE }), hub.url, member.apiKey);
    await phone.goto(`${hub.url}/ui/#/ivms101`);
    await phone.getByRole('heading', { name: 'IVMS101 check' }).waitFor();
    assert.equal(await overflowOf(phone), 0);
    assertNoKeyLeaked([member.apiKey, hub.adminKey], watched.requested, hub);
    assert.deepEqual(cspViolations(watched.consoleErrors), []);
  });
});
