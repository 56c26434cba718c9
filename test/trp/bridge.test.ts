/**
 * The TRP bridge end to end (SPEC §16): two hubs, each the other's TRP peer over mutual TLS with
 * certificates made here, carry transfers from a member of one to a member of the other (approve,
 * reject, cancel after approval); a stand-alone HTTPS peer plays a TRP VASP that is down at first
 * and decides later through the callback; raw clients check the listener's refusals. Webhooks are
 * verified as the participants would.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { createServer as createHttpsServer, request as httpsRequest, type Server } from 'node:https';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { type Leaf, TestCa } from '../../scripts/certs.js';
import { decryptFromHub, generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { decodeTravelAddress, encodeTravelAddress } from '../../src/trp/travel-address.js';
import { backendSkip, type OrgFixture, type TestHub } from '../harness.js';
import { DIALECTS } from '../support/dialects.js';
import { eventually, Receiver, verified } from '../support/receiver.js';
import { asDelivered, basicRequest, type Json, uniqueName } from '../support/requests.js';
import { freePort, inquiryBody, trpHub } from '../support/trp-peer.js';

const ca = TestCa.create('trp');
const rogue = TestCa.create('rogue');
const client = ca.issue('raw-client');
const stranger = rogue.issue('stranger');
const receivers: Receiver[] = [];
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  ca.remove();
  rogue.remove();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: a peer's JSON answer, read field by field in the assertions
  body: any;
}

/** One HTTPS request as a TRP peer makes it: its client certificate (if any), the TRP headers. */
function trpCall(
  url: string,
  opts: {
    method?: string;
    cert?: Leaf | null;
    headers?: Record<string, string>;
    body?: unknown;
    raw?: string;
  },
): Promise<Answer> {
  const cert = opts.cert === undefined ? client : opts.cert;
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: opts.method ?? 'POST',
        ca: ca.cert,
        ...(cert ? { cert: cert.cert, key: cert.key } : {}),
        headers: {
          ...(opts.method === 'GET'
            ? {}
            : {
                'api-version': '3.2.1',
                'request-identifier': randomUUID(),
                'content-type': 'application/json; charset=utf-8',
              }),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function trpRequest(travelAddress: string, name = uniqueName()): Json {
  const { transactionBlockchainInfo, beneficiaryVASPdid, ...rest } = basicRequest(
    'did:web:unused.example',
    name,
  );
  return {
    ...rest,
    protocol: 'TRP',
    transactionAsset: 'ETH-USDC',
    transactionAssetDecimals: 6,
    transactionAmount: '12.5',
    travelAddress,
    transactionBlockchainInfo: { origin: transactionBlockchainInfo.origin },
  };
}

for (const backend of ['pglite', 'postgres'] as const) {
  describe(`TRP bridge between two hubs [${backend}]`, {
    skip: await backendSkip(backend, 'TRP bridge between two hubs'),
  }, () => {
    let a: TestHub;
    let b: TestHub;
    let receiver: Receiver;
    let alice: OrgFixture; // a member of hub A: the originator
    let bob: OrgFixture; // a member of hub B: the beneficiary
    const bobKeys = generateParticipantKeyPair();

    before(async () => {
      [a, b] = await Promise.all([trpHub(backend, ca, 'hub-a'), trpHub(backend, ca, 'hub-b')]);
      receiver = await Receiver.start();
      receivers.push(receiver);
      alice = await a.createOrg({ travelEndpoint: `${receiver.url}/alice` });
      bob = await b.createOrg({ travelEndpoint: `${receiver.url}/bob`, publicKey: bobKeys.publicKeyPem });
    });
    after(async () => {
      await Promise.all([a?.destroy(), b?.destroy()]);
    });

    const mint = async (hub: TestHub, key: string, body?: Json) => {
      const res = await hub.request('POST', '/v1/travel-addresses', { key, ...(body ? { body } : {}) });
      assert.equal(res.status, 201, res.text);
      return res.body as { id: string; travelAddress: string; url: string };
    };
    const status = async (hub: TestHub, key: string, ref: string) =>
      (await hub.request('GET', `/v1/transactions/${ref}`, { key })).body;
    /** B records the delivery of `received` (RECEIVER_NOTIFIED) once the receiver's answer is in. */
    const notifiedOnB = (ref: string) =>
      eventually(async () => {
        const t = await status(b, bob.apiKey, ref);
        return t.status === 'RECEIVER_NOTIFIED' && t;
      }, 'B notified');
    /** The `received` webhook on B for a transfer whose originator is named `name`. */
    const receivedFor = async (name: string) =>
      eventually(async () => {
        for (const r of receiver.to('/bob/v1/notify/received')) {
          const payload = verified(r, bob.webhookSecret);
          const pii = await decryptFromHub(bobKeys.privateKeyPem, payload.ivms101_data.encryptedPii);
          if (JSON.stringify(pii).includes(name)) return { payload, pii };
        }
        return undefined;
      }, `received for ${name}`);

    /** A transfer from Alice (hub A) to Bob's new travel address (hub B), once Bob has its `received`. */
    const sendToBob = async () => {
      const ta = (await mint(b, bob.apiKey)).travelAddress;
      const name = uniqueName();
      const started = await a.request('POST', '/v1/transactions/initiate', {
        key: alice.apiKey,
        body: trpRequest(ta, name),
      });
      assert.equal(started.status, 200, started.text);
      const refB = (await receivedFor(name)).payload.transactionRef as string;
      return { refA: started.body.transactionRef as string, refB };
    };
    /** The same, once B has recorded the delivery of `received` (RECEIVER_NOTIFIED). */
    const transferToBob = async () => {
      const refs = await sendToBob();
      await notifiedOnB(refs.refB);
      return refs;
    };

    it('pages through travel addresses that share one instant without skipping any', async () => {
      const org = await b.createOrg({
        travelEndpoint: `${receiver.url}/pager`,
        publicKey: generateParticipantKeyPair().publicKeyPem,
      });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await mint(b, org.apiKey)).id);
      await b.db.query(
        `UPDATE travel_addresses SET created_at = '2026-03-01T10:00:00.654321Z' WHERE organization_id = $1`,
        [org.id],
      );
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `&cursor=${cursor}` : '';
        const page: Json = await b.request('GET', `/v1/travel-addresses?limit=2${q}`, { key: org.apiKey });
        assert.equal(page.status, 200, page.text);
        seen.push(...page.body.travelAddresses.map((t: Json) => t.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      assert.deepEqual([...seen].sort(), [...ids].sort(), 'every address, once');
    });

    it('mints, lists and revokes travel addresses; a revoked one takes no inquiry', async () => {
      const minted = await mint(b, bob.apiKey, {
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      });
      assert.equal(decodeTravelAddress(minted.travelAddress).url, minted.url);
      assert.match(minted.url, new RegExp(`^${b.config.trp!.publicUrl}/ta/[\\w-]{22}\\?t=i$`));
      const list = await b.request('GET', '/v1/travel-addresses', { key: bob.apiKey });
      assert.ok(list.body.travelAddresses.some((t: Json) => t.id === minted.id && t.expiresAt));

      const past = await b.request('POST', '/v1/travel-addresses', {
        key: bob.apiKey,
        body: { expiresAt: '2020-01-01T00:00:00Z' },
      });
      assert.equal(past.status, 400);
      assert.deepEqual(past.body.errors, [{ path: '/expiresAt', message: 'must be in the future' }]);
      const keyless = await b.createOrg({ travelEndpoint: `${receiver.url}/keyless` });
      const refused = await b.request('POST', '/v1/travel-addresses', { key: keyless.apiKey });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'FORBIDDEN');
      assert.equal(
        (await b.request('DELETE', `/v1/travel-addresses/${minted.id}`, { key: keyless.apiKey })).status,
        404,
      );

      const revoked = await b.request('DELETE', `/v1/travel-addresses/${minted.id}`, { key: bob.apiKey });
      assert.equal(revoked.status, 200);
      assert.ok(revoked.body.revokedAt);
      const late = await trpCall(minted.url, { body: inquiryBody(`${a.config.trp!.publicUrl}/cb`) });
      assert.equal(late.status, 404);
      const audit = await b.db.query(`SELECT action FROM audit_events WHERE subject_id = $1 ORDER BY id`, [
        minted.id,
      ]);
      assert.deepEqual(
        audit.map((r) => r.action),
        ['travel_address.created', 'travel_address.revoked'],
      );
    });

    it('carries a transfer from A to B: inquiry with encrypted data, approval with the address, the hash', async () => {
      const ta = (await mint(b, bob.apiKey)).travelAddress;
      const name = uniqueName();
      const body = trpRequest(ta, name);
      const started = await a.request('POST', '/v1/transactions/initiate', { key: alice.apiKey, body });
      assert.equal(started.status, 200, started.text);
      const bPort = new URL(b.config.trp!.publicUrl).port;
      assert.deepEqual(started.body, {
        transactionRef: started.body.transactionRef,
        status: 'NEW',
        protocol: 'TRP',
        transactionAsset: 'ETH-USDC',
        transactionAmount: '12.5',
        beneficiaryVASPid: null,
        beneficiaryVASPdid: `did:web:127.0.0.1%3A${bPort}`,
        destination: null,
      });
      const refA = started.body.transactionRef as string;

      const { payload, pii } = await receivedFor(name);
      const aPort = new URL(a.config.trp!.publicUrl).port;
      assert.equal(payload.protocol, 'TRP');
      assert.equal(payload.status, 'RECEIVER_NOTIFIED');
      assert.equal(payload.originatorVASPdid, `did:web:127.0.0.1%3A${aPort}`);
      assert.equal(payload.transactionAsset, 'ETH-USDC');
      assert.equal(payload.transactionAmount, '12.5');
      assert.equal(payload.transactionAssetDecimals, 6);
      assert.deepEqual(payload.ivms101_data.transactionBlockchainInfo, {});
      // As Alice sent it, with both VASPs: Alice's named by hub A, Bob's filled in by hub B (SPEC §18).
      assert.deepEqual(pii, asDelivered(body.pii, alice, bob));
      const refB = payload.transactionRef as string;
      await eventually(
        async () => (await status(a, alice.apiKey, refA)).status === 'RECEIVER_NOTIFIED',
        'A notified',
      );
      const seenByBob = await notifiedOnB(refB);
      assert.equal(seenByBob.protocol, 'TRP');
      assert.equal(seenByBob.destination, null);
      assert.equal(seenByBob.trp.direction, 'inbound');
      assert.match(seenByBob.trp.peer.certificateSubject, /CN=hub-a/);
      // Both sides index the customers' names with the transfer (an inbound one may be screened at once).
      const found = async (hub: typeof a, key: string) =>
        (await hub.request('GET', `/v1/transactions?customer=${name}`, { key })).body.transactions.map(
          (t: Json) => t.transactionRef,
        );
      assert.deepEqual(await found(b, bob.apiKey), [refB]);
      assert.deepEqual(await found(a, alice.apiKey), [refA]);
      // The peer's /identity is read once the inquiry is in.
      await eventually(
        async () =>
          (await status(b, bob.apiKey, refB)).trp.peer.name === `Travel Rule Hub at 127.0.0.1:${aPort}`,
        'identity read',
      );
      const audit = await b.db.query(
        'SELECT actor, action, details FROM audit_events WHERE subject_id = $1 ORDER BY id',
        [refB],
      );
      assert.deepEqual(
        audit.map((r) => [r.actor, r.action]),
        [
          [`trp:127.0.0.1:${aPort}`, 'trp.inquiry_received'],
          ['hub', 'trp.peer_identified'],
        ],
      );
      assert.match(String((audit[0]!.details as Json).certificateSubject), /CN=hub-a/);

      // Only the beneficiary approves, once.
      const byAlice = await a.request('POST', '/v1/transactions/approve', {
        key: alice.apiKey,
        body: { transactionRef: refA, address: '0xabc' },
      });
      assert.equal(byAlice.status, 403);
      const address = '0x2222222222222222222222222222222222222222';
      const approved = await b.request('POST', '/v1/transactions/approve', {
        key: bob.apiKey,
        body: { transactionRef: refB, address },
      });
      assert.equal(approved.status, 200, approved.text);
      assert.deepEqual(approved.body, {
        transactionRef: refB,
        status: 'CONFIRMED',
        protocol: 'TRP',
        address,
      });
      const again = await b.request('POST', '/v1/transactions/approve', {
        key: bob.apiKey,
        body: { transactionRef: refB, address },
      });
      assert.equal(again.status, 409);

      await receiver.waitFor((r) => r.to('/alice/v1/notify/approved').length > 0, 10_000, 'approved');
      const approval = receiver
        .to('/alice/v1/notify/approved')
        .map((r) => verified(r, alice.webhookSecret))
        .find((p) => p.transactionRef === refA);
      assert.deepEqual(approval, { transactionRef: refA, status: 'CONFIRMED', address });
      const seenByAlice = await status(a, alice.apiKey, refA);
      assert.equal(seenByAlice.status, 'CONFIRMED');
      assert.equal(seenByAlice.destination, address);
      assert.equal(seenByAlice.trp.direction, 'outbound');
      assert.equal(seenByAlice.trp.travelAddress, ta);
      // A reads B's /identity too; lists carry the TRP side as reads do.
      const bName = `Travel Rule Hub at 127.0.0.1:${new URL(b.config.trp!.publicUrl).port}`;
      await eventually(
        async () => (await status(a, alice.apiKey, refA)).trp.peer.name === bName,
        'B identified',
      );
      const listed = await a.request('GET', '/v1/transactions?protocol=TRP', { key: alice.apiKey });
      const row = listed.body.transactions.find((t: Json) => t.transactionRef === refA);
      assert.equal(row.trp.peer.name, bName);

      const hash = `0x${'ab'.repeat(32)}`;
      const shared = await a.request('POST', '/v1/transactions/tx-hash', {
        key: alice.apiKey,
        body: { transactionRef: refA, txHash: hash },
      });
      assert.equal(shared.status, 200, shared.text);
      await receiver.waitFor(
        (r) =>
          r.to('/bob/v1/notify/tx-hash').some((x) => verified(x, bob.webhookSecret).transactionRef === refB),
        10_000,
        'tx-hash on B',
      );
      assert.equal((await status(b, bob.apiKey, refB)).transactionBlockchainInfo.txHash, hash);
      // Personal data never sits in either hub's outbox or logs.
      for (const hub of [a, b]) {
        const rows = await hub.db.query('SELECT payload::text AS p FROM deliveries');
        assert.ok(!rows.some((r) => String(r.p).includes(name)), 'no personal data in the outbox');
        assert.ok(!hub.allLogs().includes(name), 'no personal data in the logs');
      }
      // Request logs name the paths, with the travel address's token masked.
      const token = /\/ta\/([\w-]+)/.exec(decodeTravelAddress(ta).url)![1]!;
      assert.match(b.allLogs(), /"url":"\/ta\/\[token\]\?t=i"/);
      assert.ok(!b.allLogs().includes(token), 'the travel address token is not logged');
    });

    it('a decline on B reaches A as `declined` with the reason as the peer wrote it', async () => {
      const { refA, refB } = await transferToBob();
      await eventually(
        async () => (await status(a, alice.apiKey, refA)).status === 'RECEIVER_NOTIFIED',
        'notified',
      );
      const declined = await b.request('POST', '/v1/transactions/decline', {
        key: bob.apiKey,
        body: {
          transactionRef: refB,
          reason: { category: 'SANCTIONS_MATCH', description: 'The beneficiary is not our customer.' },
        },
      });
      assert.equal(declined.status, 200, declined.text);
      await receiver.waitFor(
        (r) =>
          r
            .to('/alice/v1/notify/declined')
            .some((x) => verified(x, alice.webhookSecret).transactionRef === refA),
        10_000,
        'declined on A',
      );
      const payload = receiver
        .to('/alice/v1/notify/declined')
        .map((r) => verified(r, alice.webhookSecret))
        .find((p) => p.transactionRef === refA);
      assert.deepEqual(payload, {
        transactionRef: refA,
        status: 'DECLINED',
        reason: { category: 'COMPLIANCE_CHECK_FAILED', description: 'The beneficiary is not our customer.' },
        beneficiaryVASPdid: `did:web:127.0.0.1%3A${new URL(b.config.trp!.publicUrl).port}`,
      });
      assert.equal((await status(a, alice.apiKey, refA)).status, 'DECLINED');
    });

    it('takes Bob’s answer from his `received` handler, before B has its delivery: the answer proves he was told', async () => {
      for (const answer of ['approve', 'decline'] as const) {
        // Bob's receiver answers `received` only after he has answered the transfer.
        receiver.script('/bob/v1/notify/received', { status: 200, delayMs: 1500 });
        const { refA, refB } = await sendToBob();
        assert.equal((await status(b, bob.apiKey, refB)).status, 'NEW');
        const res =
          answer === 'approve'
            ? await b.request('POST', '/v1/transactions/approve', {
                key: bob.apiKey,
                body: { transactionRef: refB, address: 'bc1qanswerbeforerecord' },
              })
            : await b.request('POST', '/v1/transactions/decline', {
                key: bob.apiKey,
                body: {
                  transactionRef: refB,
                  reason: { category: 'COMPLIANCE_CHECK_FAILED', description: 'No such customer.' },
                },
              });
        assert.equal(res.status, 200, res.text);
        const final = answer === 'approve' ? 'CONFIRMED' : 'DECLINED';
        await eventually(async () => (await status(a, alice.apiKey, refA)).status === final, `A ${final}`);
        // The delivery, recorded after the answer, moves nothing.
        await eventually(async () => {
          const [row] = await b.db.query(
            `SELECT status FROM deliveries WHERE transaction_ref = $1 AND event = 'received'`,
            [refB],
          );
          return row?.status === 'DELIVERED';
        }, '`received` recorded as delivered');
        const onB = await status(b, bob.apiKey, refB);
        assert.deepEqual(
          onB.history.map((h: Json) => [h.status, h.actor]),
          [
            ['NEW', `did:web:127.0.0.1%3A${new URL(a.config.trp!.publicUrl).port}`],
            ['RECEIVER_NOTIFIED', 'hub'],
            [final, bob.vaspDid],
          ],
        );
      }
    });

    it('a cancel after approval reaches B as `cancelled`, with the originator’s reason', async () => {
      const { refA, refB } = await transferToBob();
      await b.request('POST', '/v1/transactions/approve', {
        key: bob.apiKey,
        body: { transactionRef: refB, address: 'bc1qexampleaddress' },
      });
      await eventually(
        async () => (await status(a, alice.apiKey, refA)).status === 'CONFIRMED',
        'A confirmed',
      );
      const cancelled = await a.request('POST', '/v1/transactions/cancel', {
        key: alice.apiKey,
        body: { transactionRef: refA, reason: 'Customer withdrew the order.' },
      });
      assert.equal(cancelled.status, 200, cancelled.text);
      await receiver.waitFor(
        (r) =>
          r
            .to('/bob/v1/notify/cancelled')
            .some((x) => verified(x, bob.webhookSecret).transactionRef === refB),
        10_000,
        'cancelled on B',
      );
      const onB = await status(b, bob.apiKey, refB);
      assert.equal(onB.status, 'CANCELLED');
      assert.equal(onB.cancelReason, 'Customer withdrew the order.');
      const history = onB.history.map((h: Json) => h.status);
      assert.deepEqual(history, ['NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED', 'CANCELLED']);
    });

    it('answers a repeated request-identifier from the same peer with the first answer, making one transfer', async () => {
      const minted = await mint(b, bob.apiKey);
      const rid = randomUUID();
      const message = inquiryBody('https://127.0.0.1:9/callback');
      const first = await trpCall(minted.url, { headers: { 'request-identifier': rid }, body: message });
      const second = await trpCall(minted.url, { headers: { 'request-identifier': rid }, body: message });
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, { version: '3.2.1' });
      assert.equal(first.headers['request-identifier'], rid);
      assert.equal(first.headers['api-version'], '3.2.1');
      assert.equal(second.status, 200);
      assert.deepEqual(second.body, first.body);
      const rows = await b.db.query(
        'SELECT count(*)::int AS n FROM trp_transfers WHERE request_identifier = $1',
        [rid],
      );
      assert.equal(rows[0]!.n, 1);
    });

    it('reads an inquiry in another network’s dialect, and gives Bob its data in his own IVMS101 version', async () => {
      const minted = await mint(b, bob.apiKey);
      await b.request('PATCH', '/v1/organizations/me', { key: bob.apiKey, body: { ivms101Version: '2023' } });
      try {
        const name = uniqueName();
        const message = inquiryBody('https://127.0.0.1:9/callback');
        // TRISA's protobuf JSON: snake_case keys and enum names, the VASP wrapped.
        message.IVMS101 = DIALECTS.find((d) => d.network.startsWith('TRISA protobuf'))!.pii(name, '0xfeed01');
        const answer = await trpCall(minted.url, {
          headers: { 'request-identifier': randomUUID() },
          body: message,
        });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        const pii = (await receivedFor(name)).pii as Json;
        const sender = pii.originator.originatorPerson[0];
        assert.equal(sender.naturalPerson.name.nameIdentifier[0].primaryIdentifier, name);
        assert.equal(sender.naturalPerson.name.nameIdentifier[0].naturalPersonNameIdentifierType, 'LEGL');
        assert.deepEqual(sender.accountNumber, ['0xfeed01']);
        assert.equal(pii.payloadMetadata.payloadVersion, '101.2023');
        assert.equal(
          pii.beneficiaryVASP.beneficiaryVASP.legalPerson.name.nameIdentifier[0].legalPersonName,
          bob.name,
        );
        // A problem in the IVMS101 comes back at the path as the peer spelled it.
        const broken = inquiryBody('https://127.0.0.1:9/callback');
        broken.IVMS101 = {
          Originator: {
            originator_persons: [
              { natural_person: { name: { name_identifiers: [{ secondary_identifier: 'x' }] } } },
            ],
          },
        };
        const refused = await trpCall(minted.url, {
          headers: { 'request-identifier': randomUUID() },
          body: broken,
        });
        assert.equal(refused.status, 422);
        assert.ok(
          JSON.stringify(refused.body).includes(
            '/IVMS101/Originator/originator_persons/0/natural_person/name/name_identifiers/0/primaryIdentifier',
          ),
          JSON.stringify(refused.body),
        );
      } finally {
        await b.request('PATCH', '/v1/organizations/me', {
          key: bob.apiKey,
          body: { ivms101Version: '2020' },
        });
      }
    });

    it('closes a connection with an untrusted client certificate at the TLS layer, answers a POST without one 401; discovery is open', async () => {
      const minted = await mint(b, bob.apiKey);
      const body = inquiryBody('https://127.0.0.1:9/callback');
      assert.equal((await trpCall(minted.url, { cert: null, body })).status, 401);
      await assert.rejects(trpCall(minted.url, { cert: stranger, body }), /ECONNRESET|socket hang up|EPIPE/);
      await assert.rejects(
        trpCall(`${b.config.trp!.publicUrl}/identity`, { method: 'GET', cert: stranger }),
        /ECONNRESET|socket hang up|EPIPE/,
      );
      const base = b.config.trp!.publicUrl;
      const identity = await trpCall(`${base}/identity`, { method: 'GET', cert: null });
      assert.equal(identity.status, 200);
      assert.match(identity.body.x509, /^-----BEGIN CERTIFICATE-----/);
      assert.deepEqual((await trpCall(`${base}/extensions`, { method: 'GET', cert: null })).body, {
        required: [],
        supported: [],
      });
      assert.equal((await trpCall(`${base}/version`, { method: 'GET', cert: null })).body.version, '3.2.1');
      const count = await b.db.query(
        'SELECT count(*)::int AS n FROM trp_transfers WHERE travel_address = $1',
        [minted.travelAddress],
      );
      assert.equal(count[0]!.n, 0, 'a refused inquiry makes no transfer');
    });

    it('refuses bad headers and bodies in TRP’s terms, without echoing what was sent', async () => {
      const { url } = await mint(b, bob.apiKey);
      const name = uniqueName();
      const body = inquiryBody('https://127.0.0.1:9/callback', name);
      assert.equal((await trpCall(url, { headers: { 'api-version': '2.1.0' }, body })).status, 400);
      assert.equal((await trpCall(url, { headers: { 'request-identifier': 'nope' }, body })).status, 400);
      assert.equal((await trpCall(url, { headers: { 'content-type': 'text/plain' }, body })).status, 415);
      assert.equal(
        (await trpCall(url, { headers: { 'api-extensions': 'message-signing' }, body })).status,
        501,
      );
      assert.equal((await trpCall(url, { raw: '{"asset":' })).status, 400);
      const withoutTag = await trpCall(url.replace('?t=i', ''), { body: { ...body, amount: 12.5 } });
      assert.equal(
        withoutTag.status,
        200,
        'the path without ?t=i is the same address; a JSON number is whole units',
      );

      const bad = await trpCall(url, {
        body: {
          ...body,
          asset: { slip0044: 999_999 },
          amount: '-1',
          IVMS101: { ...body.IVMS101, originator: { originatorPersons: [{ naturalPerson: { name } }] } },
        },
      });
      assert.equal(bad.status, 422);
      const paths = bad.body.problems.map((p: Json) => p.path);
      assert.ok(paths.includes('/amount'), JSON.stringify(bad.body));
      assert.ok(!JSON.stringify(bad.body).includes(name), 'personal data is not echoed');
      const unknownAsset = await trpCall(url, { body: { ...body, asset: { slip0044: 999_999 } } });
      assert.equal(unknownAsset.status, 422);
      assert.deepEqual(unknownAsset.body.problems, [
        { path: '/asset', message: 'is not an asset this hub knows' },
      ]);
    });
  });

  describe(`TRP bridge toward a peer that is down, then decides later [${backend}]`, {
    skip: await backendSkip(backend, 'TRP bridge toward a peer that is down'),
  }, () => {
    let a: TestHub;
    let receiver: Receiver;
    let alice: OrgFixture;
    let peer: Server | undefined;
    let port: number;
    before(async () => {
      // Retries come quickly, and run out only long after the peer is up.
      a = await trpHub(backend, ca, 'hub-a2', { HUB_RETRY_SCHEDULE: '200ms,200ms,200ms,30s,30s' });
      receiver = await Receiver.start();
      receivers.push(receiver);
      alice = await a.createOrg({ travelEndpoint: `${receiver.url}/alice` });
    });
    after(async () => {
      peer?.closeAllConnections();
      await new Promise<void>((resolve) => (peer ? peer.close(() => resolve()) : resolve()));
      await a?.destroy();
    });

    it('retries the inquiry until the peer is up, takes its later approval, and sends it the hash', async () => {
      port = await freePort();
      const ta = encodeTravelAddress(`https://127.0.0.1:${port}/inquiries/bob`);
      const started = await a.request('POST', '/v1/transactions/initiate', {
        key: alice.apiKey,
        body: trpRequest(ta),
      });
      assert.equal(started.status, 200, started.text);
      const ref = started.body.transactionRef as string;
      const attempts = async () =>
        (
          await a.db.query(
            `SELECT attempts, last_error FROM deliveries WHERE transaction_ref = $1 AND event = 'trp-inquiry'`,
            [ref],
          )
        )[0];
      const failed = await eventually(async () => {
        const row = await attempts();
        return row && Number(row.attempts) >= 2 && row;
      }, 'two failed attempts while the peer is down');
      assert.match(String(failed.last_error), /ECONNREFUSED/);
      // The member sees its TRP message and its attempts, like a webhook's; the originator's summary too.
      const listed = await a.request(
        'GET',
        `/v1/webhooks/deliveries?channel=trp&event=trp-inquiry&transactionRef=${ref}`,
        {
          key: alice.apiKey,
        },
      );
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.deliveries.map((d: Json) => [d.channel, d.event, d.status]),
        [['trp', 'trp-inquiry', 'PENDING']],
      );
      assert.ok(listed.body.deliveries[0].attemptLog.length >= 2);
      const summary = (await a.request('GET', `/v1/transactions/${ref}`, { key: alice.apiKey })).body
        .delivery;
      assert.equal(summary.state, 'retrying');
      assert.equal(summary.lastError, 'connection');
      assert.equal(
        (await a.request('GET', `/v1/transactions/${ref}`, { key: alice.apiKey })).body.status,
        'NEW',
      );

      // The peer comes up: a real HTTPS server with its own certificate from the CA, requiring the hub's.
      const leaf = ca.issue('peer-vasp');
      const seen: { path: string; headers: Record<string, unknown>; body: Json; cert: string }[] = [];
      peer = createHttpsServer(
        { cert: leaf.cert, key: leaf.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true },
        (req, res) => {
          const chunks: Buffer[] = [];
          req.on('data', (c: Buffer) => chunks.push(c));
          req.on('end', () => {
            const cert = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
            seen.push({
              path: req.url ?? '',
              headers: req.headers,
              body: chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {},
              cert: String(cert.subject?.CN ?? ''),
            });
            if (req.url === '/identity') {
              res.writeHead(200, { 'content-type': 'application/json' });
              return res.end(JSON.stringify({ name: 'Peer VASP', lei: '5493001KJTIIGC8Y1R12' }));
            }
            if (req.url?.startsWith('/inquiries/closed')) {
              res.writeHead(404, { 'content-type': 'application/json' });
              return res.end(JSON.stringify({ error: 'No such travel address.' }));
            }
            res.writeHead(req.url?.startsWith('/confirm') ? 204 : 200, {
              'content-type': 'application/json',
            });
            res.end(req.url?.startsWith('/confirm') ? undefined : JSON.stringify({ version: '3.2.1' }));
          });
        },
      );
      await new Promise<void>((resolve) => peer!.listen(port, '127.0.0.1', resolve));
      await eventually(
        async () =>
          (await a.request('GET', `/v1/transactions/${ref}`, { key: alice.apiKey })).body.status ===
          'RECEIVER_NOTIFIED',
        'notified once the peer took the inquiry',
        15_000,
      );
      const inquiries = seen.filter((s) => s.path === '/inquiries/bob?t=i');
      assert.equal(inquiries.length, 1);
      const sent = inquiries[0]!;
      assert.equal(sent.cert, 'hub-a2', 'the hub presented its certificate');
      assert.equal(sent.headers['api-version'], '3.2.1');
      assert.match(String(sent.headers['request-identifier']), /^[0-9a-f-]{36}$/);
      assert.deepEqual(sent.body.asset, { dti: 'CK9PW1MFH' });
      assert.equal(sent.body.amount, '12500000');
      // IVMS101 2020 with the standard's names, as TRP peers' tooling reads it (SPEC §18).
      const person = sent.body.IVMS101.originator.originatorPersons[0].naturalPerson;
      assert.ok(!Array.isArray(person.name), 'name as one object');
      assert.equal(person.nationalIdentification.nationalIdentifierType, 'IDCD');
      assert.equal(person.nationalIdentification.nationalIdentificationType, undefined);
      assert.ok(
        Array.isArray(sent.body.IVMS101.originator.accountNumber),
        'account numbers on the originator',
      );
      assert.equal(
        sent.body.IVMS101.originatingVASP.originatingVASP.legalPerson.name.nameIdentifier[0].legalPersonName,
        alice.name,
        'the member is named as the originating VASP',
      );

      // It decides later: approval through the callback the inquiry carried.
      const decision = await trpCall(sent.body.callback, {
        headers: { 'request-identifier': String(sent.headers['request-identifier']) },
        body: { approved: { address: 'TXpeerAddress1', callback: `https://127.0.0.1:${port}/confirm/1` } },
      });
      assert.equal(decision.status, 204);
      const callbackToken = /[\w-]{43}$/.exec(sent.body.callback)![0];
      assert.ok(!a.allLogs().includes(callbackToken), 'the callback token is not logged');
      const forged = await trpCall(sent.body.callback.replace(/[\w-]{43}$/, 'x'.repeat(43)), {
        body: { rejected: 'no' },
      });
      assert.equal(forged.status, 404);
      await receiver.waitFor((r) => r.to('/alice/v1/notify/approved').length === 1, 10_000, 'approved');
      const t = (await a.request('GET', `/v1/transactions/${ref}`, { key: alice.apiKey })).body;
      assert.equal(t.status, 'CONFIRMED');
      assert.equal(t.destination, 'TXpeerAddress1');
      // The peer's /identity is read after the inquiry, on its own: its decision can come first.
      const identified = await eventually(async () => {
        const p = (await a.request('GET', `/v1/transactions/${ref}`, { key: alice.apiKey })).body.trp.peer;
        return p.name === null ? undefined : p;
      }, 'the peer identified');
      assert.deepEqual([identified.name, identified.lei], ['Peer VASP', '5493001KJTIIGC8Y1R12']);

      await a.request('POST', '/v1/transactions/tx-hash', {
        key: alice.apiKey,
        body: { transactionRef: ref, txHash: `0x${'cd'.repeat(32)}` },
      });
      await eventually(() => seen.find((s) => s.path === '/confirm/1'), 'the confirmation');
      const confirmation = seen.find((s) => s.path === '/confirm/1')!;
      assert.deepEqual(confirmation.body, { txid: `0x${'cd'.repeat(32)}` });
      assert.equal(confirmation.headers['request-identifier'], sent.headers['request-identifier']);
    });

    it('ends a transfer as declined when the peer refuses the inquiry itself (a 4xx): no retry helps', async () => {
      const ta = encodeTravelAddress(`https://127.0.0.1:${port}/inquiries/closed`);
      const started = await a.request('POST', '/v1/transactions/initiate', {
        key: alice.apiKey,
        body: trpRequest(ta),
      });
      assert.equal(started.status, 200, started.text);
      const ref = started.body.transactionRef as string;
      await receiver.waitFor(
        (r) =>
          r
            .to('/alice/v1/notify/declined')
            .some((x) => verified(x, alice.webhookSecret).transactionRef === ref),
        10_000,
        'declined',
      );
      const declined = receiver
        .to('/alice/v1/notify/declined')
        .map((x) => verified(x, alice.webhookSecret))
        .find((p) => p.transactionRef === ref)!;
      assert.deepEqual(declined.reason, {
        category: 'TECHNICAL_ISSUE',
        description: 'The beneficiary VASP refused the inquiry (HTTP 404).',
      });
      const rows = await a.db.query(
        `SELECT attempts FROM deliveries WHERE transaction_ref = $1 AND event = 'trp-inquiry'`,
        [ref],
      );
      assert.equal(Number(rows[0]!.attempts), 1, 'sent once');
    });
  });

  describe(`TRP bridge with private targets refused [${backend}]`, {
    skip: await backendSkip(backend, 'TRP bridge with private targets refused'),
  }, () => {
    let c: TestHub;
    let alice: OrgFixture;
    before(async () => {
      c = await trpHub(backend, ca, 'hub-c', { HUB_ALLOW_PRIVATE_ENDPOINTS: 'false' });
      alice = await c.createOrg({ travelEndpoint: 'https://alice.example/hooks' });
    });
    after(async () => {
      await c?.destroy();
    });

    it('refuses a travel address that names a private IP at once, and records a name that resolves to one', async () => {
      const literal = encodeTravelAddress('https://10.1.2.3/inquiries');
      const refused = await c.request('POST', '/v1/transactions/initiate', {
        key: alice.apiKey,
        body: trpRequest(literal),
      });
      assert.equal(refused.status, 422);
      assert.equal(refused.body.code, 'UNKNOWN_COUNTERPARTY');
      assert.match(refused.body.detail, /non-public address \(private\)/);

      const host = hostname();
      const addresses = await lookup(host, { all: true });
      assert.ok(
        addresses.some((x) =>
          /^(127\.|10\.|172\.(1[6-9]|2\d|3[01])\.|192\.168\.|::1$|fe80:)/.test(x.address),
        ),
        `this test needs ${host} to resolve to a non-public address (it does on the test machines)`,
      );
      const named = encodeTravelAddress(`https://${host}/inquiries`);
      const started = await c.request('POST', '/v1/transactions/initiate', {
        key: alice.apiKey,
        body: trpRequest(named),
      });
      assert.equal(started.status, 200, started.text);
      const row = await eventually(async () => {
        const r = (
          await c.db.query(
            `SELECT attempts, last_error FROM deliveries WHERE transaction_ref = $1 AND event = 'trp-inquiry'`,
            [started.body.transactionRef],
          )
        )[0];
        return r && Number(r.attempts) >= 1 && r;
      }, 'the refused attempt');
      assert.match(String(row.last_error), /target refused: .*non-public address/);

      // Every attempt is refused, so the message fails; the member may have it sent again.
      const ref = started.body.transactionRef as string;
      const failed = await eventually(async () => {
        const res = await c.request(
          'GET',
          `/v1/webhooks/deliveries?channel=trp&event=trp-inquiry&transactionRef=${ref}`,
          {
            key: alice.apiKey,
          },
        );
        return res.body.deliveries[0]?.status === 'FAILED' && res.body.deliveries[0];
      }, 'the inquiry FAILED');
      const summary = (await c.request('GET', `/v1/transactions/${ref}`, { key: alice.apiKey })).body
        .delivery;
      assert.deepEqual([summary.state, summary.lastError], ['failed', 'refused-target']);
      const stranger = await c.createOrg();
      const notTheirs = await c.request('POST', `/v1/webhooks/deliveries/${failed.id}/redeliver`, {
        key: stranger.apiKey,
      });
      assert.equal(notTheirs.status, 404);
      const again = await c.request('POST', `/v1/webhooks/deliveries/${failed.id}/redeliver`, {
        key: alice.apiKey,
      });
      assert.equal(again.status, 202, again.text);
      assert.equal(again.body.channel, 'trp');
      assert.equal(again.body.attempts, 0);
    });

    it('refuses an inbound inquiry whose callback is a private address', async () => {
      const bob = await c.createOrg({
        travelEndpoint: 'https://bob.example/hooks',
        publicKey: generateParticipantKeyPair().publicKeyPem,
      });
      const { url } = (await c.request('POST', '/v1/travel-addresses', { key: bob.apiKey })).body;
      const res = await trpCall(url, { body: inquiryBody('https://192.168.1.10/callback') });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.problems, [
        { path: '/callback', message: 'must not point at a non-public address (private)' },
      ]);
    });
  });
}
