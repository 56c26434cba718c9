/**
 * The TRP listener on its own (no database: the routes under test never reach the bridge): the
 * per-address rate limit, and the discoverability answers.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, it } from 'node:test';
import pino from 'pino';
import { TestCa } from '../../scripts/certs.js';
import type { TrpBridge } from '../../src/trp/bridge.js';
import { createTrpListener, type TrpListener } from '../../src/trp/listener.js';

const ca = TestCa.create('listener');
const leaf = ca.issue('hub');
let listener: TrpListener;
let url: string;

before(async () => {
  const config = {
    port: 0,
    publicUrl: 'https://trp.hub.example',
    cert: leaf.cert,
    key: leaf.key,
    ca: ca.cert,
    mtls: true,
  };
  listener = createTrpListener(config, {} as TrpBridge, pino({ level: 'silent' }), 3);
  url = await listener.listen('127.0.0.1');
});
after(async () => {
  await listener.close();
  ca.remove();
});

function get(path: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { ca: ca.cert }, (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('answers the discoverability GETs without a client certificate, with TRP’s version header', async () => {
  const version = await get('/version');
  assert.equal(version.status, 200);
  assert.equal(JSON.parse(version.body).version, '3.2.1');
  assert.equal(version.headers['api-version'], '3.2.1');
  assert.deepEqual(JSON.parse((await get('/extensions')).body), { required: [], supported: [] });
  assert.match((await get('/uptime')).body, /^\d+$/);
});

it('limits requests per client address and says so in TRP’s error form', async () => {
  const answers = await Promise.all(Array.from({ length: 8 }, () => get('/version')));
  const limited = answers.filter((a) => a.status === 429);
  assert.ok(limited.length >= 4, answers.map((a) => a.status).join(','));
  assert.deepEqual(JSON.parse(limited[0]!.body), {
    error: 'Too many requests from this address; retry later.',
  });
});
