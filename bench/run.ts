/**
 * `npm run bench [-- --quick | --smoke] [--only=initiate,startup,e2e,drain]`: measures the
 * hub against baselines taken in the same run on this machine, and prints a markdown table
 * (also bench/results/latest.json). Every server runs in a child process; load comes from this
 * process; everything targets 127.0.0.1 and is bounded in time. PostgreSQL when DATABASE_URL
 * is set (each run makes fresh databases on that server and drops them), else PGlite.
 *
 * Scenarios: baselines (bare validated POST; + naive one-row insert; raw undici sender),
 * initiate throughput and latency (autocannon), end-to-end webhook latency under open-loop
 * load, delivery throughput of one worker, resources (RSS, CPU) and start-up time.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { Agent, Pool, request } from 'undici';
import { generateParticipantKeyPair } from '../src/crypto/jwe.js';
import { openPglite } from '../src/db/pglite.js';
import { mainRequest } from '../test/support/requests.js';

const ROOT = new URL('..', import.meta.url).pathname;
const argv = new Set(process.argv.slice(2));
/** `--only=initiate,e2e,drain` runs some scenarios (each with the baselines it is compared to). */
const ONLY = new Set(
  [...argv]
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',') ?? (argv.has('--initiate-only') ? ['initiate'] : ['initiate', 'startup', 'e2e', 'drain']),
);
/** Extra node flags for the hub process, e.g. BENCH_HUB_NODE_ARGS=--cpu-prof to profile it. */
/** BENCH_HUB_STDERR=<file>: append every child's stderr there (the hub's warnings, errors). */
const HUB_NODE_ARGS = process.env.BENCH_HUB_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const SCALE = argv.has('--smoke')
  ? { name: 'smoke', seconds: 1, connections: 10, rate: 50, rateSeconds: 1, deliveries: 200 }
  : argv.has('--quick')
    ? { name: 'quick', seconds: 3, connections: 50, rate: 500, rateSeconds: 3, deliveries: 5000 }
    : { name: 'full', seconds: 10, connections: 50, rate: 500, rateSeconds: 10, deliveries: 20000 };
const PG_URL = process.env.DATABASE_URL;
const BACKEND = PG_URL ? 'postgres' : 'pglite';
const HUB_ENTRY = process.env.BENCH_HUB_ENTRY ?? join(ROOT, 'dist/bundle/index.js');
const ADMIN_KEY = `trh_admin_${randomBytes(24).toString('base64url')}`;
const MASTER_KEY = randomBytes(32).toString('base64');

interface Row {
  scenario: string;
  value: number;
  unit: string;
  p50?: number;
  p99?: number;
  errors?: number;
  baseline?: string;
  ratio?: number;
  note?: string;
}
const rows: Row[] = [];
const children = new Set<ChildProcess>();
const cleanups: (() => Promise<void>)[] = [];

// ---------- processes ----------

function spawnReady(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`timed out starting ${args.join(' ')}: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d;
      const m = out.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m, ms: performance.now() - started });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const log = process.env.BENCH_HUB_STDERR;
    if (log) child.stderr!.on('data', (d: Buffer) => appendFileSync(log, d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${out}`));
    });
  });
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/**
 * Before a scenario is measured, what the ones before it wrote goes away and reaches the disk:
 * their databases (or data directories) are dropped, PostgreSQL writes a checkpoint, and the
 * kernel writes its dirty pages (`sync`). Otherwise the kernel writes back the initiate rounds'
 * data (hundreds of MB) during the next scenario: in runs on 2026-11-24 that followed them, a write-back of
 * 180 MB in one second stalled PostgreSQL's commits (each waits for its WAL flush) and took the
 * end-to-end p99 from 22–26 ms (the scenario alone) to 138–162 ms.
 */
async function settle(): Promise<void> {
  for (const clean of cleanups.splice(0)) await clean().catch(() => {});
  if (PG_URL) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query('CHECKPOINT');
    } catch (err) {
      process.stderr.write(`bench: no CHECKPOINT before the next scenario: ${(err as Error).message}\n`);
    } finally {
      await c.end();
    }
  }
  spawnSync('sync');
}

