import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { configure } from 'safe-stable-stringify';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { purgeIdempotent } from '../../src/idempotency/store.js';
import { openReason } from '../../src/transactions/reasons.js';
import { eachBackend, type OrgFixture, type TestHub } from '../harness.js';
import {
  asDelivered,
  basicRequest,
  type Json,
  mainRequest,
  notifyRequest,
  uniqueName,
} from '../support/requests.js';

const stableJson = configure({ deterministic: true, strict: true });

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : [],
  );
}

function assertProblem(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code, JSON.stringify(res.body));
}

eachBackend(
  'transactions',
  (hub, backend) => {
    let originator: OrgFixture;
    let beneficiary: OrgFixture;
    let stranger: OrgFixture;
    const setup = async () => {
      if (originator) return;
      originator = await hub().createOrg({ travelEndpoint: 'https://originator.example' });
      beneficiary = await hub().createOrg({
        travelEndpoint: 'https://beneficiary.example',
        publicKey: generateParticipantKeyPair().publicKeyPem,
      });
      stranger = await hub().createOrg({ travelEndpoint: 'https://stranger.example' });
    };
    const initiate = (body: Json, key = originator.apiKey, headers?: Record<string, string>) =>
      hub().request('POST', '/v1/transactions/initiate', { key, body, headers });
    /** Sends JSON text as it is, for what JSON.stringify cannot produce. */
    const sendRaw = (method: string, path: string, text: string) =>
      hub().request(method, path, {
        key: originator.apiKey,
        raw: text,
        headers: { 'content-type': 'application/json' },
      });
    const post = (path: string, key: string, body: Json) =>
      hub().request('POST', `/v1/transactions/${path}`, { key, body });
    const read = (ref: string, key: string) => hub().request('GET', `/v1/transactions/${ref}`, { key });

    /** A MAIN transaction moved to CONFIRMED by acknowledgement and the originator's confirm. */
    async function confirmedMain() {
      const ref = (await initiate(mainRequest(beneficiary.vaspDid))).body.transactionRef;
      await hub().acknowledgeReceived(ref);
      assert.equal((await post('confirm', originator.apiKey, { transactionRef: ref })).status, 200);
      return ref;
    }

    it('initiates a MAIN transaction and answers with the interface document’s fields', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid);
      const res = await initiate(body);
      assert.equal(res.status, 200, res.text);
      assert.match(res.body.transactionRef, /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        { ...res.body, transactionRef: 'x' },
        {
          transactionRef: 'x',
          status: 'NEW',
          protocol: 'MAIN',
          transactionAsset: 'ETH-USDC',
          transactionAmount: '1250.500001',
          beneficiaryVASPid: beneficiary.id,
          beneficiaryVASPdid: beneficiary.vaspDid,
          destination: body.transactionBlockchainInfo.destination,
        },
      );
      const outbox = await hub().db.query(
        'SELECT event, organization_id, payload FROM deliveries WHERE transaction_ref = $1',
        [res.body.transactionRef],
      );
      assert.equal(outbox.length, 1, 'the received webhook is queued with the transaction');
      assert.equal(outbox[0]!.event, 'received');
      assert.equal(outbox[0]!.organization_id, beneficiary.id);
    });

    it('initiates BASIC for a beneficiary with a public key and NOTIFY for an exchange outside the directory', async () => {
      await setup();
      const basic = await initiate(basicRequest(beneficiary.vaspDid));
      assert.equal(basic.status, 200, basic.text);
      assert.equal(basic.body.protocol, 'BASIC');
      const outsider = randomUUID();
      const notify = await initiate(notifyRequest(outsider));
      assert.equal(notify.status, 200, notify.text);
      assert.equal(notify.body.beneficiaryVASPid, outsider);
      assert.equal(notify.body.beneficiaryVASPdid, null);
      const mail = await hub().db.query(
        'SELECT channel, email_to FROM deliveries WHERE transaction_ref = $1',
        [notify.body.transactionRef],
      );
      assert.deepEqual(mail, [{ channel: 'email', email_to: 'compliance@unlisted-exchange.example' }]);
      const outsiderDid = 'did:web:unlisted-exchange.example';
      const both = await initiate({ ...notifyRequest(outsider), beneficiaryVASPdid: outsiderDid });
      assert.equal(both.status, 200, both.text);
      assert.equal(both.body.beneficiaryVASPdid, outsiderDid, 'an id and DID outside the directory are kept');
      const listed = await initiate({
        ...notifyRequest(beneficiary.id),
        beneficiaryVASPdid: beneficiary.vaspDid,
      });
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.beneficiaryVASPdid, beneficiary.vaspDid);
    });

    it('refuses strings with U+0000, which the database cannot store, as 400 naming the field', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid);
      body.transactionBlockchainInfo.destination = 'bc1q\u0000x';
      const before = await hub().db.query('SELECT count(*)::int AS n FROM transactions');
      const res = await initiate(body);
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.errors, [
        {
          path: '/transactionBlockchainInfo/destination',
          message: 'must not contain the NUL character (\\u0000)',
        },
      ]);
      const after = await hub().db.query('SELECT count(*)::int AS n FROM transactions');
      assert.equal(after[0]!.n, before[0]!.n, 'nothing was stored');
      const query = await hub().request('GET', '/v1/organizations?vaspDid=a%00b', { key: originator.apiKey });
      assertProblem(query, 400, 'VALIDATION_FAILED');
      const text = JSON.stringify({ ...mainRequest(beneficiary.vaspDid), note: 'x' }).replace(
        '"note":"x"',
        '"no\\u0000te":"x"',
      );
      const key = await sendRaw('POST', '/v1/transactions/initiate', text);
      assertProblem(key, 400, 'VALIDATION_FAILED');
      assert.equal(key.body.errors[0].path, '/no\u0000te');
      assert.doesNotMatch(hub().allLogs(), /"level":50/, 'nothing was logged as an unhandled error');
    });

    it('refuses a prototype key (__proto__, constructor.prototype) as 400 naming where it is', async () => {
      await setup();
      const text = JSON.stringify(mainRequest(beneficiary.vaspDid)).replace(
        '"pii":{',
        '"pii":{"__proto__":{"x":1},',
      );
      const res = await sendRaw('POST', '/v1/transactions/initiate', text);
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.errors, [
        { path: '/pii/__proto__', message: 'is not allowed (a prototype key)' },
      ]);
      const nested = await sendRaw(
        'PATCH',
        '/v1/organizations/me',
        '{"name":"x","constructor":{"prototype":{"y":1}}}',
      );
      assertProblem(nested, 400, 'VALIDATION_FAILED');
      assert.deepEqual(nested.body.errors, [
        { path: '/constructor/prototype', message: 'is not allowed (a prototype key)' },
      ]);
    });

    it('answers an unknown protocol or role with one problem naming the allowed values', async () => {
      await setup();
      const res = await initiate({ ...mainRequest(beneficiary.vaspDid), protocol: 'EXPRESS' });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.errors, [
        { path: '/protocol', message: 'must be one of MAIN, BASIC, NOTIFY, TRP' },
      ]);
      const list = await hub().request('GET', '/v1/transactions?role=broker', { key: originator.apiKey });
      assertProblem(list, 400, 'VALIDATION_FAILED');
      assert.deepEqual(list.body.errors, [
        { path: '/querystring/role', message: 'must be one of originator, beneficiary' },
      ]);
    });

    it('rejects an initiation lacking a field its protocol needs, and a field it does not use', async () => {
      await setup();
      const main = mainRequest(beneficiary.vaspDid);
      delete main.beneficiaryVASPdid;
      main.notificationEmail = 'x@y.example';
      const res = await initiate(main);
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.errors.map((e: any) => e.path).sort(), [
        '/beneficiaryVASPdid',
        '/notificationEmail',
      ]);

      const notify = notifyRequest(randomUUID());
      delete notify.beneficiaryVASPid;
      delete notify.notificationEmail;
      const res2 = await initiate(notify);
      assertProblem(res2, 400, 'VALIDATION_FAILED');
      assert.deepEqual(res2.body.errors.map((e: any) => e.path).sort(), [
        '/beneficiaryVASPid',
        '/notificationEmail',
      ]);

      for (const field of [
        'transactionAsset',
        'transactionAssetDecimals',
        'transactionAmount',
        'protocol',
        'pii',
      ]) {
        const body = mainRequest(beneficiary.vaspDid);
        delete body[field];
        const r = await initiate(body);
        assertProblem(r, 400, 'VALIDATION_FAILED');
        assert.ok(
          r.body.errors.some((e: any) => e.path === `/${field}`),
          `${field}: ${JSON.stringify(r.body.errors)}`,
        );
      }
      const noDestination = mainRequest(beneficiary.vaspDid);
      delete noDestination.transactionBlockchainInfo.destination;
      const r = await initiate(noDestination);
      assert.ok(r.body.errors.some((e: any) => e.path === '/transactionBlockchainInfo/destination'));
    });

    it('reports every problem of a bad request at once, with JSON pointers and without echoing data', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid, 'Secretname');
      body.transactionAsset = 'ETHUSDC';
      body.transactionAmount = 12.5;
      body.beneficiaryVASPdid = 'not-a-did';
      body.colour = 'blue';
      body.pii.originator.originatorPersons[0].naturalPerson.geographicAddress[0].country = 'QQ';
      body.pii.beneficiary.beneficiaryPersons[0].naturalPerson.name[0].nameIdentifier[0].primaryIdentifier =
        '';
      const res = await initiate(body);
      assertProblem(res, 400, 'VALIDATION_FAILED');
      const paths = res.body.errors.map((e: any) => e.path).sort();
      assert.deepEqual(paths, [
        '/beneficiaryVASPdid',
        '/colour',
        '/pii/beneficiary/beneficiaryPersons/0/naturalPerson/name/0/nameIdentifier/0/primaryIdentifier',
        '/pii/originator/originatorPersons/0/naturalPerson/geographicAddress/0/country',
        '/transactionAmount',
        '/transactionAsset',
      ]);
      assert.ok(!res.text.includes('Secretname') && !res.text.includes('QQ'), res.text);
    });

    it('checks decimals against the asset table and amounts as exact decimal strings', async () => {
      await setup();
      const cases: [Json, string][] = [
        [{ transactionAssetDecimals: 18 }, '/transactionAssetDecimals'],
        [{ transactionAmount: '1.1234567' }, '/transactionAmount'],
        [{ transactionAmount: '0' }, '/transactionAmount'],
        [{ transactionAmount: '01.5' }, '/transactionAmount'],
        [{ transactionAmount: '1e5' }, '/transactionAmount'],
        [{ transactionAssetDecimals: '6' }, '/transactionAssetDecimals'],
        [{ transactionAssetDecimals: 37 }, '/transactionAssetDecimals'],
      ];
      for (const [change, path] of cases) {
        const res = await initiate({ ...mainRequest(beneficiary.vaspDid), ...change });
        assertProblem(res, 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          res.body.errors.map((e: any) => e.path),
          [path],
          JSON.stringify(change),
        );
      }
      const huge = `${'9'.repeat(60)}.123456`;
      const ok = await initiate({ ...mainRequest(beneficiary.vaspDid), transactionAmount: huge });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.transactionAmount, huge, 'amounts are echoed exactly');
      const unknownAsset = await initiate({
        ...mainRequest(beneficiary.vaspDid),
        transactionAsset: 'NEWCHAIN-TOKEN',
        transactionAssetDecimals: 3,
        transactionAmount: '5.125',
      });
      assert.equal(unknownAsset.status, 200, 'unknown assets are accepted');
    });

    it('answers 422 UNKNOWN_COUNTERPARTY for beneficiaries it cannot deliver to', async () => {
      await setup();
      const catalogued = await hub().createOrg();
      const cases: Json[] = [
        mainRequest('did:web:nobody.example'),
        { ...mainRequest(beneficiary.vaspDid), beneficiaryVASPid: stranger.id },
        mainRequest(originator.vaspDid),
        mainRequest(catalogued.vaspDid),
        basicRequest(stranger.vaspDid),
        { ...notifyRequest(randomUUID()), beneficiaryVASPdid: beneficiary.vaspDid },
        { ...notifyRequest(beneficiary.id), beneficiaryVASPdid: 'did:web:someone-else.example' },
        notifyRequest(originator.id),
      ];
      for (const body of cases) assertProblem(await initiate(body), 422, 'UNKNOWN_COUNTERPARTY');
    });

    it('shows a transaction to its parties only, with history and without personal data', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid);
      const name =
        body.pii.originator.originatorPersons[0].naturalPerson.name[0].nameIdentifier[0].primaryIdentifier;
      const ref = (await initiate(body)).body.transactionRef;
      for (const key of [originator.apiKey, beneficiary.apiKey]) {
        const res = await read(ref, key);
        assert.equal(res.status, 200);
        assert.equal(res.body.status, 'NEW');
        assert.equal(res.body.originatorVASPdid, originator.vaspDid);
        assert.equal(res.body.transactionAssetDecimals, 6);
        assert.deepEqual(res.body.transactionBlockchainInfo, body.transactionBlockchainInfo);
        assert.deepEqual(
          res.body.history.map((h: any) => [h.status, h.actor]),
          [['NEW', originator.vaspDid]],
        );
        assert.match(res.body.history[0].at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.ok(Math.abs(Date.parse(res.body.history[0].at) - Date.now()) < 60_000);
        assert.ok(!res.text.includes(name) && !('pii' in res.body));
      }
      assertProblem(await read(ref, stranger.apiKey), 404, 'NOT_FOUND');
      assertProblem(await read(randomUUID(), originator.apiKey), 404, 'NOT_FOUND');
    });

    it('takes a reference in either case, and answers 400 (not 500) for ids, cursors and dates the database cannot take', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid);
      const ref: string = (await initiate(body)).body.transactionRef;
      const upper = ref.toUpperCase();
      assert.equal((await read(upper, originator.apiKey)).body.transactionRef, ref);
      // The personal data is sealed to the ref as issued; the path's spelling must not matter.
      const pii = await hub().request('GET', `/v1/transactions/${upper}/pii`, { key: originator.apiKey });
      assert.equal(pii.status, 200, pii.text);
      assert.equal(pii.body.transactionRef, ref);
      assert.deepEqual(pii.body.pii, asDelivered(body.pii, originator, beneficiary));

      const cursor = (at: unknown, id: unknown) =>
        Buffer.from(JSON.stringify([at, id])).toString('base64url');
      const bad: [string, string, Json?][] = [
        ['GET', `/v1/transactions/urn:uuid:${ref}`],
        ['GET', `/v1/transactions/urn:uuid:${ref}/pii`],
        ['POST', '/v1/transactions/confirm', { transactionRef: `urn:uuid:${ref}` }],
        ['GET', `/v1/webhooks/deliveries?transactionRef=urn:uuid:${ref}`],
        ['GET', '/v1/transactions?createdAfter=0000-01-01T00:00:00Z'],
        ['GET', `/v1/transactions?cursor=${cursor('2026-01-01T00:00:00Z', '-'.repeat(36))}`],
        ['GET', `/v1/transactions?cursor=${cursor('1', ref)}`],
        ['GET', `/v1/transactions?cursor=${cursor('0000-01-01T00:00:00.000Z', ref)}`],
        ['GET', `/v1/webhooks/deliveries?cursor=${cursor('2026-01-01T00:00:00.000000Z', `urn:uuid:${ref}`)}`],
      ];
      for (const [method, path, json] of bad) {
        const res = await hub().request(method, path, { key: originator.apiKey, body: json });
        assertProblem(res, 400, 'VALIDATION_FAILED');
      }
      const notify = { ...notifyRequest(randomUUID()), beneficiaryVASPid: `urn:uuid:${randomUUID()}` };
      assertProblem(await initiate(notify), 400, 'VALIDATION_FAILED');
      assertProblem(
        await hub().request('GET', `/v1/admin/organizations/urn:uuid:${originator.id}`, {
          key: hub().adminKey,
        }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('lists the caller’s transactions newest first with filters and keyset pages', async () => {
      await setup();
      const a = await hub().createOrg({ travelEndpoint: 'https://a.example' });
      const b = await hub().createOrg({ travelEndpoint: 'https://b.example' });
      const refs: string[] = [];
      for (let i = 0; i < 5; i++) {
        refs.push((await initiate(mainRequest(b.vaspDid), a.apiKey)).body.transactionRef);
      }
      refs.push((await initiate(notifyRequest(randomUUID()), a.apiKey)).body.transactionRef);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `&cursor=${cursor}` : '';
        const page: any = await hub().request('GET', `/v1/transactions?role=originator&limit=2${q}`, {
          key: a.apiKey,
        });
        assert.equal(page.status, 200, page.text);
        assert.ok(page.body.transactions.length <= 2);
        seen.push(...page.body.transactions.map((t: any) => t.transactionRef));
        cursor = page.body.nextCursor;
      } while (cursor);
      assert.deepEqual(seen, [...refs].reverse());
      const asBeneficiary = await hub().request('GET', '/v1/transactions?role=beneficiary', {
        key: b.apiKey,
      });
      assert.equal(asBeneficiary.body.transactions.length, 5);
      const notify = await hub().request('GET', '/v1/transactions?protocol=NOTIFY', { key: a.apiKey });
      assert.deepEqual(
        notify.body.transactions.map((t: any) => t.transactionRef),
        [refs[5]],
      );
      assert.equal(
        (await hub().request('GET', '/v1/transactions', { key: stranger.apiKey })).body.transactions.length,
        0,
      );
      assertProblem(
        await hub().request('GET', '/v1/transactions?limit=0', { key: a.apiKey }),
        400,
        'VALIDATION_FAILED',
      );
      assertProblem(
        await hub().request('GET', '/v1/transactions?cursor=bogus', { key: a.apiKey }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('pages through transactions that share one instant (one database transaction’s now()) without skipping any', async () => {
      await setup();
      const a = await hub().createOrg({ travelEndpoint: 'https://a.example' });
      const refs: string[] = [];
      for (let i = 0; i < 5; i++) {
        refs.push((await initiate(notifyRequest(randomUUID()), a.apiKey)).body.transactionRef);
      }
      // A batch written in one database transaction shares its created_at, to the microsecond.
      await hub().db.query(
        `UPDATE transactions SET created_at = '2026-03-01T10:00:00.123456Z' WHERE originator_id = $1`,
        [a.id],
      );
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `&cursor=${cursor}` : '';
        const page: any = await hub().request('GET', `/v1/transactions?limit=2${q}`, { key: a.apiKey });
        assert.equal(page.status, 200, page.text);
        seen.push(...page.body.transactions.map((t: any) => t.transactionRef));
        cursor = page.body.nextCursor;
      } while (cursor);
      assert.deepEqual([...seen].sort(), [...refs].sort(), 'every transaction, once');
    });

    it('confirms a MAIN transaction once the receiver was notified, and only by the originator', async () => {
      await setup();
      const ref = (await initiate(mainRequest(beneficiary.vaspDid))).body.transactionRef;
      const early = await post('confirm', originator.apiKey, { transactionRef: ref });
      assertProblem(early, 409, 'INVALID_STATE');
      assert.match(early.body.detail, /NEW/);
      await hub().acknowledgeReceived(ref);
      assert.equal((await read(ref, originator.apiKey)).body.status, 'RECEIVER_NOTIFIED');
      assertProblem(await post('confirm', beneficiary.apiKey, { transactionRef: ref }), 403, 'FORBIDDEN');
      assertProblem(await post('confirm', stranger.apiKey, { transactionRef: ref }), 404, 'NOT_FOUND');
      const ok = await post('confirm', originator.apiKey, { transactionRef: ref });
      assert.deepEqual(ok.body, { transactionRef: ref, status: 'CONFIRMED', protocol: 'MAIN' });
      const again = await post('confirm', originator.apiKey, { transactionRef: ref });
      assertProblem(again, 409, 'INVALID_STATE');
      assert.match(again.body.detail, /CONFIRMED/);
      const events = await hub().db.query(
        'SELECT event FROM deliveries WHERE transaction_ref = $1 ORDER BY seq',
        [ref],
      );
      assert.deepEqual(
        events.map((e) => e.event),
        ['received', 'confirmed-data'],
      );
      const history = (await read(ref, beneficiary.apiKey)).body.history;
      assert.deepEqual(
        history.map((h: any) => [h.status, h.actor]),
        [
          ['NEW', originator.vaspDid],
          ['RECEIVER_NOTIFIED', 'hub'],
          ['CONFIRMED', originator.vaspDid],
        ],
      );
    });

    it('confirms BASIC by itself on delivery and refuses confirm for BASIC and NOTIFY', async () => {
      await setup();
      const basic = (await initiate(basicRequest(beneficiary.vaspDid))).body.transactionRef;
      await hub().acknowledgeReceived(basic);
      const tx = await read(basic, originator.apiKey);
      assert.equal(tx.body.status, 'CONFIRMED');
      assert.deepEqual(
        tx.body.history.map((h: any) => h.status),
        ['NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED'],
      );
      assertProblem(
        await post('confirm', originator.apiKey, { transactionRef: basic }),
        409,
        'INVALID_STATE',
      );
      const notify = (await initiate(notifyRequest(randomUUID()))).body.transactionRef;
      const res = await post('confirm', originator.apiKey, { transactionRef: notify });
      assertProblem(res, 409, 'INVALID_STATE');
      assert.match(res.body.detail, /NOTIFY/);
    });

    it('declines a CONFIRMED transaction by the beneficiary only, once, with the reason recorded', async () => {
      await setup();
      const reason = { category: 'SANCTIONS_MATCH', description: 'Listed on a sanctions list.' };
      const fresh = (await initiate(mainRequest(beneficiary.vaspDid))).body.transactionRef;
      const early = await post('decline', beneficiary.apiKey, { transactionRef: fresh, reason });
      assertProblem(early, 409, 'INVALID_STATE');
      assert.match(early.body.detail, /NEW/);

      const ref = await confirmedMain();
      assertProblem(
        await post('decline', originator.apiKey, { transactionRef: ref, reason }),
        403,
        'FORBIDDEN',
      );
      assertProblem(
        await post('decline', stranger.apiKey, { transactionRef: ref, reason }),
        404,
        'NOT_FOUND',
      );
      const ok = await post('decline', beneficiary.apiKey, { transactionRef: ref, reason });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.status, 'DECLINED');
      assert.deepEqual(ok.body.reason, reason);
      assert.equal(typeof ok.body.message, 'string');
      const twice = await post('decline', beneficiary.apiKey, { transactionRef: ref, reason });
      assertProblem(twice, 409, 'INVALID_STATE');
      assert.match(twice.body.detail, /DECLINED/);

      const tx = await read(ref, originator.apiKey);
      assert.deepEqual(tx.body.declineReason, reason);
      assert.equal(tx.body.history.at(-1).status, 'DECLINED');
      // Recorded for audit with the history row, sealed like personal data (SPEC §13).
      const rows = await hub().db.query(
        "SELECT sealed_reason FROM transaction_history WHERE transaction_ref = $1 AND status = 'DECLINED'",
        [ref],
      );
      assert.deepEqual(openReason(hub().masterKey, ref, rows[0]!.sealed_reason as Uint8Array), reason);
      const declined = await hub().db.query(
        "SELECT organization_id, payload FROM deliveries WHERE transaction_ref = $1 AND event = 'declined'",
        [ref],
      );
      assert.equal(declined[0]!.organization_id, originator.id);
      // The reason is added at send time from the sealed copy (the webhook suites check the body).
      assert.deepEqual(declined[0]!.payload, {
        transactionRef: ref,
        status: 'DECLINED',
        beneficiaryVASPdid: beneficiary.vaspDid,
      });
    });

    it('accepts only the eight decline categories and a non-empty description', async () => {
      await setup();
      const ref = await confirmedMain();
      const bad = await post('decline', beneficiary.apiKey, {
        transactionRef: ref,
        reason: { category: 'I_DONT_LIKE_IT', description: ' ' },
      });
      assertProblem(bad, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        bad.body.errors.map((e: any) => e.path),
        ['/reason/category', '/reason/description'],
      );
      assert.match(bad.body.errors[0].message, /SANCTIONS_MATCH/);
      const missing = await post('decline', beneficiary.apiKey, {
        transactionRef: ref,
        reason: { category: 'USER_REQUEST' },
      });
      assertProblem(missing, 400, 'VALIDATION_FAILED');
      assert.equal(
        (await read(ref, originator.apiKey)).body.status,
        'CONFIRMED',
        'a rejected decline changes nothing',
      );
    });

    it('sets txHash once through the originator, and not after a decline', async () => {
      await setup();
      const ref = (await initiate(mainRequest(beneficiary.vaspDid))).body.transactionRef;
      const set = await post('tx-hash', originator.apiKey, { transactionRef: ref, txHash: '0xabc' });
      assert.deepEqual(set.body, { transactionRef: ref, txHash: '0xabc', status: 'NEW' });
      assert.equal(
        (await post('tx-hash', originator.apiKey, { transactionRef: ref, txHash: '0xabc' })).status,
        200,
      );
      assertProblem(
        await post('tx-hash', originator.apiKey, { transactionRef: ref, txHash: '0xdef' }),
        409,
        'ALREADY_EXISTS',
      );
      assertProblem(
        await post('tx-hash', beneficiary.apiKey, { transactionRef: ref, txHash: '0xabc' }),
        403,
        'FORBIDDEN',
      );
      const events = await hub().db.query(
        "SELECT count(*)::int AS n FROM deliveries WHERE transaction_ref = $1 AND event = 'tx-hash'",
        [ref],
      );
      assert.equal(events[0]!.n, 1, 'a repeated hash queues nothing new');
      assert.equal((await read(ref, beneficiary.apiKey)).body.transactionBlockchainInfo.txHash, '0xabc');

      const declined = await confirmedMain();
      await post('decline', beneficiary.apiKey, {
        transactionRef: declined,
        reason: { category: 'USER_REQUEST', description: 'Customer cancelled.' },
      });
      assertProblem(
        await post('tx-hash', originator.apiKey, { transactionRef: declined, txHash: '0x1' }),
        409,
        'INVALID_STATE',
      );
    });

    it('replays the first answer for a repeated Idempotency-Key and refuses it for another body', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid);
      const key = { 'idempotency-key': `k-${randomUUID()}` };
      const first = await initiate(body, originator.apiKey, key);
      const second = await initiate(body, originator.apiKey, key);
      assert.equal(second.status, 200);
      assert.deepEqual(second.body, first.body);
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const third = await initiate(reordered, originator.apiKey, key);
      assert.equal(third.status, 200, 'the same members in another order are the same body');
      assert.deepEqual(third.body, first.body);
      const rows = await hub().db.query(
        'SELECT count(*)::int AS n FROM transactions WHERE originator_id = $1 AND amount = $2',
        [originator.id, body.transactionAmount],
      );
      const before = rows[0]!.n;
      await initiate(body, originator.apiKey, key);
      const after = await hub().db.query(
        'SELECT count(*)::int AS n FROM transactions WHERE originator_id = $1 AND amount = $2',
        [originator.id, body.transactionAmount],
      );
      assert.equal(after[0]!.n, before, 'a replay creates nothing');
      const other = await initiate({ ...body, transactionAmount: '1' }, originator.apiKey, key);
      assertProblem(other, 409, 'IDEMPOTENCY_CONFLICT');
      const otherOrg = await initiate(mainRequest(beneficiary.vaspDid), stranger.apiKey, key);
      assert.equal(otherOrg.status, 200, 'keys are scoped to the organization');
      assert.notEqual(otherOrg.body.transactionRef, first.body.transactionRef);
      // The stored fingerprint is keyed: not the plain SHA-256 of what was sent (personal data
      // included), which anyone holding the database could test guesses against.
      const [stored] = await hub().db.query<{ request_hash: Uint8Array }>(
        'SELECT request_hash FROM idempotency_keys WHERE organization_id = $1 AND idempotency_key = $2',
        [originator.id, key['idempotency-key']],
      );
      const plain = createHash('sha256')
        .update(`/v1/transactions/initiate\n${stableJson(body)}`)
        .digest();
      assert.equal(Buffer.from(stored!.request_hash).length, 32);
      assert.notDeepEqual(Buffer.from(stored!.request_hash), plain);
    });

    it('writes a keyed initiation with its record in one go, and runs a key whose record expired anew', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid);
      const key = `one-go-${randomUUID()}`;
      const first = await initiate(body, originator.apiKey, { 'idempotency-key': key });
      assert.equal(first.status, 200, first.text);
      const stored = await hub().db.query<{ response: Json; failed: boolean }>(
        'SELECT response, failed FROM idempotency_keys WHERE organization_id = $1 AND idempotency_key = $2',
        [originator.id, key],
      );
      assert.deepEqual(stored, [{ response: first.body, failed: false }]);
      const outbox = await hub().db.query('SELECT event FROM deliveries WHERE transaction_ref = $1', [
        first.body.transactionRef,
      ]);
      assert.deepEqual(outbox, [{ event: 'received' }], 'the message was written with it');

      // An expired record of the same key: the request runs again and takes the key over.
      await hub().db.query(
        `UPDATE idempotency_keys SET created_at = now() - interval '25 hours'
          WHERE organization_id = $1 AND idempotency_key = $2`,
        [originator.id, key],
      );
      const again = await initiate(body, originator.apiKey, { 'idempotency-key': key });
      assert.equal(again.status, 200, again.text);
      assert.notEqual(again.body.transactionRef, first.body.transactionRef);
      const replay = await initiate(body, originator.apiKey, { 'idempotency-key': key });
      assert.equal(replay.body.transactionRef, again.body.transactionRef);
    });

    it('runs an expired key anew exactly once when its retries race (and the purge runs)', async () => {
      await setup();
      for (let round = 0; round < 5; round++) {
        const body = mainRequest(beneficiary.vaspDid);
        const key = `expired-race-${randomUUID()}`;
        const headers = { 'idempotency-key': key };
        assert.equal((await initiate(body, originator.apiKey, headers)).status, 200);
        await hub().db.query(
          `UPDATE idempotency_keys SET created_at = now() - interval '25 hours'
            WHERE organization_id = $1 AND idempotency_key = $2`,
          [originator.id, key],
        );
        // As a minute later: the next keyed command starts the purge of expired records.
        (hub().hub.transactions as unknown as { lastPurge: number }).lastPurge = 0;
        const count = async () =>
          (
            await hub().db.query<{ n: number }>(
              'SELECT count(*)::int AS n FROM transactions WHERE originator_id = $1',
              [originator.id],
            )
          )[0]!.n;
        const before = await count();
        const answers = await Promise.all(
          Array.from({ length: 30 }, async (_, i) => {
            await new Promise((resolve) => setTimeout(resolve, i % 15));
            return initiate(body, originator.apiKey, headers);
          }),
        );
        assert.equal((await count()) - before, 1, `round ${round}: one transaction`);
        assert.equal(
          new Set(answers.map((a) => `${a.status}:${a.body.transactionRef}`)).size,
          1,
          `round ${round}: one answer for all`,
        );
      }
    });

    it('remembers a keyed initiation’s refusal and replays it', async () => {
      await setup();
      const body = mainRequest('did:web:nobody-here.example');
      const key = { 'idempotency-key': `refused-${randomUUID()}` };
      const first = await initiate(body, originator.apiKey, key);
      assertProblem(first, 422, 'UNKNOWN_COUNTERPARTY');
      const again = await initiate(body, originator.apiKey, key);
      assertProblem(again, 422, 'UNKNOWN_COUNTERPARTY');
      const stored = await hub().db.query<{ failed: boolean }>(
        'SELECT failed FROM idempotency_keys WHERE organization_id = $1 AND idempotency_key = $2',
        [originator.id, key['idempotency-key']],
      );
      assert.deepEqual(stored, [{ failed: true }]);
    });

    it('creates exactly one transaction for concurrent requests with the same Idempotency-Key', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid);
      const key = { 'idempotency-key': `race-${randomUUID()}` };
      const results = await Promise.all(
        Array.from({ length: 5 }, () => initiate(body, originator.apiKey, key)),
      );
      assert.ok(
        results.every((r) => r.status === 200),
        results.map((r) => r.status).join(','),
      );
      assert.equal(new Set(results.map((r) => r.body.transactionRef)).size, 1);
    });

    it('answers concurrent retries of a confirm with one Idempotency-Key with the first answer, not 409', async () => {
      await setup();
      const ref = (await initiate(mainRequest(beneficiary.vaspDid))).body.transactionRef;
      await hub().acknowledgeReceived(ref);
      const headers = { 'idempotency-key': `confirm-${randomUUID()}` };
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          hub().request('POST', '/v1/transactions/confirm', {
            key: originator.apiKey,
            body: { transactionRef: ref },
            headers,
          }),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        [200, 200, 200, 200, 200, 200],
        results.map((r) => r.text).join('\n'),
      );
      assert.deepEqual(new Set(results.map((r) => r.text)).size, 1);
      const history = (await read(ref, originator.apiKey)).body.history.map((h: any) => h.status);
      assert.deepEqual(history, ['NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED'], 'confirmed once');
    });

    it('replays a refusal too: a retry with the same key never does later what the first was refused', async () => {
      await setup();
      const ref = (await initiate(mainRequest(beneficiary.vaspDid))).body.transactionRef;
      await hub().acknowledgeReceived(ref);
      const decline = () =>
        hub().request('POST', '/v1/transactions/decline', {
          key: beneficiary.apiKey,
          body: { transactionRef: ref, reason: { category: 'POLICY_VIOLATION', description: 'Too early.' } },
          headers: { 'idempotency-key': `decline-${ref}` },
        });
      const first = await decline(); // declining needs CONFIRMED: refused
      assertProblem(first, 409, 'INVALID_STATE');
      assert.equal((await post('confirm', originator.apiKey, { transactionRef: ref })).status, 200);
      const retry = await decline();
      assertProblem(retry, 409, 'INVALID_STATE');
      assert.equal(retry.body.detail, first.body.detail);
      assert.equal(
        (await read(ref, originator.apiKey)).body.status,
        'CONFIRMED',
        'the retry changed nothing',
      );
      const withoutKey = await post('decline', beneficiary.apiKey, {
        transactionRef: ref,
        reason: { category: 'POLICY_VIOLATION', description: 'Now.' },
      });
      assert.equal(withoutKey.status, 200, 'a new request (no key) is judged anew');
    });

    it('audits a txHash set by confirm as it does one set by the tx-hash command', async () => {
      await setup();
      const ref = (await initiate(mainRequest(beneficiary.vaspDid))).body.transactionRef;
      await hub().acknowledgeReceived(ref);
      const res = await post('confirm', originator.apiKey, { transactionRef: ref, txHash: '0xconfirmhash' });
      assert.equal(res.status, 200, res.text);
      const audit = await hub().db.query(
        `SELECT actor FROM audit_events WHERE action = 'transaction.tx_hash_set' AND subject_id = $1`,
        [ref],
      );
      assert.deepEqual(audit, [{ actor: `org:${originator.id}` }]);
    });

    it('deletes Idempotency-Key records once they expire, and only those', async () => {
      await setup();
      const key = { 'idempotency-key': `purge-${randomUUID()}` };
      assert.equal((await initiate(mainRequest(beneficiary.vaspDid), originator.apiKey, key)).status, 200);
      await hub().db.query(
        `INSERT INTO idempotency_keys (organization_id, idempotency_key, request_hash, response, created_at)
         VALUES ($1, $2, '\\x00', '{}', now() - interval '25 hours')`,
        [originator.id, `expired-${randomUUID()}`],
      );
      const count = async (sql: string) => (await hub().db.query<{ n: number }>(sql, [originator.id]))[0]!.n;
      const expired = `SELECT count(*)::int AS n FROM idempotency_keys
                        WHERE organization_id = $1 AND created_at <= now() - interval '24 hours'`;
      const live = `SELECT count(*)::int AS n FROM idempotency_keys
                     WHERE organization_id = $1 AND created_at > now() - interval '24 hours'`;
      const liveBefore = await count(live);
      assert.ok((await count(expired)) >= 1);
      assert.ok((await purgeIdempotent(hub().db, 10_000)) >= 1);
      assert.equal(await count(expired), 0);
      assert.equal(await count(live), liveBefore);
    });

    it('keeps each of many concurrent initiations with its own personal data', async () => {
      await setup();
      // Names of different lengths: the sealed blobs differ in size within one group commit.
      const bodies = Array.from({ length: 12 }, (_, i) =>
        mainRequest(beneficiary.vaspDid, `Concurrent${'x'.repeat(i * 7)}${randomUUID().slice(0, 8)}`),
      );
      const refs = (await Promise.all(bodies.map((b) => initiate(b)))).map((r) => {
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.transactionRef as string;
      });
      for (const [i, ref] of refs.entries()) {
        const mine = await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: originator.apiKey });
        assert.deepEqual(mine.body, {
          transactionRef: ref,
          pii: asDelivered(bodies[i]!.pii, originator, beneficiary),
        });
      }
    });

    it('lets exactly one of 20 concurrent declines win', async () => {
      await setup();
      const ref = await confirmedMain();
      const reason = { category: 'POLICY_VIOLATION', description: 'Concurrent decline.' };
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          post('decline', beneficiary.apiKey, { transactionRef: ref, reason }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, ...Array(19).fill(409)]);
      assert.ok(results.filter((r) => r.status === 409).every((r) => r.body.code === 'INVALID_STATE'));
      const rows = await hub().db.query(
        "SELECT count(*)::int AS n FROM transaction_history WHERE transaction_ref = $1 AND status = 'DECLINED'",
        [ref],
      );
      assert.equal(rows[0]!.n, 1);
      const messages = await hub().db.query(
        "SELECT count(*)::int AS n FROM deliveries WHERE transaction_ref = $1 AND event = 'declined'",
        [ref],
      );
      assert.equal(messages[0]!.n, 1);
    });

    it('serves personal data to the originator always and to the beneficiary once CONFIRMED, auditing each read', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid);
      const ref = (await initiate(body)).body.transactionRef;
      const mine = await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: originator.apiKey });
      assert.equal(mine.status, 200);
      assert.deepEqual(mine.body, {
        transactionRef: ref,
        pii: asDelivered(body.pii, originator, beneficiary),
      });
      assert.equal(mine.headers.get('cache-control'), 'no-store', 'no browser or proxy keeps a copy');
      const read = await hub().request('GET', `/v1/transactions/${ref}`, { key: originator.apiKey });
      assert.equal(read.headers.get('cache-control'), 'no-store');
      assertProblem(
        await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: beneficiary.apiKey }),
        403,
        'FORBIDDEN',
      );
      assertProblem(
        await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: stranger.apiKey }),
        404,
        'NOT_FOUND',
      );
      await hub().acknowledgeReceived(ref);
      await post('confirm', originator.apiKey, { transactionRef: ref });
      const theirs = await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: beneficiary.apiKey });
      assert.deepEqual(theirs.body.pii, asDelivered(body.pii, originator, beneficiary));
      const audit = await hub().db.query(
        "SELECT actor, details FROM audit_events WHERE action = 'transaction.pii_read' AND subject_id = $1 ORDER BY id",
        [ref],
      );
      assert.deepEqual(
        audit.map((a) => [a.actor, (a.details as { role: string }).role, (a.details as Json).ivms101Version]),
        [
          [`org:${originator.id}`, 'originator', '2020'],
          [`org:${beneficiary.id}`, 'beneficiary', '2020'],
        ],
      );
    });

    it('keeps personal data out of the database in clear, out of logs and out of errors', async () => {
      await setup();
      const body = mainRequest(beneficiary.vaspDid);
      const name =
        body.pii.originator.originatorPersons[0].naturalPerson.name[0].nameIdentifier[0].primaryIdentifier;
      const ref = (await initiate(body)).body.transactionRef;
      const bad = await initiate({ ...body, transactionAmount: 'lots' });
      assert.ok(!bad.text.includes(name));
      await read(ref, originator.apiKey);
      assert.ok(!hub().allLogs().includes(name), 'no log line carries the name');
      const dump = await hub().db.query('SELECT t::text AS row FROM transactions t');
      assert.ok(dump.length > 0);
      assert.ok(!dump.some((r) => String(r.row).includes(name)), 'transactions rows');
      for (const table of ['transaction_history', 'deliveries', 'audit_events', 'idempotency_keys']) {
        const rows = await hub().db.query(`SELECT t::text AS row FROM ${table} t`);
        assert.ok(!rows.some((r) => String(r.row).includes(name)), table);
      }
      if (backend === 'pglite') {
        await hub().stop(); // flush everything PGlite holds to its data directory
        const files = listFiles(hub().config.dataDir);
        assert.ok(files.length > 100, 'the data directory holds the database');
        const needle = Buffer.from(name);
        const hits = files.filter((f) => readFileSync(f).includes(needle));
        const control = Buffer.from(body.transactionBlockchainInfo.destination);
        const controlHits = files.filter((f) => readFileSync(f).includes(control));
        await hub().start();
        assert.deepEqual(hits, [], 'no file in the PGlite data directory holds the name');
        assert.ok(
          controlHits.length > 0,
          'the search does see data stored in clear (the destination address)',
        );
      }
    });

    it('keeps a decline reason sealed at rest, and shows it to the parties and in a replayed answer', async () => {
      await setup();
      const ref = await confirmedMain();
      const description = `Listed as ${uniqueName()} on the sanctions list`;
      const reason = { category: 'SANCTIONS_MATCH', description };
      const key = { 'Idempotency-Key': `decline-${ref}` };
      const declined = await hub().request('POST', '/v1/transactions/decline', {
        key: beneficiary.apiKey,
        body: { transactionRef: ref, reason },
        headers: key,
      });
      assert.equal(declined.status, 200, declined.text);
      assert.deepEqual(declined.body.reason, reason);
      for (const table of [
        'transactions',
        'transaction_history',
        'deliveries',
        'idempotency_keys',
        'audit_events',
      ]) {
        const rows = await hub().db.query(`SELECT t::text AS row FROM ${table} t`);
        assert.ok(
          !rows.some((r) => String(r.row).includes(description)),
          `${table} holds the reason in clear`,
        );
      }
      const again = await hub().request('POST', '/v1/transactions/decline', {
        key: beneficiary.apiKey,
        body: { transactionRef: ref, reason },
        headers: key,
      });
      assert.deepEqual(again.body, declined.body, 'the replayed answer is the first one');
      for (const party of [originator, beneficiary]) {
        assert.deepEqual((await read(ref, party.apiKey)).body.declineReason, reason);
      }
      const listed = await hub().request('GET', '/v1/transactions?status=DECLINED', {
        key: originator.apiKey,
      });
      assert.deepEqual(
        listed.body.transactions.find((t: Json) => t.transactionRef === ref)?.declineReason,
        reason,
      );
    });
  },
  // Deliveries are driven by hand here (acknowledgeReceived); the delivery suites test the worker.
  { HUB_WORKER: 'false' },
);
