// IVMS101 dialects through the HTTP API (SPEC §18), on PGlite and PostgreSQL: payloads written as
// other networks write them initiate, and reach a 2020 and a 2023 member with every name,
// identifier and account number; each organization's version; the check endpoint.
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { decryptFromHub } from '../../src/crypto/jwe.js';
import { eachBackend } from '../harness.js';
import { closeReceivers, DIALECTS, deliverConfirmed, identifying, members } from '../support/dialects.js';
import { eventually, verified } from '../support/receiver.js';
import { type Json, mainRequest, uniqueName } from '../support/requests.js';

after(closeReceivers);

eachBackend('IVMS101 dialects', (hub) => {
  const initiate = (key: string, body: Json) =>
    hub().request('POST', '/v1/transactions/initiate', { key, body });

  it('initiates every network’s dialect and delivers every name, identifier and account number in 2020 and 2023', async () => {
    const m = await members(hub());
    for (const dialect of DIALECTS) {
      for (const [member, path] of [
        [m.v2020, '/v2020'],
        [m.v2023, '/v2023'],
      ] as const) {
        const name = uniqueName();
        const account = `0x${name.toLowerCase()}`;
        const pii = dialect.pii(name, account);
        const data = await deliverConfirmed(hub(), m, member, pii, dialect.network);
        const delivered = JSON.stringify(data);
        for (const s of identifying(pii))
          assert.ok(delivered.includes(JSON.stringify(s)), `${dialect.network}: ${s} lost`);
        if (member === m.v2023) {
          assert.equal(data.payloadMetadata?.payloadVersion, '101.2023', dialect.network);
          const person = data.originator.originatorPerson[0];
          assert.deepEqual(person.accountNumber, [account], dialect.network);
          assert.ok(!Array.isArray(person.naturalPerson.name), 'one name object per person');
          assert.equal(person.naturalPerson.name.nameIdentifier[0].naturalPersonNameIdentifierType, 'LEGL');
        } else {
          assert.equal(data.payloadMetadata?.payloadVersion, undefined, dialect.network);
          assert.deepEqual(data.originator.accountNumber, [account], dialect.network);
          const person = data.originator.originatorPersons[0].naturalPerson;
          assert.ok(Array.isArray(person.name), 'the interface document’s name array');
          assert.equal(person.name[0].nameIdentifier[0].primaryIdentifier, name);
        }
        // The VASPs: as sent when the sender gave them, else filled in from the directory.
        assert.ok(data.originatingVASP?.originatingVASP?.legalPerson, dialect.network);
        assert.ok(data.beneficiaryVASP?.beneficiaryVASP?.legalPerson, dialect.network);
      }
    }
  });

  it('reads the detected version back, and writes /pii in the caller’s version or the one asked for', async () => {
    const m = await members(hub());
    const name = uniqueName();
    const dialect = DIALECTS.find((d) => d.version === '2023')!;
    const body = { ...mainRequest(m.v2023.vaspDid), pii: dialect.pii(name, '0xabc123') };
    const ref = (await initiate(m.originator.apiKey, body)).body.transactionRef;
    const mine = await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: m.originator.apiKey });
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(mine.body.pii.originator.accountNumber, ['0xabc123'], 'the originator reads 2020');
    assert.equal(
      mine.body.pii.originatingVASP.originatingVASP.legalPerson.name[0].nameIdentifier[0].legalPersonName,
      m.originator.name,
    );
    const as2023 = await hub().request('GET', `/v1/transactions/${ref}/pii?version=2023`, {
      key: m.originator.apiKey,
    });
    assert.equal(as2023.body.pii.originator.originatorPerson[0].accountNumber[0], '0xabc123');
    assert.equal(as2023.body.pii.payloadMetadata.payloadVersion, '101.2023');
    const bad = await hub().request('GET', `/v1/transactions/${ref}/pii?version=2021`, {
      key: m.originator.apiKey,
    });
    assert.equal(bad.status, 400);
    await hub().acknowledgeReceived(ref);
    await hub().request('POST', '/v1/transactions/confirm', {
      key: m.originator.apiKey,
      body: { transactionRef: ref },
    });
    const theirs = await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: m.v2023.apiKey });
    assert.equal(theirs.body.pii.payloadMetadata.payloadVersion, '101.2023', 'the 2023 member reads 2023');
    assert.equal(
      theirs.body.pii.beneficiaryVASP.beneficiaryVASP.legalPerson.name.nameIdentifier[0].legalPersonName,
      m.v2023.name,
    );
  });

  it('encrypts a BASIC received for a 2023 member in 2023', async () => {
    const m = await members(hub());
    const name = uniqueName();
    const body: Json = { ...mainRequest(m.v2023.vaspDid, name), protocol: 'BASIC' };
    const ref = (await initiate(m.originator.apiKey, body)).body.transactionRef;
    const request = await eventually(
      async () =>
        m.receiver
          .to('/v2023/v1/notify/received')
          .find((r) => verified(r, m.v2023.webhookSecret).transactionRef === ref),
      'received',
    );
    const jwe = verified(request, m.v2023.webhookSecret).ivms101_data.encryptedPii;
    const pii = (await decryptFromHub(m.keys.privateKeyPem, jwe)) as Json;
    assert.equal(
      pii.originator.originatorPerson[0].naturalPerson.name.nameIdentifier[0].primaryIdentifier,
      name,
    );
    assert.deepEqual(pii.originator.originatorPerson[0].accountNumber, body.pii.originator.accountNumber);
  });

  it('lets an organization and the operator set its version, and refuses any other', async () => {
    const m = await members(hub());
    const me = await hub().request('GET', '/v1/organizations/me', { key: m.originator.apiKey });
    assert.equal(me.body.ivms101Version, '2020', 'the default');
    const set = await hub().request('PATCH', '/v1/organizations/me', {
      key: m.originator.apiKey,
      body: { ivms101Version: '2023' },
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.ivms101Version, '2023');
    const bad = await hub().request('PATCH', '/v1/organizations/me', {
      key: m.originator.apiKey,
      body: { ivms101Version: '2019' },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].path, '/ivms101Version');
    const byOperator = await hub().admin('PATCH', `/v1/admin/organizations/${m.originator.id}`, {
      ivms101Version: '2020',
    });
    assert.equal(byOperator.status, 200, byOperator.text);
    assert.equal(byOperator.body.ivms101Version, '2020');
    const directory = await hub().request('GET', '/v1/organizations', { key: m.originator.apiKey });
    assert.equal(directory.body.organizations[0].ivms101Version, undefined, 'not in the directory');
    const audit = await hub().db.query(
      "SELECT details FROM audit_events WHERE action = 'organization.updated' AND subject_id = $1 ORDER BY id",
      [m.originator.id],
    );
    assert.deepEqual(
      audit.map((a: Json) => a.details.fields),
      [['ivms101Version'], ['ivms101Version']],
    );
  });

  it('names both paths when two spellings disagree, and a key it cannot place, at the caller’s path', async () => {
    const m = await members(hub());
    const body = mainRequest(m.v2020.vaspDid);
    const address = body.pii.originator.originatorPersons[0].naturalPerson.geographicAddress[0];
    address.post_code = '99999';
    const res = await initiate(m.originator.apiKey, body);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_FAILED');
    const at = '/pii/originator/originatorPersons/0/naturalPerson/geographicAddress/0';
    assert.deepEqual(res.body.errors, [
      {
        path: `${at}/post_code`,
        message: `conflicts with ${at}/postCode: two spellings of one element with different values`,
      },
    ]);
    const snake = { ...mainRequest(m.v2020.vaspDid), pii: DIALECTS[1]!.pii(uniqueName(), '0x1') };
    (snake.pii as Json).originator.originator_persons[0].natural_person.nickname = 'x';
    const unknown = await initiate(m.originator.apiKey, snake);
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body.errors, [
      { path: '/pii/originator/originator_persons/0/natural_person/nickname', message: 'unknown field' },
    ]);
  });

  it('checks a payload for any key, stores nothing, and shows it in either version', async () => {
    const m = await members(hub());
    const name = uniqueName();
    const payload = DIALECTS[3]!.pii(name, '0xfeed'); // CODE's PascalCase
    const count = async () => (await hub().db.query('SELECT count(*)::int AS n FROM transactions'))[0]!.n;
    const before = await count();
    const readKey = (
      await hub().request('POST', '/v1/organizations/me/api-keys', {
        key: m.originator.apiKey,
        body: { scope: 'read' },
      })
    ).body.apiKey;
    for (const key of [m.originator.apiKey, readKey, hub().adminKey]) {
      const res = await hub().request('POST', '/v1/ivms101/check', {
        key,
        body: { payload, version: '2023' },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.valid, true);
      assert.equal(res.body.detectedVersion, '2020');
      assert.deepEqual(res.body.errors, []);
      assert.equal(
        res.body.normalized.originator.originatorPerson[0].naturalPerson.name.nameIdentifier[0]
          .primaryIdentifier,
        name,
      );
      assert.equal(res.body.normalized.payloadMetadata.payloadVersion, '101.2023');
    }
    const detected = await hub().request('POST', '/v1/ivms101/check', { key: readKey, body: { payload } });
    assert.ok(
      Array.isArray(detected.body.normalized.originator.originatorPersons),
      'the detected version: 2020',
    );
    const broken = structuredClone(payload) as Json;
    broken.Originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth.dateOfBirth = '2999-01-01';
    broken.OriginatingVASP.originatingVASP.legalPerson.nationalIdentification = {
      nationalIdentifier: 'X',
      nationalIdentifierType: 'LEIX',
    };
    const res = await hub().request('POST', '/v1/ivms101/check', { key: readKey, body: { payload: broken } });
    assert.equal(res.body.valid, false);
    assert.deepEqual(res.body.errors.map((e: Json) => e.path).sort(), [
      '/payload/OriginatingVASP/originatingVASP/legalPerson/nationalIdentification/nationalIdentifier',
      '/payload/Originator/originatorPersons/0/naturalPerson/dateAndPlaceOfBirth/dateOfBirth',
    ]);
    // A payload with more problems than an answer lists (SPEC §13): 100, then truncated.
    const many = structuredClone(payload) as Json;
    for (let i = 0; i < 150; i++) many[`stray${i}`] = 1;
    const cut = await hub().request('POST', '/v1/ivms101/check', { key: readKey, body: { payload: many } });
    assert.equal(cut.status, 200, cut.text);
    assert.equal(cut.body.valid, false);
    assert.equal(cut.body.errors.length, 100);
    assert.equal(cut.body.truncated, true);
    assert.equal(res.body.truncated, undefined, 'only when problems were left out');
    assert.equal(
      (await hub().request('POST', '/v1/ivms101/check', { key: null, body: { payload } })).status,
      401,
    );
    const junk = await hub().request('POST', '/v1/ivms101/check', {
      key: readKey,
      body: { payload, extra: 1 },
    });
    assert.equal(junk.status, 400);
    const audit = await hub().db.query(
      'SELECT count(*)::int AS n FROM audit_events WHERE details::text LIKE $1',
      [`%${name}%`],
    );
    assert.equal(audit[0]!.n, 0, 'nothing of the payload is kept');
    assert.equal(await count(), before, 'no transaction');
    assert.ok(!hub().allLogs().includes(name), 'the payload is never logged');
  });
});