async function freshDatabase(): Promise<{ env: Record<string, string>; url?: string }> {
  if (!PG_URL) {
    const dir = mkdtempSync(join(tmpdir(), 'trh-bench-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return { env: { HUB_DATA_DIR: dir } };
  }
  const name = `trh_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  return { env: { DATABASE_URL: url.toString() }, url: url.toString() };
}

interface Hub {
  child: ChildProcess;
  url: string;
  readyMs: number;
}

async function startHub(dbEnv: Record<string, string>, worker: boolean): Promise<Hub> {
  const started = performance.now();
  const { child, match } = await spawnReady(
    [...HUB_NODE_ARGS, HUB_ENTRY, 'serve'],
    {
      ...dbEnv,
      PORT: '0',
      HUB_ADMIN_KEY: ADMIN_KEY,
      HUB_MASTER_KEY: MASTER_KEY,
      HUB_RATE_LIMIT: '0',
      HUB_LOG_LEVEL: 'warn',
      HUB_ALLOW_PRIVATE_ENDPOINTS: 'true',
      HUB_WORKER: String(worker),
    },
    /listening on (http:\/\/[0-9.:]+)/,
  );
  const url = match[1]!;
  for (;;) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    if (res?.ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return { child, url, readyMs: performance.now() - started };
}

// ---------- helpers ----------

async function api(hub: Hub, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${hub.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function seed(hub: Hub, receiverUrl: string) {
  const suffix = randomBytes(4).toString('hex');
  const originator = await api(hub, 'POST', '/v1/admin/organizations', ADMIN_KEY, {
    name: 'Bench originator',
    vaspDid: `did:web:orig-${suffix}.bench`,
    travelEndpoint: receiverUrl,
  });
  const beneficiary = await api(hub, 'POST', '/v1/admin/organizations', ADMIN_KEY, {
    name: 'Bench beneficiary',
    vaspDid: `did:web:bene-${suffix}.bench`,
    travelEndpoint: receiverUrl,
    publicKey: generateParticipantKeyPair().publicKeyPem,
  });
  return { originator, beneficiary };
}

/**
 * The same ~2 KB initiation for every request: the interface document's MAIN sample with a
 * second originator person (a joint account) and both sides' account numbers, so that parsing,
 * validation, the IVMS101 checks and sealing work on the size issue 6 names.
 */
function initiateBody(beneficiaryDid: string): string {
  const body = mainRequest(beneficiaryDid);
  const persons = body.pii.originator.originatorPersons;
  const second = structuredClone(persons[0]);
  second.naturalPerson.name[0].nameIdentifier[0].secondaryIdentifier = 'Second Holder';
  persons.push(second);
  const accounts = (n: number, from: number) =>
    Array.from({ length: n }, (_, i) => `0x${String(from + i).repeat(40)}`);
  body.pii.originator.accountNumber = accounts(8, 1);
  body.pii.beneficiary.accountNumber = accounts(5, 1);
  return JSON.stringify(body);
}

interface CannonResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

async function cannon(
  url: string,
  body: string,
  key?: string,
  seconds = SCALE.seconds,
  options: { idempotencyKeys?: boolean } = {},
): Promise<CannonResult> {
  const result = await autocannon({
    url: `${url}/v1/transactions/initiate`,
    method: 'POST',
    connections: SCALE.connections,
    duration: seconds,
    headers: {
      'content-type': 'application/json',
      ...(key ? { 'x-api-key': key } : {}),
      // A fresh key per request (autocannon replaces [<id>]), as a client that follows the docs sends.
      ...(options.idempotencyKeys ? { 'idempotency-key': 'bench-[<id>]' } : {}),
    },
    idReplacement: options.idempotencyKeys === true,
    body,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    requests: result.requests.total,
  };
}

/** One side of the alternated initiate rounds: its results, and the CPU and time they took. */
function emptyTally() {
  return { runs: [] as CannonResult[], cpuMs: 0, dbCpuMs: 0, wallMs: 0, busy: emptyBusy() };
}

/**
 * Where a stretch of time left the machine: its idle and total CPU ticks (all CPUs), and how a
 * server's main thread spent it: ns running, ns runnable but waiting for a CPU (the rest it slept).
 */
interface Busy {
  wallMs: number;
  idleTicks: number;
  totalTicks: number;
  runNs: number;
  waitNs: number;
}

function emptyBusy(): Busy {
  return { wallMs: 0, idleTicks: 0, totalTicks: 0, runNs: 0, waitNs: 0 };
}

/** The start of a stretch measured by busySince, for the main thread of `pid`. */
function busyMark(pid: number) {
  return { pid, at: performance.now(), machine: machineTicks(), thread: mainThreadSched(pid) };
}

function busySince(mark: ReturnType<typeof busyMark>): Busy {
  const machine = machineTicks();
  const thread = mainThreadSched(mark.pid);
  return {
    wallMs: performance.now() - mark.at,
    idleTicks: machine.idle - mark.machine.idle,
    totalTicks: machine.total - mark.machine.total,
    runNs: thread.runNs - mark.thread.runNs,
    waitNs: thread.waitNs - mark.thread.waitNs,
  };
}

function addBusy(into: Busy, more: Busy): void {
  for (const k of Object.keys(into) as (keyof Busy)[]) into[k] += more[k];
}

function busyNote(b: Busy): string {
  const pct = (part: number, whole: number) => round((100 * part) / whole, 0);
  const wallNs = b.wallMs * 1e6;
  return (
    `machine idle ${pct(b.idleTicks, b.totalTicks)} %; ` +
    `main thread running ${pct(b.runNs, wallNs)} %, waiting for a CPU ${pct(b.waitNs, wallNs)} %`
  );
}

/** Rounds of one side as one figure: mean rate and p50, the worst p99, all errors and requests. */
function combine(runs: CannonResult[]): CannonResult {
  const sum = (f: (r: CannonResult) => number) => runs.reduce((a, r) => a + f(r), 0);
  return {
    rps: sum((r) => r.rps) / runs.length,
    p50: sum((r) => r.p50) / runs.length,
    p99: Math.max(...runs.map((r) => r.p99)),
    errors: sum((r) => r.errors),
    requests: sum((r) => r.requests),
  };
}

function procStats(pid: number): { cpuMs: number; rssMb: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks = Number(stat[11]) + Number(stat[12]);
    const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return { cpuMs: ticks * 10, rssMb: Number(rss ?? 0) / 1024 };
  } catch {
    return { cpuMs: 0, rssMb: 0 };
  }
}

/** The whole machine's idle (idle + iowait) and total CPU time since boot, in clock ticks. */
function machineTicks(): { idle: number; total: number } {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: ticks[3]! + ticks[4]!, total: ticks.reduce((a, b) => a + b, 0) };
}

/** A process's main thread, from the kernel's scheduler statistics: time running, time runnable but waiting. */
function mainThreadSched(pid: number): { runNs: number; waitNs: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
      .trim()
      .split(' ')
      .map(Number);
    return { runNs: run ?? 0, waitNs: wait ?? 0 };
  } catch {
    return { runNs: 0, waitNs: 0 };
  }
}

/** CPU time of each PostgreSQL server process on this machine (the bench's server is local). */
function databaseServerCpu(): Map<number, number> {
  const byPid = new Map<number, number>();
  if (!PG_URL) return byPid;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') {
        byPid.set(Number(pid), procStats(Number(pid)).cpuMs);
      }
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid;
}

/** CPU the server's processes used since `before` (a backend that exited meanwhile counts nothing). */
function databaseServerCpuSince(before: Map<number, number>): number {
  let ms = 0;
  for (const [pid, cpu] of databaseServerCpu()) ms += cpu - (before.get(pid) ?? 0);
  return ms;
}

async function receiverStats(url: string) {
  const res = await fetch(`${url}/stats`);
  return (await res.json()) as {
    count: number;
    unique: number;
    duplicates: number;
    arrivals: Record<string, number>;
  };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

// ---------- scenarios ----------

async function main() {
  const receiverProc = await spawnReady(
    ['--import', 'tsx', join(ROOT, 'bench/receiver-server.ts')],
    {},
    /READY (\d+)/,
  );
  const receiverUrl = `http://127.0.0.1:${receiverProc.match[1]}`;
  process.stderr.write(`bench (${SCALE.name}, ${BACKEND}): receiver at ${receiverUrl}\n`);
  if (ONLY.has('initiate') || ONLY.has('startup')) await initiateScenarios(receiverUrl);
  if (ONLY.has('e2e')) {
    await settle();
    await endToEnd(receiverUrl);
  }
  if (ONLY.has('drain')) {
    await settle();
    await drain(receiverUrl);
  }
  await stop(receiverProc.child);
  report();
}

/** Baselines, then initiate throughput (worker off), RSS/CPU, and start-up on new and existing data. */
async function initiateScenarios(receiverUrl: string) {
  // Baseline 1: bare validated POST.
  const sampleBody = initiateBody('did:web:bench.example');
  const validate = await spawnReady(
    ['--import', 'tsx', join(ROOT, 'bench/baseline-server.ts'), 'validate'],
    {},
    /READY (\d+)/,
  );
  const v = await cannon(`http://127.0.0.1:${validate.match[1]}`, sampleBody);
  await stop(validate.child);
  rows.push({
    scenario: 'baseline: Fastify POST + schema validation',
    value: v.rps,
    unit: 'req/s',
    p50: v.p50,
    p99: v.p99,
    errors: v.errors,
  });

  // Baseline 2 (+ naive one-row insert) and the hub's initiate, measured in alternation: naive,
  // hub, hub, naive (each SCALE.seconds / 2, after a warm-up of each), so that the machine's
  // drift during the scenario weighs on both sides alike. The hub runs API-only (worker off).
  const naiveDb = await freshDatabase();
  const insert = await spawnReady(
    ['--import', 'tsx', join(ROOT, 'bench/baseline-server.ts'), 'insert'],
    naiveDb.env,
    /READY (\d+)/,
  );
  const naiveUrl = `http://127.0.0.1:${insert.match[1]}`;
  const hubDb = await freshDatabase();
  const startNew = performance.now();
  let hub = await startHub(hubDb.env, false);
  const startupNewMs = performance.now() - startNew;
  const { originator, beneficiary } = await seed(hub, receiverUrl);
  const body = initiateBody(beneficiary.organization.vaspDid);
  const half = SCALE.seconds / 2;
  // Both servers warm up first (discarded), so that neither side's figure includes its JIT
  // compiling the request path.
  const warmUp = Math.min(2, half);
  await cannon(naiveUrl, sampleBody, undefined, warmUp);
  await cannon(hub.url, body, originator.apiKey, warmUp);
  const sides = {
    naive: { pid: insert.child.pid!, url: naiveUrl, body: sampleBody, key: undefined, ...emptyTally() },
    hub: { pid: hub.child.pid!, url: hub.url, body, key: originator.apiKey as string, ...emptyTally() },
  };
  let peakRss = procStats(hub.child.pid!).rssMb;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, procStats(hub.child.pid!).rssMb);
  }, 200);
  for (const name of ['naive', 'hub', 'hub', 'naive'] as const) {
    const side = sides[name];
    const cpu = procStats(side.pid).cpuMs;
    const dbCpu = databaseServerCpu();
    const mark = busyMark(side.pid);
    const t0 = performance.now();
    side.runs.push(await cannon(side.url, side.body, side.key, half));
    side.wallMs += performance.now() - t0;
    side.cpuMs += procStats(side.pid).cpuMs - cpu;
    side.dbCpuMs += databaseServerCpuSince(dbCpu);
    addBusy(side.busy, busySince(mark));
  }
  clearInterval(sampler);
  // The same requests, each with an Idempotency-Key of its own, as the integration guide asks of
  // clients: one round after the others.
  const keyedCpu = procStats(hub.child.pid!).cpuMs;
  const keyed = await cannon(hub.url, body, originator.apiKey, half, { idempotencyKeys: true });
  const keyedCpuMs = procStats(hub.child.pid!).cpuMs - keyedCpu;
  const naiveRuns = sides.naive.runs;
  const hubRuns = sides.hub.runs;
  await stop(insert.child);
  const n = combine(naiveRuns);
  const h = combine(hubRuns);
  rows.push({
    scenario: `baseline: + naive 1-row insert (${BACKEND})`,
    value: n.rps,
    unit: 'req/s',
    p50: n.p50,
    p99: n.p99,
    errors: n.errors,
    note:
      `rounds: ${naiveRuns.map((r) => round(r.rps, 0)).join(', ')} req/s; server ${round((sides.naive.cpuMs * 1000) / n.requests, 0)} µs per request` +
      (PG_URL ? `, PostgreSQL ${round((sides.naive.dbCpuMs * 1000) / n.requests, 0)} µs per request` : '') +
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
    note: `rounds: ${hubRuns.map((r) => round(r.rps, 0)).join(', ')} req/s; ${round(h.rps / v.rps, 2)}× the bare validated POST`,
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
      `one round of ${half} s after the others; hub ${round((keyedCpuMs * 1000) / keyed.requests, 0)} µs per request; ` +
      "the key's record is written in the same group-commit statement as the transaction",
  });
  rows.push({ scenario: 'hub RSS under initiate load (peak)', value: peakRss, unit: 'MB' });
  rows.push({
    scenario: 'hub CPU under initiate load',
    value: (sides.hub.cpuMs / sides.hub.wallMs) * 100,
    unit: '% of one core',
    note:
      `${round((sides.hub.cpuMs * 1000) / h.requests, 0)} µs per request` +
      (PG_URL
        ? `; PostgreSQL ${round((sides.hub.dbCpuMs / sides.hub.wallMs) * 100, 0)} % of a core, ${round((sides.hub.dbCpuMs * 1000) / h.requests, 0)} µs per request`
        : '') +
      `; ${busyNote(sides.hub.busy)}`,
  });
  await stop(hub.child);

  // Start-up on an existing data directory / database (API only: the throughput run left a
  // backlog that a worker would start draining at once).
  hub = await startHub(hubDb.env, false);
  const startupExistingMs = hub.readyMs;
  rows.push({ scenario: 'start-up to /readyz, new data', value: startupNewMs, unit: 'ms' });
  rows.push({ scenario: 'start-up to /readyz, existing data', value: startupExistingMs, unit: 'ms' });

  await stop(hub.child);
}

