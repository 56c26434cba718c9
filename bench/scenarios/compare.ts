/**
 * The regression guard (`--base=<checkout>`): the initiate and drain scenarios run against two
 * builds of the hub in the same run, "before" (the other checkout's dist/bundle/index.js) and
 * "after" (this checkout's), in alternated rounds (ORDER), each build on a fresh database of its
 * own. A build's rates are the medians of its rounds, beside the hub's CPU per initiation (over
 * all its rounds) and per delivery (median); each "after" row carries its ratio to "before" and a
 * verdict: a rate at most TOLERANCE below it, a cost at most TOLERANCE above, or not. The verdict
 * is printed, never an exit status: on a shared machine one run can miss by noise alone.
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { flush, freshDatabase, settle } from '../lib/databases.js';
import { initiateBody, seed, startHub } from '../lib/hub.js';
import { alternate, cannon, combine, peakRss, type Side, side } from '../lib/load.js';
import { round } from '../lib/measure.js';
import { BASE, HUB_ENTRY, PG_URL, SCALE } from '../lib/options.js';
import { stop } from '../lib/processes.js';
import { rows } from '../report.js';
import { type DrainResult, drainDatabase, drainRound, WARM } from './drain.js';

/** How far a figure of "after" may fall below (a rate) or rise above (a cost) "before" and still pass. */
const TOLERANCE = 0.1;
/**
 * Before, after, after, before, then the mirror image: a drift, linear or a step, weighs on both
 * alike. A smoke run, which checks the output's shape only, runs the first half.
 */
const CYCLE = ['before', 'after', 'after', 'before', 'after', 'before', 'before', 'after'] as const;
type Build = (typeof CYCLE)[number];
const ORDER = SCALE.name === 'smoke' ? CYCLE.slice(0, 4) : CYCLE;

