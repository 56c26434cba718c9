import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { eachBackend } from '../harness.js';
import { type Json, mainRequest } from '../support/requests.js';
import { LEI, LEI_BAD_CHECK } from '../unit/ivms101-fixtures.js';

const ORIG = '/pii/originator/originatorPersons/0/naturalPerson';
const ratesFile = join(mkdtempSync(join(tmpdir(), 'trh-fx-')), 'rates.json');
writeFileSync(ratesFile, JSON.stringify({ base: 'USD', date: '2026-11-27', rates: { EUR: '0.9' } }));

eachBackend(
  'jurisdictions, LEIs and the rules',
  (hub) => {
    it('sets jurisdiction and LEI on create, reads them back and filters the directory by them', async () => {
      const res = await hub().admin('POST', '/v1/admin/organizations', {
        name: 'Rhein Exchange',
        vaspDid: 'did:web:rhein.example',
        jurisdiction: 'DE',
        lei: LEI,
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.organization.jurisdiction, 'DE');
      assert.equal(res.body.organization.lei, LEI);
      const other = await hub().createOrg({ jurisdiction: 'US' });
      const plain = await hub().createOrg();
      const byCountry = await hub().request('GET', '/v1/organizations?jurisdiction=DE', {
        key: plain.apiKey,
      });
      assert.equal(byCountry.status, 200);
      // The directory lists the interface document's fields only; the filter still selects by them.
      assert.deepEqual(
        byCountry.body.organizations.map((o: any) => [o.vaspDid, o.jurisdiction, o.lei]),
        [['did:web:rhein.example', undefined, undefined]],
      );
      const none = await hub().request('GET', '/v1/organizations?jurisdiction=FR', { key: plain.apiKey });
      assert.deepEqual(none.body.organizations, []);
      const byLei = await hub().admin('GET', `/v1/admin/organizations?lei=${LEI}`);
      assert.deepEqual(
        byLei.body.organizations.map((o: any) => [o.vaspDid, o.jurisdiction, o.lei]),
        [['did:web:rhein.example', 'DE', LEI]],
      );
      const me = await hub().request('GET', '/v1/organizations/me', { key: other.apiKey });
      assert.equal(me.body.jurisdiction, 'US');
      assert.equal(me.body.lei, null);
    });

    it('refuses an LEI with wrong check digits, an unknown country and a lower-case code', async () => {
      const res = await hub().admin('POST', '/v1/admin/organizations', {
        name: 'Bad Codes',
        vaspDid: 'did:web:bad-codes.example',
        jurisdiction: 'QQ',
        lei: LEI_BAD_CHECK,
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.errors.map((e: any) => e.path).sort(), ['/jurisdiction', '/lei']);
      const lower = await hub().admin('POST', '/v1/admin/organizations', {
        name: 'Lower',
        vaspDid: 'did:web:lower.example',
        jurisdiction: 'de',
      });
      assert.equal(lower.status, 400);
      const filter = await hub().admin('GET', '/v1/admin/organizations?jurisdiction=germany');
      assert.equal(filter.status, 400);
    });

    it('lets the organization and the operator change and clear both', async () => {
      const org = await hub().createOrg();
      const mine = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: { jurisdiction: 'SG', lei: LEI },
      });
      assert.equal(mine.status, 200, mine.text);
      assert.equal(mine.body.jurisdiction, 'SG');
      const bad = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: { lei: LEI_BAD_CHECK },
      });
      assert.equal(bad.status, 400);
      const cleared = await hub().admin('PATCH', `/v1/admin/organizations/${org.id}`, {
        jurisdiction: null,
        lei: null,
      });
      assert.equal(cleared.status, 200);
      assert.equal(cleared.body.jurisdiction, null);
      assert.equal(cleared.body.lei, null);
      const set = await hub().admin('PATCH', `/v1/admin/organizations/${org.id}`, { jurisdiction: 'CH' });
      assert.equal(set.body.jurisdiction, 'CH');
      assert.equal((await hub().admin('GET', `/v1/admin/organizations/${org.id}`)).body.jurisdiction, 'CH');
    });

    it('without jurisdictions: validate finds no rules and stores nothing, initiate is held to none (v1)', async () => {
      const beneficiary = await hub().createOrg({ travelEndpoint: 'https://b.example/travel' });
      const originator = await hub().createOrg();
      const res = await hub().request('POST', '/v1/transactions/validate', {
        key: originator.apiKey,
        body: mainRequest(beneficiary.vaspDid),
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { valid: true, regime: 'TRAVEL_RULE', rules: [], missing: [] });
      const list = await hub().request('GET', '/v1/transactions', { key: originator.apiKey });
      assert.equal(list.body.transactions.length, 0);
      const plain = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: mainRequest(beneficiary.vaspDid),
      });
      assert.equal(plain.status, 200);
      const held = await hub().request('GET', `/v1/transactions/${plain.body.transactionRef}/rules`, {
        key: originator.apiKey,
      });
      assert.deepEqual(held.body, { regime: null, rules: [] });
    });

    it('validate: Germany to the US at EUR 800, the EU rule applies and names what is missing', async () => {
      const beneficiary = await hub().createOrg({
        travelEndpoint: 'https://b.example/travel',
        jurisdiction: 'US',
      });
      const originator = await hub().createOrg({ jurisdiction: 'DE' });
      const body: Json = {
        ...mainRequest(beneficiary.vaspDid),
        transferValue: { amount: '800', currency: 'EUR' },
      };
      const res = await hub().request('POST', '/v1/transactions/validate', { key: originator.apiKey, body });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.valid, false);
      assert.equal(res.body.regime, 'TRAVEL_RULE');
      assert.deepEqual(
        res.body.rules.map((r: any) => [r.party, r.jurisdiction, r.entry, r.regime]),
        [
          ['originator', 'DE', 'EU', 'TRAVEL_RULE'],
          ['beneficiary', 'US', 'US', 'BELOW_THRESHOLD'],
        ],
      );
      assert.deepEqual(
        res.body.missing.map((m: any) => m.path),
        [ORIG],
      );
      assert.match(res.body.missing[0].message, /2023\/1113/);
      assert.ok(
        !res.text.includes('Muster') && !res.text.includes('C01X00T47'),
        'no personal data in the answer',
      );

      body.pii.originator.originatorPersons[0].naturalPerson.customerIdentification = 'CUST-1';
      const ok = await hub().request('POST', '/v1/transactions/validate', { key: originator.apiKey, body });
      assert.equal(ok.body.valid, true);

      // A dry run changes nothing: a key of the read scope may run it, not initiate.
      const reader = await hub().request('POST', '/v1/organizations/me/api-keys', {
        key: originator.apiKey,
        body: { scope: 'read' },
      });
      assert.equal(reader.status, 201, reader.text);
      const byReader = await hub().request('POST', '/v1/transactions/validate', {
        key: reader.body.apiKey,
        body,
      });
      assert.equal(byReader.status, 200, byReader.text);
      assert.deepEqual(byReader.body, ok.body);
      const initiated = await hub().request('POST', '/v1/transactions/initiate', {
        key: reader.body.apiKey,
        body,
      });
      assert.equal(initiated.status, 403);
    });

    it('validate refuses what initiate refuses, with 400', async () => {
      const org = await hub().createOrg({ jurisdiction: 'DE' });
      const body = {
        ...mainRequest('did:web:nowhere.example'),
        transferValue: { amount: '1e3', currency: 'eur' },
      };
      const res = await hub().request('POST', '/v1/transactions/validate', { key: org.apiKey, body });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.errors.map((e: any) => e.path).sort(), [
        '/transferValue/amount',
        '/transferValue/currency',
      ]);
    });

    it('initiate refuses a transfer missing required data with 422 RULES_NOT_MET, and accepts it complete', async () => {
      const beneficiary = await hub().createOrg({
        travelEndpoint: 'https://b.example/travel',
        jurisdiction: 'CA',
      });
      const originator = await hub().createOrg({ jurisdiction: 'US' });
      const body = mainRequest(beneficiary.vaspDid);
      delete body.pii.originator.originatorPersons[0].naturalPerson.geographicAddress;
      const res = await hub().request('POST', '/v1/transactions/initiate', { key: originator.apiKey, body });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.code, 'RULES_NOT_MET');
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.deepEqual(
        res.body.errors.map((e: any) => [e.path, /1010\.410|PCMLTFR/.test(e.message)]),
        [[`${ORIG}/geographicAddress`, true]],
      );
      const list = await hub().request('GET', '/v1/transactions', { key: originator.apiKey });
      assert.equal(list.body.transactions.length, 0, 'nothing stored');

      const complete = mainRequest(beneficiary.vaspDid);
      const ok = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: complete,
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.status, 'NEW');
      // Both parties see the rules the transfer was held to, with their sources; no one else does.
      const held = await hub().request('GET', `/v1/transactions/${ok.body.transactionRef}/rules`, {
        key: beneficiary.apiKey,
      });
      assert.equal(held.status, 200, held.text);
      assert.equal(held.body.regime, 'TRAVEL_RULE');
      assert.deepEqual(
        held.body.rules.map((r: any) => [r.party, r.entry, /\S/.test(r.source)]),
        [
          ['originator', 'US', true],
          ['beneficiary', 'CA', true],
        ],
      );
      const stranger = await hub().createOrg();
      const hidden = await hub().request('GET', `/v1/transactions/${ok.body.transactionRef}/rules`, {
        key: stranger.apiKey,
      });
      assert.equal(hidden.status, 404);
    });

    it('initiate below the threshold passes without the identity items the rule asks above it', async () => {
      const beneficiary = await hub().createOrg({
        travelEndpoint: 'https://b.example/travel',
      });
      const originator = await hub().createOrg({ jurisdiction: 'SG' });
      const body = mainRequest(beneficiary.vaspDid);
      const person = body.pii.originator.originatorPersons[0].naturalPerson;
      delete person.geographicAddress;
      delete person.nationalIdentification;
      // IVMS101 C1 wants one of these; Singapore's rule does not take a customer number.
      person.customerIdentification = 'CUST-7';
      const above = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: { ...body, transferValue: { amount: '1600', currency: 'SGD' } },
      });
      assert.equal(above.status, 422);
      const below = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: { ...body, transferValue: { amount: '1000', currency: 'USD' } },
      });
      // USD 1,000 has no rate to SGD in the operator's file: counted as above SGD 1,500.
      assert.equal(below.status, 422);
      const sgd = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: { ...body, transferValue: { amount: '1500', currency: 'SGD' } },
      });
      assert.equal(sgd.status, 200, sgd.text);
    });

    it('lists the rules table with its sources for members and the operator', async () => {
      const org = await hub().createOrg();
      const res = await hub().request('GET', '/v1/rules', { key: org.apiKey });
      assert.equal(res.status, 200);
      const eu = res.body.rules.find((r: any) => r.id === 'EU');
      assert.match(eu.source, /2023\/1113/);
      assert.ok(eu.countries.includes('DE'));
      assert.deepEqual(res.body.fxRates, { base: 'USD', date: '2026-11-27' });
      assert.equal((await hub().admin('GET', '/v1/admin/rules')).status, 200);
    });
  },
  { HUB_FX_RATES: ratesFile },
);