/**
 * Open-loop initiations at a fixed rate; time from each response to its `received` webhook.
 * The hub first gets a warm-up at the same rate (discarded, like the other scenarios' warm-ups):
 * a fresh process's first seconds run its request and send paths before the JIT has compiled
 * them, and on PGlite, where one thread also runs the database, the backlog of those seconds
 * made the whole run's p99 (100–480 ms in some runs, 30–40 ms in others).
 */
async function endToEnd(receiverUrl: string) {
  // On a fresh database: the throughput run left thousands of undelivered messages behind.
  const e2eDb = await freshDatabase();
  const hub = await startHub(e2eDb.env, true);
  const e2eOrgs = await seed(hub, receiverUrl);
  const e2eBody = initiateBody(e2eOrgs.beneficiary.organization.vaspDid);
  const pool = new Pool(hub.url, { connections: 50, pipelining: 1 });
  const openLoop = async (count: number) => {
    const responded = new Map<string, { sent: number; answered: number }>();
    let sendErrors = 0;
    const startAt = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const due = startAt + (i * 1000) / SCALE.rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const sentAt = performance.timeOrigin + performance.now();
      inflight.push(
        pool
          .request({
            path: '/v1/transactions/initiate',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': e2eOrgs.originator.apiKey },
            body: e2eBody,
          })
          .then(async (res) => {
            const text = await res.body.text();
            const at = performance.timeOrigin + performance.now();
            if (res.statusCode !== 200) sendErrors++;
            else responded.set(JSON.parse(text).transactionRef, { sent: sentAt, answered: at });
          })
          .catch(() => {
            sendErrors++;
          }),
      );
    }
    await Promise.all(inflight);
    const achievedRate = count / ((performance.now() - startAt) / 1000);
    const deadline = Date.now() + 15_000;
    let stats = await receiverStats(receiverUrl);
    while (Object.keys(stats.arrivals).length < responded.size && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      stats = await receiverStats(receiverUrl);
    }
    return { responded, sendErrors, achievedRate, arrivals: stats.arrivals };
  };
  const warmUpSeconds = Math.min(2, SCALE.rateSeconds);
  await openLoop(SCALE.rate * warmUpSeconds);
  await fetch(`${receiverUrl}/reset`, { method: 'POST' });
  const total = SCALE.rate * SCALE.rateSeconds;
  const { responded, sendErrors, achievedRate, arrivals } = await openLoop(total);
  await pool.close();
  // From the request's send (the initiation's own answer time included), and, unclamped, from the
  // load generator reading the answer: the webhook often arrives first, since the hub hands the
  // message to its worker at the commit and the answer waits its turn on the generator's loop.
  const arrived = [...responded].filter(([ref]) => arrivals[ref] !== undefined);
  const fromSend = arrived.map(([ref, t]) => arrivals[ref]! - t.sent).sort((a, b) => a - b);
  const fromAnswer = arrived.map(([ref, t]) => arrivals[ref]! - t.answered).sort((a, b) => a - b);
  const before = fromAnswer.filter((ms) => ms <= 0).length;
  rows.push({
    scenario: `end-to-end: initiate sent → received webhook at ${SCALE.rate}/s`,
    value: pct(fromSend, 50),
    unit: 'ms p50',
    p50: pct(fromSend, 50),
    p99: pct(fromSend, 99),
    errors: sendErrors + (total - sendErrors - arrived.length),
    note:
      `max ${round(fromSend.at(-1) ?? NaN)} ms; ${arrived.length}/${total} arrived; sent at ${round(achievedRate)}/s; ` +
      `from the answer read: p50 ${round(pct(fromAnswer, 50))}, p99 ${round(pct(fromAnswer, 99))} ms, ${before} webhooks before their answer; ` +
      `after a ${warmUpSeconds} s warm-up at the same rate`,
  });
  await stop(hub.child);
}

