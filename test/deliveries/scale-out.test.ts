/**
 * Scale-out on PostgreSQL: two hub processes (API + worker each) on one database. Transactions
 * initiated across both are delivered exactly once: the workers share the outbox through
 * FOR UPDATE SKIP LOCKED, and nothing in either process's memory decides who sends what.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { pgAdmin as admin, backendSkip, PG_ADMIN_URL } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { mainRequest } from '../support/requests.js';
import { HubProcess, hubEnv } from './hub-process.js';

const COUNT = 500;

describe('scale-out on PostgreSQL', {
  skip: await backendSkip('postgres', 'scale-out'),
}, () => {
  const name = `trh_scale_${randomBytes(6).toString('hex')}`;
  // One database, one master key: what one test's hubs seal (the link key, SPEC §14) the next
  // test's hubs must open, as every process of a real deployment shares the key.
  const masterKey = randomBytes(32).toString('base64');
  const processes: HubProcess[] = [];
  let receiver: Receiver | undefined;
  after(async () => {
    for (const p of processes) await p.stop('SIGKILL').catch(() => {});
    await receiver?.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  });

  it('delivers every `received` of 500 transactions initiated across two processes exactly once', async (t) => {
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    receiver = await Receiver.start();
    const env = hubEnv({
      DATABASE_URL: url.toString(),
      HUB_MASTER_KEY: masterKey,
      HUB_RETRY_SCHEDULE: '200ms,200ms,200ms',
    });
    const [a, b] = await Promise.all([HubProcess.start(env), HubProcess.start(env)]);
    processes.push(a!, b!);
    const originator = await a!.createOrg({});
    const beneficiary = await b!.createOrg({ travelEndpoint: `${receiver.url}/b` });

    const started = Date.now();
    const refs: string[] = [];
    let next = 0;
    const client = async () => {
      while (next < COUNT) {
        const i = next++;
        const hub = i % 2 === 0 ? a! : b!;
        const res = await hub.request(
          'POST',
          '/v1/transactions/initiate',
          originator.apiKey,
          mainRequest(beneficiary.vaspDid),
        );
        assert.equal(res.status, 200, res.text);
        refs.push(res.body.transactionRef);
      }
    };
    await Promise.all(Array.from({ length: 16 }, client));
    const initiated = Date.now();
    await receiver.waitFor(
      (r) => r.to('/b/v1/notify/received').length >= COUNT,
      60_000,
      `${COUNT} deliveries`,
    );
    const delivered = Date.now();

    // Let anything that would come twice arrive, then compare.
    await new Promise((r) => setTimeout(r, 1000));
    const got = receiver.to('/b/v1/notify/received');
    const ids = got.map((r) => String(r.headers['webhook-id']));
    assert.equal(new Set(ids).size, COUNT, 'one webhook-id per transaction');
    assert.equal(got.length, COUNT, 'no message delivered twice');
    const sentRefs = got.map((r) => JSON.parse(r.body).transactionRef as string);
    assert.deepEqual(sentRefs.sort(), [...refs].sort());

    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    try {
      await eventually(async () => {
        const rows = await db.query(
          `SELECT count(*) FILTER (WHERE status = 'DELIVERED' AND attempts = 1)::int AS ok, count(*)::int AS n
             FROM deliveries`,
        );
        return rows.rows[0].ok === COUNT && rows.rows[0].n === COUNT;
      }, 'every delivery DELIVERED after one attempt');
      const states = await db.query(`SELECT status, count(*)::int AS n FROM transactions GROUP BY status`);
      assert.deepEqual(states.rows, [{ status: 'RECEIVER_NOTIFIED', n: COUNT }]);
    } finally {
      await db.end();
    }

    const perProcess = await Promise.all(
      [a!, b!].map(async (p) => {
        const text = await (await fetch(`${p.url}/metrics`)).text();
        const m = /hub_deliveries_total\{event="received",outcome="delivered"\} (\d+)/.exec(text);
        return m ? Number(m[1]) : 0;
      }),
    );
    assert.equal(perProcess[0]! + perProcess[1]!, COUNT);
    t.diagnostic(
      `initiated ${COUNT} in ${initiated - started} ms; all delivered ${delivered - started} ms after the first ` +
        `initiate (${Math.round((COUNT * 1000) / (delivered - started))}/s end to end); ` +
        `delivered by process A ${perProcess[0]}, B ${perProcess[1]}`,
    );
    assert.equal(await a!.stop('SIGTERM'), 0);
    assert.equal(await b!.stop('SIGTERM'), 0);
  });

  it('lets `travel-rule-hub worker` deliver for API processes that run no worker', async () => {
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    const env = hubEnv({
      DATABASE_URL: url.toString(),
      HUB_MASTER_KEY: masterKey,
      HUB_RETRY_SCHEDULE: '200ms,200ms,200ms',
    });
    const api = await HubProcess.start({ ...env, HUB_WORKER: 'false' });
    processes.push(api);
    assert.match(api.output, /Delivery worker: off/);
    const own = await Receiver.start();
    try {
      const originator = await api.createOrg({});
      const beneficiary = await api.createOrg({ travelEndpoint: `${own.url}/w` });
      const ref = (
        await api.request(
          'POST',
          '/v1/transactions/initiate',
          originator.apiKey,
          mainRequest(beneficiary.vaspDid),
        )
      ).body.transactionRef;
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(own.requests.length, 0, 'nothing is sent without a worker');
      const worker = await HubProcess.start(env, 60_000, 'worker');
      processes.push(worker);
      await own.waitFor((r) => r.to('/w/v1/notify/received').length === 1, 10_000);
      await eventually(
        async () =>
          (await api.request('GET', `/v1/transactions/${ref}`, originator.apiKey)).body.status ===
          'RECEIVER_NOTIFIED',
        'RECEIVER_NOTIFIED',
      );
      assert.equal(await worker.stop('SIGTERM'), 0);
      assert.equal(await api.stop('SIGTERM'), 0);
    } finally {
      await own.close();
    }
  });
  it('survives PostgreSQL ending its connections: serves on, and directory changes still reach the other process', async () => {
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    const env = hubEnv({ DATABASE_URL: url.toString(), HUB_MASTER_KEY: masterKey });
    const [a, b] = await Promise.all([HubProcess.start(env), HubProcess.start(env)]);
    processes.push(a!, b!);
    const org = await a!.createOrg({});
    const second = await a!.request('POST', '/v1/organizations/me/api-keys', org.apiKey);
    assert.equal(second.status, 201, second.text);

    const listening = async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        const r = await c.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN %'`,
          [name],
        );
        return r.rows[0].n as number;
      } finally {
        await c.end();
      }
    };
    await eventually(async () => (await listening()) === 4, 'two LISTEN connections per process');
    await admin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
    );
    await eventually(async () => (await listening()) === 4, 'every LISTEN restored');
    assert.equal(a!.child.exitCode, null, 'process A is running');
    assert.equal(b!.child.exitCode, null, 'process B is running');

    // B caches the second key; A revokes it. Only B's restored LISTEN can tell B before the
    // cache's own expiry (5 s after this request).
    const cachedAt = Date.now();
    assert.equal((await b!.request('GET', '/v1/organizations/me', second.body.apiKey)).status, 200);
    const revoked = await a!.request(
      'DELETE',
      `/v1/organizations/me/api-keys/${second.body.keyId}`,
      org.apiKey,
    );
    assert.equal(revoked.status, 204, revoked.text);
    await eventually(
      async () => (await b!.request('GET', '/v1/organizations/me', second.body.apiKey)).status === 401,
      'process B refuses the revoked key',
      2000,
    );
    assert.ok(Date.now() - cachedAt < 4000, 'refused before the cache would have expired on its own');
    assert.equal(await a!.stop('SIGTERM'), 0);
    assert.equal(await b!.stop('SIGTERM'), 0);
  });
});
