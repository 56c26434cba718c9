import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { webhookHeaders } from '../../src/deliveries/signing.js';
import {
  createHubClient,
  createReceiver,
  decryptPii,
  generateParticipantKeyPair,
  HubProblem,
  type ReceivedEvent,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
} from '../../src/sdk.js';
import { eachBackend } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { asDelivered, basicRequest, mainRequest } from '../support/requests.js';

eachBackend('participant toolkit', (hub) => {
  it('drives every /v1 endpoint through the typed client', async () => {
    const receiver = await Receiver.start();
    try {
      const admin = createHubClient({ baseUrl: hub().url, apiKey: hub().adminKey });
      const keys = generateParticipantKeyPair();
      const a = await unwrap(
        admin.POST('/v1/admin/organizations', {
          body: {
            name: 'Client A',
            vaspDid: `did:web:client-a-${randomUUID()}.example`,
            travelEndpoint: receiver.url,
          },
        }),
      );
      const b = await unwrap(
        admin.POST('/v1/admin/organizations', {
          body: {
            name: 'Client B',
            vaspDid: `did:web:client-b-${randomUUID()}.example`,
            travelEndpoint: receiver.url,
            publicKey: keys.publicKeyPem,
          },
        }),
      );
      const A = createHubClient({ baseUrl: hub().url, apiKey: a.apiKey });
      const B = createHubClient({ baseUrl: hub().url, apiKey: b.apiKey });

      // operator endpoints
      assert.ok((await unwrap(admin.GET('/v1/admin/organizations', {}))).organizations.length >= 2);
      const aId = a.organization.id;
      assert.equal(
        (await unwrap(admin.GET('/v1/admin/organizations/{id}', { params: { path: { id: aId } } }))).id,
        aId,
      );
      const verified = await unwrap(
        admin.PATCH('/v1/admin/organizations/{id}', {
          params: { path: { id: aId } },
          body: { organizationType: 'verified' },
        }),
      );
      assert.equal(verified.organizationType, 'verified');
      const extra = await unwrap(
        admin.POST('/v1/admin/organizations/{id}/api-keys', { params: { path: { id: aId } } }),
      );
      assert.ok(
        (await unwrap(admin.GET('/v1/admin/organizations/{id}/api-keys', { params: { path: { id: aId } } })))
          .apiKeys.length >= 2,
      );
      await unwrap(admin.DELETE('/v1/admin/api-keys/{keyId}', { params: { path: { keyId: extra.keyId } } }));
      const rotated = await unwrap(
        admin.POST('/v1/admin/organizations/{id}/webhook-secret', { params: { path: { id: aId } } }),
      );
      assert.match(rotated.webhookSecret, /^whsec_/);
      assert.equal(typeof (await unwrap(admin.GET('/v1/admin/stats', {}))).transactionsByStatus, 'object');
      assert.ok(Array.isArray((await unwrap(admin.GET('/v1/admin/emails', {}))).emails));

      // directory and self-service
      assert.ok(
        (await unwrap(A.GET('/v1/organizations', {}))).organizations.some((o) => o.id === b.organization.id),
      );
      assert.equal((await unwrap(A.GET('/v1/organizations/me', {}))).id, aId);
      assert.equal(
        (await unwrap(A.PATCH('/v1/organizations/me', { body: { name: 'Client A2' } }))).name,
        'Client A2',
      );
      const own = await unwrap(A.POST('/v1/organizations/me/api-keys', {}));
      assert.ok(
        (await unwrap(A.GET('/v1/organizations/me/api-keys', {}))).apiKeys.some((k) => k.keyId === own.keyId),
      );
      await unwrap(
        A.DELETE('/v1/organizations/me/api-keys/{keyId}', { params: { path: { keyId: own.keyId } } }),
      );
      assert.match(
        (await unwrap(A.POST('/v1/organizations/me/webhook-secret', {}))).webhookSecret,
        /^whsec_/,
      );
      const ping = await unwrap(A.POST('/v1/organizations/me/test-event', {}));
      assert.equal(ping.delivered, true);

      // transactions
      const tx = await unwrap(
        A.POST('/v1/transactions/initiate', { body: mainRequest(b.organization.vaspDid) as never }),
      );
      const ref = tx.transactionRef;
      await eventually(
        async () =>
          (
            await unwrap(
              A.GET('/v1/transactions/{transactionRef}', { params: { path: { transactionRef: ref } } }),
            )
          ).status === 'RECEIVER_NOTIFIED',
        'RECEIVER_NOTIFIED',
      );
      await unwrap(A.POST('/v1/transactions/tx-hash', { body: { transactionRef: ref, txHash: '0xfeed' } }));
      await unwrap(A.POST('/v1/transactions/confirm', { body: { transactionRef: ref } }));
      const pii = await unwrap(
        B.GET('/v1/transactions/{transactionRef}/pii', { params: { path: { transactionRef: ref } } }),
      );
      assert.equal(pii.transactionRef, ref);
      const declined = await unwrap(
        B.POST('/v1/transactions/decline', {
          body: {
            transactionRef: ref,
            reason: { category: 'USER_REQUEST', description: 'Customer cancelled.' },
          },
        }),
      );
      assert.equal(declined.status, 'DECLINED');
      const list = await unwrap(
        A.GET('/v1/transactions', { params: { query: { role: 'originator', limit: '10' } } }),
      );
      assert.equal(list.transactions[0]?.transactionRef, ref);

      // deliveries
      const deliveries = await unwrap(
        B.GET('/v1/webhooks/deliveries', { params: { query: { transactionRef: ref } } }),
      );
      assert.ok(deliveries.deliveries.length >= 1);
      const problem = await unwrap(
        B.POST('/v1/webhooks/deliveries/{id}/redeliver', {
          params: { path: { id: deliveries.deliveries[0]!.id } },
        }),
      ).catch((e: unknown) => e);
      assert.ok(
        problem instanceof HubProblem && problem.problem.code === 'INVALID_STATE',
        'a delivered message is not redelivered',
      );

      // operations
      assert.equal((await unwrap(A.GET('/healthz', {}))).status, 'ok');
      assert.equal((await unwrap(A.GET('/readyz', {}))).status, 'ready');
    } finally {
      await receiver.close();
    }
  });

  it('surfaces errors as a typed problem', async () => {
    const org = await hub().createOrg();
    const client = createHubClient({ baseUrl: hub().url, apiKey: org.apiKey });
    const err = await unwrap(
      client.GET('/v1/transactions/{transactionRef}', { params: { path: { transactionRef: randomUUID() } } }),
    ).catch((e: unknown) => e);
    assert.ok(err instanceof HubProblem);
    assert.equal(err.status, 404);
    assert.equal(err.problem.code, 'NOT_FOUND');
    const bad = await unwrap(
      client.POST('/v1/transactions/initiate', {
        body: { ...mainRequest('did:web:x.example'), transactionAmount: 'x' } as never,
      }),
    ).catch((e: unknown) => e);
    assert.ok(bad instanceof HubProblem && bad.problem.code === 'VALIDATION_FAILED');
    assert.equal(bad.problem.errors?.[0]?.path, '/transactionAmount');
  });

  it('verifies real deliveries: valid, tampered, stale and across a secret rotation', async () => {
    const receiver = await Receiver.start();
    try {
      const originator = await hub().createOrg({ travelEndpoint: receiver.url });
      const keys = generateParticipantKeyPair();
      const beneficiary = await hub().createOrg({
        travelEndpoint: receiver.url,
        publicKey: keys.publicKeyPem,
      });
      const body = basicRequest(beneficiary.vaspDid);
      await hub().request('POST', '/v1/transactions/initiate', { key: originator.apiKey, body });
      await receiver.waitFor((r) => r.to('/v1/notify/received').length > 0, 10_000, 'received');
      const delivery = receiver.to('/v1/notify/received')[0]!;

      const payload = verifyWebhook(beneficiary.webhookSecret, delivery.body, delivery.headers) as any;
      assert.equal(payload.protocol, 'BASIC');
      assert.deepEqual(
        await decryptPii(keys.privateKeyPem, payload.ivms101_data.encryptedPii),
        asDelivered(body.pii, originator, beneficiary),
      );

      const tampered = delivery.body.replace('"BASIC"', '"MAIN"');
      assert.throws(
        () => verifyWebhook(beneficiary.webhookSecret, tampered, delivery.headers),
        WebhookVerificationError,
      );
      const sentAt = Number(delivery.headers['webhook-timestamp']) * 1000;
      assert.throws(
        () =>
          verifyWebhook(beneficiary.webhookSecret, delivery.body, delivery.headers, {
            now: sentAt + 10 * 60_000,
          }),
        WebhookVerificationError,
      );
      assert.throws(
        () => verifyWebhook(originator.webhookSecret, delivery.body, delivery.headers),
        WebhookVerificationError,
      );

      const rotated = await hub().admin('POST', `/v1/admin/organizations/${beneficiary.id}/webhook-secret`);
      await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: basicRequest(beneficiary.vaspDid),
      });
      await receiver.waitFor((r) => r.to('/v1/notify/received').length > 1, 10_000, 'second received');
      const after = receiver.to('/v1/notify/received')[1]!;
      assert.ok(
        verifyWebhook(rotated.body.webhookSecret, after.body, after.headers),
        'the new secret verifies',
      );
      assert.ok(
        verifyWebhook(beneficiary.webhookSecret, after.body, after.headers),
        'the old secret still verifies',
      );
      assert.ok(
        verifyWebhook(
          [rotated.body.webhookSecret, beneficiary.webhookSecret],
          after.body,
          new Headers(after.headers as Record<string, string>),
        ),
      );
    } finally {
      await receiver.close();
    }
  });

  it('runs the reference receiver end to end: verifies, decrypts, de-duplicates and refuses forgeries', async () => {
    const keys = generateParticipantKeyPair();
    const originator = await hub().createOrg({ travelEndpoint: 'http://127.0.0.1:9' });
    const beneficiary = await hub().createOrg({
      travelEndpoint: 'http://127.0.0.1:9',
      publicKey: keys.publicKeyPem,
    });
    const events: ReceivedEvent[] = [];
    const server = createReceiver({
      secrets: [beneficiary.webhookSecret],
      privateKeyPem: keys.privateKeyPem,
      onEvent: (e) => events.push(e),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await hub().admin('PATCH', `/v1/admin/organizations/${beneficiary.id}`, { travelEndpoint: url });
      const body = basicRequest(beneficiary.vaspDid);
      const { body: tx } = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body,
      });
      await eventually(() => events.length > 0 || undefined, 'an event at the receiver');
      assert.equal(events[0]!.event, 'received');
      assert.equal(events[0]!.payload.transactionRef, tx.transactionRef);
      assert.deepEqual(
        events[0]!.pii,
        asDelivered(body.pii, originator, beneficiary),
        'BASIC personal data decrypted by the receiver',
      );
      assert.equal(events[0]!.duplicate, false);
      await eventually(
        async () =>
          (await hub().request('GET', `/v1/transactions/${tx.transactionRef}`, { key: originator.apiKey }))
            .body.status === 'CONFIRMED',
        'the receiver’s 200 confirming BASIC',
      );

      const ping = JSON.stringify({
        type: 'ping',
        organizationId: beneficiary.id,
        sentAt: new Date().toISOString(),
      });
      const ts = Math.floor(Date.now() / 1000);
      const headers = {
        'content-type': 'application/json',
        ...webhookHeaders([beneficiary.webhookSecret], 'msg_toolkit_dup', ts, ping),
      };
      const first = await fetch(`${url}/v1/notify/ping`, { method: 'POST', headers, body: ping });
      assert.deepEqual(await first.json(), { status: 'processed' });
      const again = await fetch(`${url}/v1/notify/ping`, { method: 'POST', headers, body: ping });
      assert.deepEqual(await again.json(), { status: 'duplicate' });
      assert.equal(
        events
          .filter((e) => e.webhookId === 'msg_toolkit_dup')
          .map((e) => e.duplicate)
          .join(),
        'false,true',
      );

      const forged = await fetch(`${url}/v1/notify/ping`, {
        method: 'POST',
        headers: { ...headers, 'webhook-id': 'msg_forged' },
        body: ping.replace('ping', 'pong'),
      });
      assert.equal(forged.status, 401);
      const unsigned = await fetch(`${url}/v1/notify/received`, { method: 'POST', body: '{}' });
      assert.equal(unsigned.status, 401);
      assert.equal((await fetch(`${url}/v1/notify/unknown`, { method: 'POST', body: '{}' })).status, 404);
    } finally {
      server.close();
    }
  });
  it('reference receiver: a failed handler gets a 500, and the retry is handled, not called a duplicate', async () => {
    const keys = generateParticipantKeyPair();
    const originator = await hub().createOrg();
    const beneficiary = await hub().createOrg({
      travelEndpoint: 'http://127.0.0.1:9',
      publicKey: keys.publicKeyPem,
    });
    const events: ReceivedEvent[] = [];
    let calls = 0;
    const server = createReceiver({
      secrets: [beneficiary.webhookSecret],
      privateKeyPem: keys.privateKeyPem,
      // The first call fails asynchronously, as a participant's database write would.
      onEvent: async (e) => {
        calls++;
        if (calls === 1) throw new Error('database briefly unavailable');
        events.push(e);
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await hub().admin('PATCH', `/v1/admin/organizations/${beneficiary.id}`, { travelEndpoint: url });
      const body = basicRequest(beneficiary.vaspDid);
      const { body: tx } = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body,
      });
      await eventually(
        async () =>
          (await hub().request('GET', `/v1/transactions/${tx.transactionRef}`, { key: originator.apiKey }))
            .body.status === 'CONFIRMED',
        'BASIC confirmed by the retry’s 200',
      );
      assert.equal(calls, 2);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.duplicate, false, 'the retry is the first successful handling');
      assert.deepEqual(
        events[0]!.pii,
        asDelivered(body.pii, originator, beneficiary),
        'and carries the decrypted personal data',
      );
      const { body: list } = await hub().request(
        'GET',
        `/v1/webhooks/deliveries?transactionRef=${tx.transactionRef}`,
        { key: beneficiary.apiKey },
      );
      assert.deepEqual(
        list.deliveries[0].attemptLog.map((a: { statusCode: number }) => a.statusCode),
        [500, 200],
      );
    } finally {
      server.close();
    }
  });

  it('reference receiver: a copy that arrives while the first is still handled is asked to retry', async () => {
    const org = await hub().createOrg();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const events: ReceivedEvent[] = [];
    const server = createReceiver({
      secrets: [org.webhookSecret],
      onEvent: async (e) => {
        events.push(e);
        if (!e.duplicate) await held;
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/notify/ping`;
      const ping = JSON.stringify({ type: 'ping', organizationId: org.id, sentAt: new Date().toISOString() });
      const headers = {
        'content-type': 'application/json',
        ...webhookHeaders([org.webhookSecret], 'msg_toolkit_slow', Math.floor(Date.now() / 1000), ping),
      };
      const first = fetch(url, { method: 'POST', headers, body: ping });
      await eventually(() => events.length > 0 || undefined, 'the first copy in its handler');
      const second = await fetch(url, { method: 'POST', headers, body: ping });
      assert.equal(second.status, 409);
      release();
      assert.equal((await first).status, 200);
      const third = await fetch(url, { method: 'POST', headers, body: ping });
      assert.deepEqual(await third.json(), { status: 'duplicate' });
      assert.deepEqual(
        events.map((e) => e.duplicate),
        [false, true],
      );
    } finally {
      server.close();
    }
  });
});