/**
 * One worker draining N queued deliveries, against a raw undici sender. Both are measured warm:
 * the raw sender runs a discarded warm-up round first, and the worker's rate is taken over the
 * N messages after a warm-up share queued ahead of them (from the receiver's arrival times), so
 * neither side's figure includes its JIT compiling the hot path.
 */
async function drain(receiverUrl: string) {
  // A database of its own, holding just the messages and their recipient.
  const warm = Math.min(2000, Math.ceil(SCALE.deliveries / 10));
  const total = warm + SCALE.deliveries;
  const drainDb = await freshDatabase();
  let hub = await startHub(drainDb.env, false);
  const drainOrgs = await seed(hub, receiverUrl);
  await stop(hub.child);
  const rawBefore = await rawSender(receiverUrl, warm, SCALE.deliveries);
  await fetch(`${receiverUrl}/reset`, { method: 'POST' });
  await queuePings(drainDb, drainOrgs.beneficiary.organization.id, total);
  const drainStart = performance.now();
  hub = await startHub(drainDb.env, true);
  const drainReady = performance.now();
  const drainDeadline = Date.now() + 120_000;
  let stats = await receiverStats(receiverUrl);
  // Where the CPU went while the worker drained, from the end of its warm-up (polled, so ±50 ms;
  // a drain that ends before the first poll past the warm-up is counted whole).
  const markNow = (sent: number) => {
    const pid = hub.child.pid!;
    return {
      busy: busyMark(pid),
      hubCpuMs: procStats(pid).cpuMs,
      dbCpu: databaseServerCpu(),
      sent,
      warm: sent >= warm,
    };
  };
  let mark = markNow(stats.unique);
  while (stats.unique < total && Date.now() < drainDeadline) {
    await new Promise((r) => setTimeout(r, 50));
    stats = await receiverStats(receiverUrl);
    if (!mark.warm && stats.unique >= warm && stats.unique < total) mark = markNow(stats.unique);
  }
  const busy = busySince(mark.busy);
  let cpuNote = '';
  if (stats.unique > mark.sent) {
    const perDelivery = (ms: number) => round((ms * 1000) / (stats.unique - mark.sent), 0);
    cpuNote =
      `; hub ${perDelivery(procStats(hub.child.pid!).cpuMs - mark.hubCpuMs)} µs per delivery` +
      (PG_URL ? `, PostgreSQL ${perDelivery(databaseServerCpuSince(mark.dbCpu))} µs` : '');
  }
  await stop(hub.child);
  const times = await receiverArrivalTimes(receiverUrl);
  const rawAfter = await rawSender(receiverUrl, warm, SCALE.deliveries);
  const raw = (rawBefore + rawAfter) / 2;
  rows.push({
    scenario: 'baseline: raw undici sender (signed, 50 in flight)',
    value: raw,
    unit: 'msg/s',
    note: `mean of ${round(rawBefore)} before and ${round(rawAfter)} after the worker's run; each timed like the worker, over ${SCALE.deliveries} arrivals after ${warm}`,
  });
  const measured = Math.min(SCALE.deliveries, times.length - warm);
  const workerRate = measured > 0 ? measured / ((times[warm + measured - 1]! - times[warm - 1]!) / 1000) : 0;
  rows.push({
    scenario: `one worker draining ${SCALE.deliveries} queued deliveries`,
    value: workerRate,
    unit: 'msg/s',
    errors: total - stats.unique,
    baseline: 'raw sender',
    ratio: workerRate / raw,
    note:
      `${stats.duplicates} duplicates; rate over the ${SCALE.deliveries} after a ${warm}-message warm-up; start-up ${round((drainReady - drainStart) / 1000, 2)} s excluded` +
      `${cpuNote}; ${busyNote(busy)}`,
  });
}

