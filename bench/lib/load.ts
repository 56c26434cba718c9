/**
 * Closed-loop load on the initiate route, or a GET route (autocannon, SCALE.connections connections), and rounds
 * that alternate between servers so that the machine's drift during a scenario weighs on every
 * side alike.
 */
import autocannon from 'autocannon';
import {
  addBusy,
  type Busy,
  busyMark,
  busySince,
  databaseServerCpu,
  databaseServerCpuSince,
  emptyBusy,
  procStats,
} from './measure.js';
import { SCALE } from './options.js';

export interface CannonResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

export async function cannon(
  url: string,
  body: string,
  key?: string,
  seconds = SCALE.seconds,
  options: { idempotencyKeys?: boolean; get?: string } = {},
): Promise<CannonResult> {
  const result = await autocannon({
    // `get`: that path instead, read with GET (body ignored).
    url: `${url}${options.get ?? '/v1/transactions/initiate'}`,
    method: options.get ? 'GET' : 'POST',
    connections: SCALE.connections,
    duration: seconds,
    headers: {
      ...(options.get ? {} : { 'content-type': 'application/json' }),
      ...(key ? { 'x-api-key': key } : {}),
      // A fresh key per request (autocannon replaces [<id>]), as a client that follows the docs sends.
      ...(options.idempotencyKeys ? { 'idempotency-key': 'bench-[<id>]' } : {}),
    },
    idReplacement: options.idempotencyKeys === true,
    ...(options.get ? {} : { body }),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    requests: result.requests.total,
  };
}

/** Rounds of one side as one figure: mean rate and p50, the worst p99, all errors and requests. */
export function combine(runs: CannonResult[]): CannonResult {
  const sum = (f: (r: CannonResult) => number) => runs.reduce((a, r) => a + f(r), 0);
  return {
    rps: sum((r) => r.rps) / runs.length,
    p50: sum((r) => r.p50) / runs.length,
    p99: Math.max(...runs.map((r) => r.p99)),
    errors: sum((r) => r.errors),
    requests: sum((r) => r.requests),
  };
}

/** One side of alternated rounds: the server it loads, and its results with the CPU and time they took. */
export interface Side {
  pid: number;
  url: string;
  body: string;
  key: string | undefined;
  /** A GET path to load instead of initiate. */
  get?: string;
  runs: CannonResult[];
  cpuMs: number;
  dbCpuMs: number;
  wallMs: number;
  busy: Busy;
}

export function side(pid: number, url: string, body: string, key?: string, get?: string): Side {
  return {
    pid,
    url,
    body,
    key,
    ...(get ? { get } : {}),
    runs: [],
    cpuMs: 0,
    dbCpuMs: 0,
    wallMs: 0,
    busy: emptyBusy(),
  };
}

/**
 * Loads the sides one after the other in `order`, `seconds` each, adding up what each round took.
 * `beforeEach` runs ahead of every round, outside its measurement.
 */
export async function alternate<K extends string>(
  sides: Record<K, Side>,
  order: readonly K[],
  seconds: number,
  beforeEach?: () => Promise<void>,
): Promise<void> {
  for (const name of order) {
    await beforeEach?.();
    const s = sides[name];
    const cpu = procStats(s.pid).cpuMs;
    const dbCpu = databaseServerCpu();
    const mark = busyMark(s.pid);
    const t0 = performance.now();
    s.runs.push(await cannon(s.url, s.body, s.key, seconds, s.get ? { get: s.get } : {}));
    s.wallMs += performance.now() - t0;
    s.cpuMs += procStats(s.pid).cpuMs - cpu;
    s.dbCpuMs += databaseServerCpuSince(dbCpu);
    addBusy(s.busy, busySince(mark));
  }
}

/** Samples the peak RSS of processes every 200 ms until `stop` is called. */
export function peakRss(pids: number[]): { stop: () => number[] } {
  const peaks = pids.map((pid) => procStats(pid).rssMb);
  const sample = () => {
    pids.forEach((pid, i) => {
      peaks[i] = Math.max(peaks[i]!, procStats(pid).rssMb);
    });
  };
  const timer = setInterval(sample, 200);
  return {
    stop: () => {
      clearInterval(timer);
      return peaks;
    },
  };
}