/** The median of a side's rounds: one round that another process on the machine slowed moves it least. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `git describe` of the checkout a hub entry belongs to (`-dirty` with uncommitted changes), else its path. */
function describe(entry: string): string {
  const dir = resolve(dirname(entry), '../..');
  const out = spawnSync('git', ['-C', dir, 'describe', '--always', '--dirty'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : dir;
}

function builds(): Record<Build, { entry: string; label: string }> {
  if (!BASE) throw new Error('the regression guard needs --base=<checkout>');
  return {
    before: { entry: BASE.entry, label: `before (${describe(BASE.entry)})` },
    after: { entry: HUB_ENTRY, label: `after (${describe(HUB_ENTRY)})` },
  };
}

/** One figure of one build: its row without the scenario's name, ratio and verdict. */
interface Figure {
  value: number;
  unit: string;
  p50?: number;
  p99?: number;
  errors?: number;
  note: string;
}

/**
 * The rows of one figure, before then after; the after row with its ratio to before and the
 * verdict: a rate may fall, a cost (`cost: true`, e.g. CPU per request) rise, at most TOLERANCE.
 */
function pushPair(
  scenario: string,
  labels: Record<Build, string>,
  figures: Record<Build, Figure>,
  cost = false,
) {
  const ratio = figures.after.value / figures.before.value;
  const ok = cost ? ratio <= 1 + TOLERANCE : ratio >= 1 - TOLERANCE;
  const direction = cost ? 'above' : 'below';
  const verdict = ok
    ? `guard: ok, at most ${TOLERANCE * 100} % ${direction} before`
    : `guard: **more than ${TOLERANCE * 100} % ${direction} before**`;
  const { note, ...before } = figures.before;
  rows.push({ scenario: `${scenario}, ${labels.before}`, ...before, ...(note ? { note } : {}) });
  const after = figures.after;
  rows.push({
    scenario: `${scenario}, ${labels.after}`,
    ...after,
    baseline: 'before',
    ratio,
    note: after.note ? `${after.note}; ${verdict}` : verdict,
  });
}

const byBuild = <T>(f: (name: Build) => T): Record<Build, T> => ({ before: f('before'), after: f('after') });

/** A load the guard runs on both builds: what each side repeats, and how its two rows are named. */
interface Load {
  /** The request, made ready on a freshly seeded hub (a body to POST, or a path to GET). */
  prepare(
    hubUrl: string,
    parties: Awaited<ReturnType<typeof seed>>,
  ): Promise<{ body: string; get?: string; apiKey: string }>;
  /** The throughput row's name, the CPU row's, what one request is ("initiation"), a note. */
  names: { rate: string; cpu: string; per: string; note?: string };
}

/**
 * Runs `load` at SCALE.connections against both builds, each on a fresh database, in alternated
 * rounds after a discarded warm-up (so neither figure includes its JIT compiling the request
 * path), and pushes its rate and the hub's CPU per request.
 */
async function compareLoad(receiverUrl: string, load: Load): Promise<void> {
  const b = builds();
  const half = SCALE.seconds / 2;
  const warmUp = Math.min(2, half);
  const hubs = [];
  const sides = {} as Record<Build, Side>;
  for (const name of ['before', 'after'] as const) {
    const db = await freshDatabase();
    const hub = await startHub(db.env, false, b[name].entry);
    const { body, get, apiKey } = await load.prepare(hub.url, await seed(hub, receiverUrl));
    await cannon(hub.url, body, apiKey, warmUp, get ? { get } : {});
    sides[name] = side(hub.child.pid!, hub.url, body, apiKey, get);
    hubs.push(hub);
  }
  const rss = peakRss([sides.before.pid, sides.after.pid]);
  // Each round starts with what the rounds before it wrote on disk, so that the kernel's
  // write-back of one build's round does not land in the other's.
  await alternate(sides, ORDER, half, flush);
  const [rssBefore, rssAfter] = rss.stop();
  for (const hub of hubs) await stop(hub.child);
  const labels = byBuild((name) => b[name].label);
  const total = byBuild((name) => combine(sides[name].runs));
  const peak = { before: rssBefore!, after: rssAfter! };
  pushPair(
    load.names.rate,
    labels,
    byBuild((name) => ({
      value: median(sides[name].runs.map((r) => r.rps)),
      unit: 'req/s',
      p50: total[name].p50,
      p99: total[name].p99,
      errors: total[name].errors,
      note:
        `median of rounds ${sides[name].runs.map((r) => round(r.rps, 0)).join(', ')}; ` +
        `peak RSS ${round(peak[name], 0)} MB${load.names.note ? `; ${load.names.note}` : ''}`,
    })),
  );
  pushPair(
    load.names.cpu,
    labels,
    byBuild((name) => ({
      value: (sides[name].cpuMs * 1000) / total[name].requests,
      unit: 'µs',
      note: PG_URL
        ? `PostgreSQL ${round((sides[name].dbCpuMs * 1000) / total[name].requests, 0)} µs per ${load.names.per}`
        : '',
    })),
    true,
  );
}

export function compareInitiate(receiverUrl: string): Promise<void> {
  return compareLoad(receiverUrl, {
    prepare: async (_url, { originator, beneficiary }) => ({
      body: initiateBody(beneficiary.organization.vaspDid),
      apiKey: originator.apiKey as string,
    }),
    names: { rate: 'initiate', cpu: 'hub CPU per initiation', per: 'initiation' },
  });
}

/**
 * Audited reads: `GET /v1/transactions/{ref}/pii` at SCALE.connections connections, every read
 * writing its audit row (SPEC §9). From SPEC §14 on, every audit row joins the hash chain, whose
 * lock makes audit-writing transactions take turns from their audit row to their commit: this is
 * where the chain costs, so the guard measures it here (initiations write no audit row).
 */
export function compareAuditedReads(receiverUrl: string): Promise<void> {
  return compareLoad(receiverUrl, {
    prepare: async (hubUrl, { originator, beneficiary }) => {
      const apiKey = originator.apiKey as string;
      const started = await fetch(`${hubUrl}/v1/transactions/initiate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: initiateBody(beneficiary.organization.vaspDid),
      });
      if (!started.ok) throw new Error(`initiate: ${started.status} ${await started.text()}`);
      const { transactionRef } = (await started.json()) as { transactionRef: string };
      return { body: '', get: `/v1/transactions/${transactionRef}/pii`, apiKey };
    },
    names: {
      rate: 'audited personal-data read',
      cpu: 'hub CPU per audited read',
      per: 'read',
      note: 'one audit row each',
    },
  });
}

export async function compareDrain(receiverUrl: string): Promise<void> {
  const b = builds();
  const results: Record<Build, DrainResult[]> = { before: [], after: [] };
  for (const name of ORDER) {
    await settle();
    const prepared = await drainDatabase(receiverUrl, b[name].entry);
    results[name].push(await drainRound(receiverUrl, prepared, b[name].entry));
  }
  const labels = byBuild((name) => b[name].label);
  pushPair(
    `one worker draining ${SCALE.deliveries} queued deliveries`,
    labels,
    byBuild((name) => {
      const rs = results[name];
      return {
        value: median(rs.map((r) => r.rate)),
        unit: 'msg/s',
        errors: rs.reduce((a, r) => a + r.errors, 0),
        note:
          `median of rounds ${rs.map((r) => round(r.rate, 0)).join(', ')}, each over ${SCALE.deliveries} after ${WARM}; ` +
          `${rs.reduce((a, r) => a + r.duplicates, 0)} duplicates`,
      };
    }),
  );
  pushPair(
    'hub CPU per delivery',
    labels,
    byBuild((name) => {
      const cpu = results[name].flatMap((r) => (r.cpu ? [r.cpu] : []));
      return {
        value: median(cpu.map((c) => c.hubUs)),
        unit: 'µs',
        note: `median of rounds ${cpu.map((c) => c.hubUs).join(', ')}${PG_URL ? `; PostgreSQL ${median(cpu.map((c) => c.dbUs))} µs per delivery` : ''}`,
      };
    }),
    true,
  );
}