/** When each new message id reached the receiver (epoch ms), in arrival order. */
async function receiverArrivalTimes(url: string): Promise<number[]> {
  const res = await fetch(`${url}/stats?times=1`);
  return ((await res.json()) as { uniqueTimes: number[] }).uniqueTimes;
}

async function queuePings(db: { env: Record<string, string>; url?: string }, orgId: string, count: number) {
  const sql = `INSERT INTO deliveries (id, message_id, channel, event, organization_id, payload)
    SELECT gen_random_uuid(), 'msg_bench_' || g || '_' || $2, 'webhook', 'ping', $1::uuid,
           jsonb_build_object('type', 'ping', 'organizationId', $1::text, 'seq', g)
      FROM generate_series(1, $3::int) AS g`;
  const params = [orgId, randomBytes(4).toString('hex'), count];
  if (db.url) {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query(sql, params);
    await c.end();
  } else {
    const pgl = await openPglite(db.env.HUB_DATA_DIR);
    await pgl.query(sql, params);
    await pgl.close();
  }
}

/**
 * The delivery limit: `warm + count` signed messages from one process, 50 in flight on one
 * agent. Timed as the worker is: from the receiver's arrival times of the `warm`-th and the
 * `(warm + count)`-th message, so connection set-up and JIT warm-up fall outside on both sides.
 */
