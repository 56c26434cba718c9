import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WebhookSender } from '../../src/deliveries/sender.js';
import { generateWebhookSecret, newMessageId } from '../../src/deliveries/signing.js';
import { Receiver } from '../support/receiver.js';

describe('webhook sender', () => {
  let receiver: Receiver;
  const open = new WebhookSender({ allowPrivate: true, timeoutMs: 300 });
  const guarded = new WebhookSender({ allowPrivate: false, timeoutMs: 2000 });
  const secret = generateWebhookSecret();
  before(async () => {
    receiver = await Receiver.start();
  });
  after(async () => {
    await open.close();
    await guarded.close();
    await receiver.close();
  });

  it('POSTs the exact body with Standard Webhooks headers a participant verifies, for every secret', async () => {
    const old = generateWebhookSecret();
    const body = JSON.stringify({ transactionRef: 'r-1', note: 'ünïcode ✓' });
    const id = newMessageId();
    const r = await open.send(`${receiver.url}/v1/notify/received`, body, id, [secret, old]);
    assert.deepEqual([r.ok, r.statusCode, r.error], [true, 200, null]);
    assert.ok(r.latencyMs >= 0);
    const got = receiver.to('/v1/notify/received').at(-1)!;
    assert.equal(got.body, body);
    assert.equal(got.headers['webhook-id'], id);
    assert.match(String(got.headers['content-type']), /^application\/json/);
    const headers = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    assert.deepEqual(new Webhook(secret).verify(got.body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(old).verify(got.body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(got.body, headers));
    assert.throws(() => new Webhook(secret).verify(`${got.body} `, headers), 'a changed body fails');
  });

  it('treats non-2xx as failure, passes Retry-After on, and does not follow redirects', async () => {
    receiver.script('/a', { status: 503, headers: { 'retry-after': '120' } });
    const r = await open.send(`${receiver.url}/a`, '{}', newMessageId(), [secret]);
    assert.deepEqual([r.ok, r.statusCode, r.error, r.retryAfter], [false, 503, 'HTTP 503', '120']);
    receiver.script('/moved', { status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    const moved = await open.send(`${receiver.url}/moved`, '{}', newMessageId(), [secret]);
    assert.deepEqual([moved.ok, moved.statusCode], [false, 302]);
    assert.equal(receiver.to('/elsewhere').length, 0);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    receiver.script('/slow', { status: 200, delayMs: 1500 });
    const r = await open.send(`${receiver.url}/slow`, '{}', newMessageId(), [secret]);
    assert.equal(r.ok, false);
    assert.equal(r.statusCode, null);
    assert.match(r.error!, /^timeout/);
    assert.ok(r.latencyMs < 1400, `gave up after ${r.latencyMs} ms`);
  });

  it('stops reading a 2xx answer whose body keeps trickling past the timeout', async () => {
    // The status is the answer; each body byte arrives within the idle timeouts, so only the
    // overall deadline stops the send from holding its slot (and lease) for as long as it trickles.
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n');
        const drip = setInterval(() => socket.write('1\r\nx\r\n'), 50);
        socket.on('close', () => clearInterval(drip));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await open.send(`http://127.0.0.1:${port}/drip`, '{}', newMessageId(), [secret]);
      assert.deepEqual([r.ok, r.statusCode, r.error], [true, 200, null]);
      assert.ok(r.latencyMs >= 290 && r.latencyMs < 1000, `gave up after ${r.latencyMs} ms`);
    } finally {
      server.close();
    }
  });

  it("counts the receiver's time from when the request is written, not while it waits for a connection", async () => {
    // One connection and a receiver taking 200 ms: the second send waits ~200 ms for the
    // connection, then gets its answer ~400 ms after it was handed over, past the 300 ms timeout.
    const single = new WebhookSender({ allowPrivate: true, timeoutMs: 300, connections: 1 });
    receiver.script('/slow', { status: 200, delayMs: 200 }, { status: 200, delayMs: 200 });
    try {
      const results = await Promise.all([
        single.send(`${receiver.url}/slow`, '{}', newMessageId(), [secret]),
        single.send(`${receiver.url}/slow`, '{}', newMessageId(), [secret]),
      ]);
      assert.deepEqual(
        results.map((r) => [r.ok, r.statusCode, r.error]),
        [
          [true, 200, null],
          [true, 200, null],
        ],
      );
      for (const r of results)
        assert.ok(r.latencyMs < 300, `latency ${r.latencyMs} ms is the receiver's time`);
    } finally {
      await single.close();
    }
  });

  it('never sends late a request abandoned while waiting for a connection', async () => {
    // One connection, held by a receiver that does not answer in time; the second send gives up
    // waiting for it first.
    const single = new WebhookSender({
      allowPrivate: true,
      timeoutMs: 300,
      queueTimeoutMs: 100,
      connections: 1,
    });
    receiver.script('/hold', { status: 200, delayMs: 1500 });
    try {
      const [held, queued] = await Promise.all([
        single.send(`${receiver.url}/hold`, '{}', newMessageId(), [secret]),
        single.send(`${receiver.url}/queued`, '{}', newMessageId(), [secret]),
      ]);
      assert.match(held.error!, /^timeout/);
      assert.deepEqual([queued.ok, queued.statusCode], [false, null]);
      assert.match(queued.error!, /^not sent: no free connection to the receiver within 0.1 s/);
      // The connection is free again now; the abandoned request must not go out on it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.to('/queued').length, 0);
      const after = await single.send(`${receiver.url}/after`, '{}', newMessageId(), [secret]);
      assert.equal(after.ok, true, 'the sender still works');
    } finally {
      await single.close();
    }
  });

  it('refuses to send once aborted or closed, even if it never sent before (its pool loads on first use)', async () => {
    const aborted = new WebhookSender({ allowPrivate: true, timeoutMs: 300 });
    await aborted.abortAll();
    const r = await aborted.send(`${receiver.url}/after-abort`, '{}', newMessageId(), [secret]);
    assert.deepEqual([r.ok, r.statusCode, r.error], [false, null, 'hub shut down before the answer came']);
    await aborted.close();
    const closed = new WebhookSender({ allowPrivate: true, timeoutMs: 300 });
    await closed.close();
    const c = await closed.send(`${receiver.url}/after-abort`, '{}', newMessageId(), [secret]);
    assert.deepEqual([c.ok, c.statusCode, c.error], [false, null, 'the webhook sender is closed']);
    assert.equal(receiver.to('/after-abort').length, 0);
  });

  it('cuts off a long answer but keeps its status', async () => {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => {
        socket.write('HTTP/1.1 202 Accepted\r\ncontent-type: text/plain\r\ncontent-length: 1000000\r\n\r\n');
        socket.write('x'.repeat(200_000));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await open.send(`http://127.0.0.1:${port}/long`, '{}', newMessageId(), [secret]);
      assert.deepEqual([r.ok, r.statusCode, r.error], [true, 202, null]);
      assert.ok(r.latencyMs < 290, `stopped reading after ${r.latencyMs} ms, not at the deadline`);
    } finally {
      server.close();
    }
  });

  it('reports network errors as failures', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const r = await open.send(`http://127.0.0.1:${port}/x`, '{}', newMessageId(), [secret]);
    assert.equal(r.ok, false);
    assert.match(r.error!, /ECONNREFUSED/);
  });

  it('resolves names through the guard when private endpoints are not allowed (no rebinding window)', async () => {
    const port = new URL(receiver.url).port;
    const before = receiver.requests.length;
    const r = await guarded.send(`https://localhost:${port}/v1/notify/received`, '{}', newMessageId(), [
      secret,
    ]);
    assert.equal(r.ok, false);
    assert.match(r.error!, /^target refused: localhost resolves to a non-public address/);
    assert.equal(receiver.requests.length, before);
  });
});
