import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { eachBackend, startHub } from '../harness.js';

eachBackend('operations endpoints', (hub, backend) => {
  it('answers /healthz and /readyz without a key', async () => {
    assert.deepEqual((await hub().request('GET', '/healthz')).body, { status: 'ok' });
    assert.deepEqual((await hub().request('GET', '/readyz')).body, { status: 'ready' });
  });

  it('serves Prometheus metrics labelled by route pattern', async () => {
    const org = await hub().createOrg();
    await hub().request('GET', '/v1/organizations/me', { key: org.apiKey });
    const res = await hub().request('GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(
      res.text,
      /hub_http_requests_total\{method="GET",route="\/v1\/organizations\/me",status="200"\} \d+/,
    );
    assert.match(res.text, /process_cpu_user_seconds_total/);
  });

  it('publishes an OpenAPI 3.1 document and a docs page', async () => {
    const res = await hub().request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    assert.ok(res.body.paths['/v1/organizations'].get);
    assert.ok(res.body.paths['/v1/admin/organizations'].post);
    assert.deepEqual(res.body.components.securitySchemes.apiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
    // Every operation that takes a body documents both refusals of it (wrong type, too large).
    for (const [path, item] of Object.entries<any>(res.body.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!op.requestBody) continue;
        for (const status of ['413', '415']) {
          assert.ok(op.responses[status], `${method.toUpperCase()} ${path} documents ${status}`);
        }
      }
    }
    // An enum of strings says so (client generators make string enums of it), while the request
    // schema itself leaves the type out: a number for `protocol` is one problem, not two.
    const initiate = res.body.paths['/v1/transactions/initiate'].post;
    const protocol = initiate.requestBody.content['application/json'].schema.properties.protocol;
    assert.deepEqual(protocol, { type: 'string', enum: ['MAIN', 'BASIC', 'NOTIFY', 'TRP'] });
    const org = await hub().createOrg();
    const wrong = await hub().request('POST', '/v1/transactions/initiate', {
      key: org.apiKey,
      body: { protocol: 7 },
    });
    assert.equal(wrong.status, 400);
    assert.deepEqual(
      wrong.body.errors.filter((e: { path: string }) => e.path === '/protocol'),
      [{ path: '/protocol', message: 'must be one of MAIN, BASIC, NOTIFY, TRP' }],
    );
    const docs = await hub().request('GET', '/docs/');
    assert.equal(docs.status, 200);
    assert.match(docs.text, /<html/i);
  });

  if (backend === 'pglite') {
    it('opens PGlite with 32 MB of shared buffers, which it zeroes at every start', async () => {
      const [row] = await hub().db.query<{ shared_buffers: string }>('SHOW shared_buffers');
      assert.equal(row?.shared_buffers, '32MB');
    });
  }

  it('runs parameterized statements as prepared statements, parsed once per connection', async () => {
    const text = 'SELECT $1::int + 1 AS n';
    const prepared = await hub().db.transaction(async (tx) => {
      assert.deepEqual(await tx.query(text, [41]), [{ n: 42 }]);
      assert.deepEqual(await tx.query(text, [1]), [{ n: 2 }]);
      return tx.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
    });
    assert.equal(prepared.filter((p) => p.statement === text).length, 1);
  });

  it('returns a request id and never logs the API key', async () => {
    const org = await hub().createOrg();
    const res = await hub().request('GET', '/v1/organizations/me', {
      key: org.apiKey,
      headers: { 'x-request-id': 'trace-123' },
    });
    assert.equal(res.headers.get('x-request-id'), 'trace-123');
    assert.match(hub().allLogs(), /"reqId":"trace-123"/);
    assert.ok(!hub().allLogs().includes(org.apiKey));
    assert.ok(!hub().allLogs().includes(hub().adminKey));
  });

  it('returns the request id on error answers too', async () => {
    const org = await hub().createOrg();
    const cases = [
      { path: '/v1/organizations/me', key: 'trh_not_a_key', status: 401 },
      { path: '/v1/no-such-route', key: org.apiKey, status: 404 },
    ];
    for (const [i, c] of cases.entries()) {
      const res = await hub().request('GET', c.path, { key: c.key, headers: { 'x-request-id': `err-${i}` } });
      assert.equal(res.status, c.status);
      assert.equal(res.headers.get('x-request-id'), `err-${i}`);
    }
    const unsupported = await fetch(`${hub().url}/v1/transactions/initiate`, {
      method: 'POST',
      headers: { 'x-api-key': org.apiKey, 'content-type': 'text/plain', 'x-request-id': 'err-415' },
      body: 'hello',
    });
    assert.equal(unsupported.status, 415);
    assert.equal(unsupported.headers.get('x-request-id'), 'err-415');
  });
  it('answers errors the router raises before any hook as problem+json, after checking the key', async () => {
    const org = await hub().createOrg();
    for (const path of [
      '/v1/transactions/%E0%A4%A',
      '/v1/transactions/%',
      `/v1/transactions/${'a'.repeat(150)}`,
    ]) {
      const res = await hub().request('GET', path, {
        key: org.apiKey,
        headers: { 'x-request-id': 'bad-url' },
      });
      assert.equal(res.status, 400, `${path}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.equal(res.headers.get('x-request-id'), 'bad-url');
      const noKey = await hub().request('GET', path);
      assert.equal(noKey.status, 401, `${path} without a key: ${noKey.text}`);
      assert.equal(noKey.body.code, 'UNAUTHENTICATED');
      const unknownKey = await hub().request('POST', path, { key: `trh_${'x'.repeat(43)}`, body: {} });
      assert.equal(unknownKey.status, 401, `${path} with an unknown key: ${unknownKey.text}`);
    }
    const operatorOutsideAdmin = await hub().admin('GET', '/v1/transactions/%zz');
    assert.equal(operatorOutsideAdmin.body.code, 'FORBIDDEN');
  });

  it('answers a request that is not valid HTTP with problem+json and closes the connection', async () => {
    const answers = await Promise.all([
      rawRequest(hub().url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
      rawRequest(hub().url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    ]);
    const [malformed, oversized] = answers.map((raw) => {
      const [head, body] = raw.split('\r\n\r\n');
      return { head: head!, body: JSON.parse(body!) };
    });
    assert.match(malformed!.head, /^HTTP\/1\.1 400 /);
    assert.match(malformed!.head, /content-type: application\/problem\+json/i);
    assert.equal(malformed!.body.code, 'VALIDATION_FAILED');
    assert.match(oversized!.head, /^HTTP\/1\.1 431 /);
    assert.equal(oversized!.body.code, 'HEADERS_TOO_LARGE');
    assert.equal(oversized!.body.status, 431);
  });
});

describe('shutting down', () => {
  it('answers a request still arriving on an open connection with 503 UNAVAILABLE as problem+json', async () => {
    const hub = await startHub('pglite', { HUB_WORKER: 'false' });
    try {
      const org = await hub.createOrg();
      const { hostname, port } = new URL(hub.url);
      const socket = connect(Number(port), hostname);
      const chunks: Buffer[] = [];
      socket.on('data', (c) => chunks.push(c));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      await new Promise((resolve) => socket.once('connect', resolve));
      // The first request is under way (its body not yet sent) when the hub starts closing.
      socket.write(
        'POST /v1/transactions/initiate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          `x-api-key: ${org.apiKey}\r\nContent-Length: 2\r\n\r\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closing = hub.hub.app.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.write('{}GET /healthz HTTP/1.1\r\nHost: x\r\nx-request-id: late-1\r\n\r\n');
      await closed;
      await closing;
      const raw = Buffer.concat(chunks).toString('utf8');
      const second = raw.slice(raw.indexOf('HTTP/1.1', 1));
      assert.match(raw, /^HTTP\/1\.1 400 /, 'the first request is answered as usual');
      assert.match(second, /^HTTP\/1\.1 503 /, raw);
      assert.match(second, /content-type: application\/problem\+json/i);
      assert.match(second, /x-request-id: late-1/i);
      assert.match(second, /"code":"UNAVAILABLE"/);
    } finally {
      await hub.destroy();
    }
  });
});

/** Sends raw bytes and returns everything the server writes before it closes the connection. */
function rawRequest(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

eachBackend(
  'per-key rate limit',
  (hub) => {
    it('answers 429 RATE_LIMITED with Retry-After once a key exceeds its rate', async () => {
      const org = await hub().createOrg();
      const other = await hub().createOrg();
      const statuses: number[] = [];
      let limited: any;
      for (let i = 0; i < 8; i++) {
        const res = await hub().request('GET', '/v1/organizations/me', { key: org.apiKey });
        statuses.push(res.status);
        if (res.status === 429) limited = res;
      }
      assert.ok(statuses.includes(200) && limited, statuses.join(','));
      assert.equal(limited.body.code, 'RATE_LIMITED');
      assert.match(limited.headers.get('content-type'), /application\/problem\+json/);
      assert.ok(Number(limited.headers.get('retry-after')) >= 0);
      const otherRes = await hub().request('GET', '/v1/organizations/me', { key: other.apiKey });
      assert.equal(otherRes.status, 200, 'another key has its own budget');
    });

    it('answers 429 to an address that sends more unknown keys a second than the rate, without holding back known keys', async () => {
      const org = await hub().createOrg();
      assert.equal((await hub().request('GET', '/v1/organizations/me', { key: org.apiKey })).status, 200);
      // A directory change empties every process's look-up cache: no key is cached any more.
      const fresh = await hub().createOrg();
      const statuses: number[] = [];
      let limited: any;
      for (let i = 0; i < 8; i++) {
        const unknown = `trh_${randomBytes(32).toString('base64url')}`;
        const res = await hub().request('GET', '/v1/organizations', { key: unknown });
        statuses.push(res.status);
        if (res.status === 429) limited = res;
      }
      assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
      assert.ok(limited, statuses.join(','));
      assert.equal(limited.body.code, 'RATE_LIMITED');
      assert.equal(limited.headers.get('retry-after'), '1');
      const known = await hub().request('GET', '/v1/organizations/me', { key: org.apiKey });
      assert.equal(known.status, 200, 'a key this process knows is not held back');
      const unseen = await hub().request('GET', '/v1/organizations/me', { key: fresh.apiKey });
      assert.equal(unseen.status, 200, 'nor a valid key it has never seen');
    });

    it('limits requests outside /v1 by address, whatever x-api-key header they carry', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        // Each a different made-up header: before, each was a bucket of its own (never limited).
        const res = await fetch(`${hub().url}/ui/`, {
          headers: { 'x-api-key': randomBytes(2000).toString('base64url') },
        });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      assert.ok(statuses.includes(429), statuses.join(','));
    });
  },
  { HUB_RATE_LIMIT: '5' },
);