async function rawSender(receiverUrl: string, warm: number, count: number): Promise<number> {
  await fetch(`${receiverUrl}/reset`, { method: 'POST' });
  const agent = new Agent({ connections: 50, keepAliveTimeout: 30_000 });
  const secret = randomBytes(32);
  const run = randomBytes(4).toString('hex');
  const total = warm + count;
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const i = next++;
      const id = `msg_raw_${run}_${i}`;
      const ts = Math.floor(Date.now() / 1000);
      const payload = JSON.stringify({ type: 'ping', organizationId: randomUUID(), seq: i });
      const sig = createHmac('sha256', secret).update(`${id}.${ts}.${payload}`).digest('base64');
      const res = await request(`${receiverUrl}/v1/notify/ping`, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(ts),
          'webhook-signature': `v1,${sig}`,
        },
        body: payload,
      });
      await res.body.dump();
    }
  };
  await Promise.all(Array.from({ length: 50 }, lane));
  await agent.close();
  const times = await receiverArrivalTimes(receiverUrl);
  return count / ((times[total - 1]! - times[warm - 1]!) / 1000);
}

function report() {
  const fmt = (x: number | undefined, d = 1) =>
    x === undefined || Number.isNaN(x) ? '' : String(round(x, d));
  const lines = [
    `### Travel Rule Hub benchmark (${SCALE.name}, ${BACKEND}, ${new Date().toISOString()})`,
    '',
    '| scenario | value | unit | p50 ms | p99 ms | errors | ratio | note |',
    '|---|---:|---|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${fmt(r.value)} | ${r.unit} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.errors ?? ''} | ${
          r.ratio === undefined ? '' : `${round(r.ratio, 2)}× ${r.baseline}`
        } | ${r.note ?? ''} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/latest.json'),
    `${JSON.stringify({ scale: SCALE, backend: BACKEND, at: new Date().toISOString(), rows }, null, 2)}\n`,
  );
}

try {
  await main();
} finally {
  for (const c of children) c.kill('SIGKILL');
  for (const clean of cleanups) await clean().catch(() => {});
}
