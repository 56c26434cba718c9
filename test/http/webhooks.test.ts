import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { decryptFromHub, generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { eachBackend, type OrgFixture, type TestHub } from '../harness.js';
import { eventually, Receiver, verified } from '../support/receiver.js';
import { asDelivered, basicRequest, type Json, mainRequest, uniqueName } from '../support/requests.js';

const receivers: Receiver[] = [];
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

interface Parties {
  receiver: Receiver;
  originator: OrgFixture;
  beneficiary: OrgFixture;
  beneficiaryPrivateKey: string;
}

/** A fresh receiver and two organizations whose endpoints are paths on it. */
async function parties(hub: TestHub): Promise<Parties> {
  const receiver = await Receiver.start();
  receivers.push(receiver);
  const keys = generateParticipantKeyPair();
  const originator = await hub.createOrg({ travelEndpoint: `${receiver.url}/orig/` });
  const beneficiary = await hub.createOrg({
    travelEndpoint: `${receiver.url}/bene`,
    publicKey: keys.publicKeyPem,
  });
  return { receiver, originator, beneficiary, beneficiaryPrivateKey: keys.privateKeyPem };
}

/** Every string in a JSON value (to look for personal data elsewhere). */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

/** The values of `pii` that identify a person (names, addresses, ids), without code-list values. */
export function personalStrings(pii: unknown): string[] {
  return strings(pii).filter((s) => !/^[A-Z]{2,4}$/.test(s) && !/^\d{1,3}$/.test(s));
}

eachBackend('webhook deliveries', (hub) => {
  const initiate = (key: string, body: Json) =>
    hub().request('POST', '/v1/transactions/initiate', { key, body });
  const statusOf = async (key: string, ref: string) =>
    (await hub().request('GET', `/v1/transactions/${ref}`, { key })).body.status as string;
  const deliveries = (key: string, query = '') =>
    hub().request('GET', `/v1/webhooks/deliveries${query}`, { key });

  it('delivers a signed MAIN `received` without personal data, then the transaction is RECEIVER_NOTIFIED', async () => {
    const p = await parties(hub());
    const name = uniqueName();
    const body = mainRequest(p.beneficiary.vaspDid, name);
    const res = await initiate(p.originator.apiKey, body);
    assert.equal(res.status, 200, res.text);
    const ref = res.body.transactionRef;
    await p.receiver.waitFor((r) => r.to('/bene/v1/notify/received').length === 1);
    const req = p.receiver.to('/bene/v1/notify/received')[0]!;
    assert.equal(req.method, 'POST');
    assert.match(String(req.headers['content-type']), /^application\/json/);
    assert.match(String(req.headers['webhook-id']), /^msg_[0-9A-Z]{26}$/);
    const payload = verified(req, p.beneficiary.webhookSecret);
    assert.deepEqual(payload, {
      transactionRef: ref,
      protocol: 'MAIN',
      status: 'RECEIVER_NOTIFIED',
      originatorVASPdid: p.originator.vaspDid,
      beneficiaryVASPdid: p.beneficiary.vaspDid,
      transactionAsset: 'ETH-USDC',
      transactionAmount: '1250.500001',
      transactionAssetDecimals: 6,
      ivms101_data: { transactionBlockchainInfo: body.transactionBlockchainInfo },
    });
    for (const s of personalStrings(body.pii)) assert.ok(!req.body.includes(s), `personal data leaked: ${s}`);
    assert.throws(() => verified(req, p.originator.webhookSecret), 'another org’s secret does not verify');
    await eventually(
      async () => (await statusOf(p.originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
      'RECEIVER_NOTIFIED',
    );
  });

  it('attaches BASIC personal data as a JWE only the beneficiary can open; the transaction is CONFIRMED', async () => {
    const p = await parties(hub());
    const body = basicRequest(p.beneficiary.vaspDid);
    const ref = (await initiate(p.originator.apiKey, body)).body.transactionRef;
    await p.receiver.waitFor((r) => r.to('/bene/v1/notify/received').length === 1);
    const payload = verified(p.receiver.to('/bene/v1/notify/received')[0]!, p.beneficiary.webhookSecret);
    assert.equal(payload.protocol, 'BASIC');
    const { encryptedPii, ...rest } = payload.ivms101_data;
    assert.deepEqual(rest, { transactionBlockchainInfo: body.transactionBlockchainInfo });
    assert.match(encryptedPii, /^[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/, 'JWE compact serialization');
    const header = JSON.parse(Buffer.from(encryptedPii.split('.')[0], 'base64url').toString());
    assert.equal(header.alg, 'ECDH-ES+A256KW');
    assert.equal(header.enc, 'A256GCM');
    assert.deepEqual(
      await decryptFromHub(p.beneficiaryPrivateKey, encryptedPii),
      asDelivered(body.pii, p.originator, p.beneficiary),
    );
    await assert.rejects(decryptFromHub(generateParticipantKeyPair().privateKeyPem, encryptedPii));
    await eventually(async () => (await statusOf(p.beneficiary.apiKey, ref)) === 'CONFIRMED', 'CONFIRMED');
    const history = (await hub().request('GET', `/v1/transactions/${ref}`, { key: p.originator.apiKey })).body
      .history;
    assert.deepEqual(
      history.map((h: Json) => h.status),
      ['NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED'],
    );
  });

  it('retries 500 and 503 with one webhook-id, records every attempt, then delivers', async () => {
    const p = await parties(hub());
    p.receiver.script('/bene/v1/notify/received', 500, 503, 200);
    const ref = (await initiate(p.originator.apiKey, mainRequest(p.beneficiary.vaspDid))).body.transactionRef;
    await eventually(
      async () => (await statusOf(p.originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
      'RECEIVER_NOTIFIED',
    );
    const got = p.receiver.to('/bene/v1/notify/received');
    assert.deepEqual(
      got.map((r) => r.answered),
      [500, 503, 200],
    );
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 1, 'one webhook-id on every attempt');
    for (const r of got) verified(r, p.beneficiary.webhookSecret);
    const list = await deliveries(p.beneficiary.apiKey, `?transactionRef=${ref}`);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.deliveries.length, 1);
    const d = list.body.deliveries[0];
    assert.equal(d.status, 'DELIVERED');
    assert.equal(d.event, 'received');
    assert.equal(d.attempts, 3);
    assert.equal(d.messageId, got[0]!.headers['webhook-id']);
    assert.equal(d.nextAttemptAt, null);
    assert.equal(d.lastError, null);
    assert.ok(d.deliveredAt);
    assert.equal(d.payload, undefined, 'payloads are not shown');
    assert.deepEqual(
      d.attemptLog.map((a: Json) => [a.statusCode, a.error]),
      [
        [500, 'HTTP 500'],
        [503, 'HTTP 503'],
        [200, null],
      ],
    );
    for (const a of d.attemptLog) assert.ok(Number.isInteger(a.latencyMs) && a.latencyMs >= 0);
  });

  it('honours a Retry-After that asks for a longer wait', async () => {
    const p = await parties(hub());
    p.receiver.script('/bene/v1/notify/received', { status: 503, headers: { 'retry-after': '1' } }, 200);
    await initiate(p.originator.apiKey, mainRequest(p.beneficiary.vaspDid));
    await p.receiver.waitFor((r) => r.to('/bene/v1/notify/received').length === 2, 10_000);
    const [first, second] = p.receiver.to('/bene/v1/notify/received');
    assert.ok(second!.at - first!.at >= 950, `waited ${second!.at - first!.at} ms`);
  });

  it('gives up after the schedule (FAILED), and redeliver sends it again with the same webhook-id', async () => {
    const p = await parties(hub());
    p.receiver.otherwise(500);
    const ref = (await initiate(p.originator.apiKey, mainRequest(p.beneficiary.vaspDid))).body.transactionRef;
    const failed = await eventually(async () => {
      const d = (await deliveries(p.beneficiary.apiKey, `?transactionRef=${ref}`)).body.deliveries[0];
      return d?.status === 'FAILED' ? d : undefined;
    }, 'FAILED');
    assert.equal(failed.attempts, 4, 'the first attempt and one per schedule entry');
    assert.equal(failed.lastError, 'HTTP 500');
    assert.equal(failed.attemptLog.length, 4);
    assert.equal(p.receiver.to('/bene/v1/notify/received').length, 4);
    assert.equal(await statusOf(p.originator.apiKey, ref), 'NEW');
    const again = await deliveries(p.beneficiary.apiKey, '?status=FAILED');
    assert.ok(again.body.deliveries.some((d: Json) => d.id === failed.id));

    // Only the recipient may redeliver; to anyone else the delivery does not exist.
    const stranger = await hub().request('POST', `/v1/webhooks/deliveries/${failed.id}/redeliver`, {
      key: p.originator.apiKey,
    });
    assert.equal(stranger.status, 404);
    assert.equal(stranger.body.code, 'NOT_FOUND');

    p.receiver.otherwise(200);
    const redo = await hub().request('POST', `/v1/webhooks/deliveries/${failed.id}/redeliver`, {
      key: p.beneficiary.apiKey,
    });
    assert.equal(redo.status, 202, redo.text);
    assert.equal(redo.body.messageId, failed.messageId);
    assert.equal(redo.body.attempts, 0);
    await eventually(
      async () => (await statusOf(p.originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
      'RECEIVER_NOTIFIED after redelivery',
    );
    const all = p.receiver.to('/bene/v1/notify/received');
    assert.equal(all.length, 5);
    assert.equal(new Set(all.map((r) => r.headers['webhook-id'])).size, 1);
    const done = (await deliveries(p.beneficiary.apiKey, `?transactionRef=${ref}`)).body.deliveries[0];
    assert.equal(done.status, 'DELIVERED');
    assert.equal(done.attempts, 1);
    assert.equal(done.attemptLog.length, 5, 'the log keeps the attempts before the redelivery');

    const twice = await hub().request('POST', `/v1/webhooks/deliveries/${failed.id}/redeliver`, {
      key: p.beneficiary.apiKey,
    });
    assert.equal(twice.status, 409);
    assert.equal(twice.body.code, 'INVALID_STATE');
    assert.match(twice.body.detail, /DELIVERED/);
    const unknown = await hub().request(
      'POST',
      '/v1/webhooks/deliveries/00000000-0000-4000-8000-000000000000/redeliver',
      { key: p.beneficiary.apiKey },
    );
    assert.equal(unknown.status, 404);
  });

  it('sends confirmed-data with the submitted pii only after `received`, and tx-hash in order', async () => {
    const p = await parties(hub());
    // `received` fails twice; a tx-hash shared meanwhile must wait for it.
    p.receiver.script('/bene/v1/notify/received', 500, 500, 200);
    const body = mainRequest(p.beneficiary.vaspDid);
    const ref = (await initiate(p.originator.apiKey, body)).body.transactionRef;
    const hash = await hub().request('POST', '/v1/transactions/tx-hash', {
      key: p.originator.apiKey,
      body: { transactionRef: ref, txHash: '0xfeedbeef' },
    });
    assert.equal(hash.status, 200, hash.text);
    await eventually(
      async () => (await statusOf(p.originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
      'RECEIVER_NOTIFIED',
    );
    const confirm = await hub().request('POST', '/v1/transactions/confirm', {
      key: p.originator.apiKey,
      body: { transactionRef: ref },
    });
    assert.equal(confirm.status, 200, confirm.text);
    await p.receiver.waitFor((r) => r.to('/bene/v1/notify/confirmed-data').length === 1);
    const paths = p.receiver
      .to()
      .filter((r) => r.answered === 200)
      .map((r) => r.path);
    assert.deepEqual(paths, [
      '/bene/v1/notify/received',
      '/bene/v1/notify/tx-hash',
      '/bene/v1/notify/confirmed-data',
    ]);
    const firstSuccess = p.receiver.to().findIndex((r) => r.answered === 200);
    assert.ok(
      p.receiver
        .to()
        .slice(0, firstSuccess)
        .every((r) => r.path === '/bene/v1/notify/received'),
      'nothing overtakes a pending `received`',
    );
    const txHash = verified(p.receiver.to('/bene/v1/notify/tx-hash')[0]!, p.beneficiary.webhookSecret);
    assert.deepEqual(txHash, { transactionRef: ref, txHash: '0xfeedbeef' });
    const data = verified(p.receiver.to('/bene/v1/notify/confirmed-data')[0]!, p.beneficiary.webhookSecret);
    assert.deepEqual(data, {
      transactionRef: ref,
      protocol: 'MAIN',
      status: 'CONFIRMED',
      originatorVASPdid: p.originator.vaspDid,
      beneficiaryVASPdid: p.beneficiary.vaspDid,
      ivms101Data: asDelivered(body.pii, p.originator, p.beneficiary),
    });
  });

  it('holds a tx-hash behind a FAILED `received`, shows it HELD, and sends both in order once redelivered', async () => {
    const p = await parties(hub());
    p.receiver.script('/bene/v1/notify/received', 500, 500, 500, 500); // the first try and three retries
    const ref = (await initiate(p.originator.apiKey, mainRequest(p.beneficiary.vaspDid))).body.transactionRef;
    const list = async () =>
      (
        await hub().request('GET', `/v1/webhooks/deliveries?transactionRef=${ref}`, {
          key: p.beneficiary.apiKey,
        })
      ).body.deliveries as Json[];
    const failed = await eventually(async () => {
      const d = (await list()).find((x) => x.event === 'received');
      return d?.status === 'FAILED' ? d : undefined;
    }, '`received` FAILED');
    const hash = await hub().request('POST', '/v1/transactions/tx-hash', {
      key: p.originator.apiKey,
      body: { transactionRef: ref, txHash: '0xabc' },
    });
    assert.equal(hash.status, 200, hash.text);
    const held = (await list()).find((x) => x.event === 'tx-hash');
    assert.equal(held?.status, 'HELD');
    const onlyHeld = await hub().request('GET', `/v1/webhooks/deliveries?status=HELD&transactionRef=${ref}`, {
      key: p.beneficiary.apiKey,
    });
    assert.deepEqual(
      onlyHeld.body.deliveries.map((d: Json) => d.event),
      ['tx-hash'],
    );
    await new Promise((resolve) => setTimeout(resolve, 400)); // several claims' worth: it must not go out
    assert.equal(p.receiver.to('/bene/v1/notify/tx-hash').length, 0, 'nothing overtakes a FAILED message');

    const redelivered = await hub().request('POST', `/v1/webhooks/deliveries/${failed.id}/redeliver`, {
      key: p.beneficiary.apiKey,
    });
    assert.equal(redelivered.status, 202, redelivered.text);
    await p.receiver.waitFor((r) => r.to('/bene/v1/notify/tx-hash').length === 1);
    assert.deepEqual(
      p.receiver
        .to()
        .filter((r) => r.answered === 200)
        .map((r) => r.path),
      ['/bene/v1/notify/received', '/bene/v1/notify/tx-hash'],
    );
  });

  it('tells the originator of a decline, signed with the originator’s secret', async () => {
    const p = await parties(hub());
    const ref = (await initiate(p.originator.apiKey, basicRequest(p.beneficiary.vaspDid))).body
      .transactionRef;
    await eventually(async () => (await statusOf(p.beneficiary.apiKey, ref)) === 'CONFIRMED', 'CONFIRMED');
    const reason = { category: 'SANCTIONS_MATCH', description: 'Listed on a sanctions list.' };
    const res = await hub().request('POST', '/v1/transactions/decline', {
      key: p.beneficiary.apiKey,
      body: { transactionRef: ref, reason },
    });
    assert.equal(res.status, 200, res.text);
    await p.receiver.waitFor((r) => r.to('/orig/v1/notify/declined').length === 1);
    const payload = verified(p.receiver.to('/orig/v1/notify/declined')[0]!, p.originator.webhookSecret);
    assert.deepEqual(payload, {
      transactionRef: ref,
      status: 'DECLINED',
      reason,
      beneficiaryVASPdid: p.beneficiary.vaspDid,
    });
    const mine = await eventually(async () => {
      const list = (await deliveries(p.originator.apiKey, '?event=declined')).body.deliveries;
      return list[0]?.status === 'DELIVERED' ? list : undefined;
    }, 'declined DELIVERED');
    assert.deepEqual(
      mine.map((d: Json) => [d.transactionRef, d.status]),
      [[ref, 'DELIVERED']],
    );
  });

  it('signs with every active secret while a rotation overlaps', async () => {
    const p = await parties(hub());
    const rotated = await hub().admin('POST', `/v1/admin/organizations/${p.beneficiary.id}/webhook-secret`);
    assert.equal(rotated.status, 201, rotated.text);
    await initiate(p.originator.apiKey, mainRequest(p.beneficiary.vaspDid));
    await p.receiver.waitFor((r) => r.to('/bene/v1/notify/received').length === 1);
    const req = p.receiver.to('/bene/v1/notify/received')[0]!;
    assert.equal(String(req.headers['webhook-signature']).split(' ').length, 2);
    verified(req, rotated.body.webhookSecret);
    verified(req, p.beneficiary.webhookSecret);
  });

  it('reads the endpoint at every attempt: none now is a failed attempt, a fixed one lets it through', async () => {
    const p = await parties(hub());
    p.receiver.script('/bene/v1/notify/received', { status: 500, delayMs: 300 });
    const ref = (await initiate(p.originator.apiKey, mainRequest(p.beneficiary.vaspDid))).body.transactionRef;
    await p.receiver.waitFor((r) => r.to('/bene/v1/notify/received').length === 1);
    await hub().request('PATCH', '/v1/organizations/me', {
      key: p.beneficiary.apiKey,
      body: { travelEndpoint: null },
    });
    const failed = await eventually(async () => {
      const d = (await deliveries(p.beneficiary.apiKey, `?transactionRef=${ref}`)).body.deliveries[0];
      return d?.status === 'FAILED' ? d : undefined;
    }, 'FAILED');
    assert.equal(failed.lastError, 'organization has no travelEndpoint');
    const moved = await Receiver.start();
    receivers.push(moved);
    await hub().request('PATCH', '/v1/organizations/me', {
      key: p.beneficiary.apiKey,
      body: { travelEndpoint: `${moved.url}/new-home` },
    });
    await hub().request('POST', `/v1/webhooks/deliveries/${failed.id}/redeliver`, {
      key: p.beneficiary.apiKey,
    });
    await moved.waitFor((r) => r.to('/new-home/v1/notify/received').length === 1);
    await eventually(
      async () => (await statusOf(p.originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
      'RECEIVER_NOTIFIED',
    );
  });

  it('sends a signed ping on request and reports the endpoint’s answer', async () => {
    const p = await parties(hub());
    const ok = await hub().request('POST', '/v1/organizations/me/test-event', { key: p.beneficiary.apiKey });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.delivered, true);
    assert.equal(ok.body.statusCode, 200);
    assert.equal(ok.body.error, null);
    assert.equal(ok.body.url, `${p.receiver.url}/bene/v1/notify/ping`);
    const req = p.receiver.to('/bene/v1/notify/ping')[0]!;
    assert.equal(req.headers['webhook-id'], ok.body.messageId);
    const ping = verified(req, p.beneficiary.webhookSecret);
    assert.equal(ping.type, 'ping');
    assert.equal(ping.organizationId, p.beneficiary.id);
    assert.ok(Math.abs(Date.parse(ping.sentAt) - Date.now()) < 60_000);

    p.receiver.script('/bene/v1/notify/ping', 418);
    const bad = await hub().request('POST', '/v1/organizations/me/test-event', { key: p.beneficiary.apiKey });
    assert.deepEqual([bad.body.delivered, bad.body.statusCode, bad.body.error], [false, 418, 'HTTP 418']);

    const lonely = await hub().createOrg();
    const none = await hub().request('POST', '/v1/organizations/me/test-event', { key: lonely.apiKey });
    assert.deepEqual([none.body.delivered, none.body.error], [false, 'organization has no travelEndpoint']);
  });

  it('lists only the caller’s own deliveries, newest first, with filters and keyset pagination', async () => {
    const p = await parties(hub());
    const refs: string[] = [];
    for (let i = 0; i < 5; i++) {
      refs.push(
        (await initiate(p.originator.apiKey, mainRequest(p.beneficiary.vaspDid))).body.transactionRef,
      );
    }
    await p.receiver.waitFor((r) => r.to('/bene/v1/notify/received').length === 5);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await deliveries(p.beneficiary.apiKey, q);
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.deliveries.length <= 2);
      seen.push(...page.body.deliveries.map((d: Json) => d.transactionRef));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    assert.deepEqual(seen, [...refs].reverse(), 'newest first, each once');
    assert.equal((await deliveries(p.originator.apiKey)).body.deliveries.length, 0, 'not the sender’s');
    assert.equal((await deliveries(p.beneficiary.apiKey, '?event=tx-hash')).body.deliveries.length, 0);
    const bad = await deliveries(p.beneficiary.apiKey, '?limit=0');
    assert.equal(bad.status, 400);
    assert.equal((await deliveries(p.beneficiary.apiKey, '?cursor=bm9wZQ')).status, 400);
    const lost = await deliveries(p.beneficiary.apiKey, '?status=LOST');
    assert.equal(lost.status, 400);
    assert.deepEqual(lost.body.errors, [
      { path: '/querystring/status', message: 'must be one of PENDING, DELIVERED, FAILED, HELD, CANCELLED' },
    ]);
  });

  it('keeps NOTIFY e-mails in the outbox without SMTP_URL and shows them to the operator', async () => {
    const p = await parties(hub());
    const ref = (
      await initiate(p.originator.apiKey, {
        transactionAsset: 'TRX-USDT',
        transactionAssetDecimals: 6,
        transactionAmount: '10',
        protocol: 'NOTIFY',
        beneficiaryVASPid: '7d8e9f00-1111-4222-8333-444455556666',
        notificationEmail: 'ops@outside.example',
        transactionBlockchainInfo: { destination: 'TXYZ1234567890abcdefghijkLMNOPQRS' },
        pii: mainRequest(p.beneficiary.vaspDid).pii,
      })
    ).body.transactionRef;
    assert.ok(ref);
    await new Promise((r) => setTimeout(r, 300));
    const res = await hub().admin('GET', `/v1/admin/emails?transactionRef=${ref}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.smtpConfigured, false);
    assert.equal(res.body.emails.length, 1);
    const e = res.body.emails[0];
    assert.deepEqual(
      [e.to, e.status, e.attempts, e.transactionRef],
      ['ops@outside.example', 'PENDING', 0, ref],
    );
    assert.equal(await statusOf(p.originator.apiKey, ref), 'NEW');
    const forbidden = await hub().request('GET', '/v1/admin/emails', { key: p.originator.apiKey });
    assert.equal(forbidden.status, 403);
  });

  it('exports delivery metrics', async () => {
    const res = await fetch(`${hub().url}/metrics`);
    const text = await res.text();
    assert.match(text, /hub_deliveries_total\{event="received",outcome="delivered"\} \d+/);
    assert.match(text, /hub_deliveries_total\{event="received",outcome="failed"\} \d+/);
    assert.match(text, /hub_delivery_attempt_duration_seconds_bucket\{le="0\.1",channel="webhook"\} \d+/);
    assert.match(text, /hub_delivery_queue_depth \d+/);
    assert.match(text, /hub_delivery_oldest_due_age_seconds [\d.e+-]+/);
  });

  it('counts the queue at most once a second, however often /metrics is scraped', async () => {
    const depth = async () =>
      Number(/hub_delivery_queue_depth (\d+)/.exec(await (await fetch(`${hub().url}/metrics`)).text())![1]);
    const org = await hub().createOrg();
    await new Promise((r) => setTimeout(r, 1100)); // past any count an earlier scrape left
    const before = await depth();
    // A row added behind the hub's back shows only once the cached count is a second old.
    await hub().db.query(
      `INSERT INTO deliveries (id, message_id, channel, event, organization_id, payload, next_attempt_at)
       VALUES (gen_random_uuid(), 'msg_metrics_' || md5(random()::text), 'webhook', 'ping', $1, '{}',
               now() + interval '1 hour')`,
      [org.id],
    );
    assert.equal(await depth(), before, 'a scrape within the second reuses the count');
    await new Promise((r) => setTimeout(r, 1100));
    const now = await depth();
    const [actual] = await hub().db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM deliveries WHERE status = 'PENDING'`,
    );
    assert.equal(now, actual!.n, 'a second later the count is taken anew');
  });
});
