/**
 * Initiate throughput and latency at SCALE.connections connections, against two baselines: a bare
 * Fastify route validating the same body, and the same plus a naive one-row insert into the same
 * kind of database. The hub runs API-only (worker off), as in a scale-out. Also the hub's peak
 * RSS and CPU under that load, and one round with an Idempotency-Key per request.
 */

import { type BenchDatabase, freshDatabase } from '../lib/databases.js';
import { initiateBody, seed, startHub } from '../lib/hub.js';
import { alternate, cannon, combine, peakRss, side } from '../lib/load.js';
import { busyNote, procStats, round } from '../lib/measure.js';
import { BACKEND, PG_URL, SCALE } from '../lib/options.js';
import { startBenchServer, stop } from '../lib/processes.js';
import { rows } from '../report.js';

/** Runs the scenario; returns the hub's database and how long its first start took (new data). */
export async function initiate(receiverUrl: string): Promise<{ hubDb: BenchDatabase; startupNewMs: number }> {
  const sampleBody = initiateBody('did:web:bench.example');
  const validate = await startBenchServer('baseline-server.ts', ['validate']);
  const v = await cannon(validate.url, sampleBody);
  await stop(validate.child);
  rows.push({
    scenario: 'baseline: Fastify POST + schema validation',
    value: v.rps,
    unit: 'req/s',
    p50: v.p50,
    p99: v.p99,
    errors: v.errors,
  });

  // The naive insert and the hub's initiate alternate: naive, hub, hub, naive, each half the
  // scenario's time, so that the machine's drift during the scenario weighs on both sides alike.
  const naiveDb = await freshDatabase();
  const insert = await startBenchServer('baseline-server.ts', ['insert'], naiveDb.env);
  const hubDb = await freshDatabase();
  const startNew = performance.now();
  const hub = await startHub(hubDb.env, false);
  const startupNewMs = performance.now() - startNew;
  const { originator, beneficiary } = await seed(hub, receiverUrl);
  const body = initiateBody(beneficiary.organization.vaspDid);
  const half = SCALE.seconds / 2;
  // Both servers warm up first (discarded), so that neither side's figure includes its JIT
  // compiling the request path.
  const warmUp = Math.min(2, half);
  await cannon(insert.url, sampleBody, undefined, warmUp);
  await cannon(hub.url, body, originator.apiKey, warmUp);
  const sides = {
    naive: side(insert.child.pid!, insert.url, sampleBody),
    hub: side(hub.child.pid!, hub.url, body, originator.apiKey as string),
  };
  const rss = peakRss([hub.child.pid!]);
  await alternate(sides, ['naive', 'hub', 'hub', 'naive'], half);
  const [peakMb] = rss.stop();
  // The same requests, each with an Idempotency-Key of its own, as the integration guide asks of
  // clients: one round after the others.
  const keyedCpu = procStats(hub.child.pid!).cpuMs;
  const keyed = await cannon(hub.url, body, originator.apiKey, half, { idempotencyKeys: true });
  const keyedCpuMs = procStats(hub.child.pid!).cpuMs - keyedCpu;
  await stop(insert.child);
  const n = combine(sides.naive.runs);
  const h = combine(sides.hub.runs);
  const rounds = (runs: { rps: number }[]) => `rounds: ${runs.map((r) => round(r.rps, 0)).join(', ')} req/s`;
  const perRequest = (ms: number, requests: number) => round((ms * 1000) / requests, 0);
  rows.push({
    scenario: `baseline: + naive 1-row insert (${BACKEND})`,
    value: n.rps,
    unit: 'req/s',
    p50: n.p50,
    p99: n.p99,
    errors: n.errors,
    note:
      `${rounds(sides.naive.runs)}; server ${perRequest(sides.naive.cpuMs, n.requests)} µs per request` +
      (PG_URL ? `, PostgreSQL ${perRequest(sides.naive.dbCpuMs, n.requests)} µs per request` : '') +
      `; ${busyNote(sides.naive.busy)}`,
  });
  rows.push({
    scenario: 'initiate (auth, validation, IVMS101, encryption, commit)',
    value: h.rps,
    unit: 'req/s',
    p50: h.p50,
    p99: h.p99,
    errors: h.errors,
    baseline: 'naive insert',
    ratio: h.rps / n.rps,
    note: `${rounds(sides.hub.runs)}; ${round(h.rps / v.rps, 2)}× the bare validated POST`,
  });
  rows.push({
    scenario: 'initiate with an Idempotency-Key per request',
    value: keyed.rps,
    unit: 'req/s',
    p50: keyed.p50,
    p99: keyed.p99,
    errors: keyed.errors,
    baseline: 'naive insert',
    ratio: keyed.rps / n.rps,
    note:
      `one round of ${half} s after the others; hub ${perRequest(keyedCpuMs, keyed.requests)} µs per request; ` +
      "the key's record is written in the same group-commit statement as the transaction",
  });
  rows.push({ scenario: 'hub RSS under initiate load (peak)', value: peakMb!, unit: 'MB' });
  rows.push({
    scenario: 'hub CPU under initiate load',
    value: (sides.hub.cpuMs / sides.hub.wallMs) * 100,
    unit: '% of one core',
    note:
      `${perRequest(sides.hub.cpuMs, h.requests)} µs per request` +
      (PG_URL
        ? `; PostgreSQL ${round((sides.hub.dbCpuMs / sides.hub.wallMs) * 100, 0)} % of a core, ${perRequest(sides.hub.dbCpuMs, h.requests)} µs per request`
        : '') +
      `; ${busyNote(sides.hub.busy)}`,
  });
  await stop(hub.child);
  return { hubDb, startupNewMs };
}
