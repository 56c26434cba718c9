/**
 * The bench's command line and environment, read once here. Every other bench module takes its
 * settings from these constants.
 *
 * Flags: `--quick` and `--smoke` (smaller scales), `--only=initiate,startup,e2e,drain,hanging,search` (some
 * scenarios, each with the baselines it is compared to; with `--base` also `audited-reads`), `--base=<checkout>` (the regression
 * guard: that checkout's built hub is "before", this one's "after").
 * Environment: DATABASE_URL (PostgreSQL, else PGlite), BENCH_HUB_ENTRY (the "after" hub's entry
 * point), BENCH_HUB_NODE_ARGS (extra node flags for every hub process, e.g. `--cpu-prof`),
 * BENCH_HUB_STDERR (a file every child's stderr is appended to).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_MAX_INFLIGHT_PER_RECIPIENT } from '../../src/config.js';

export const ROOT = new URL('../..', import.meta.url).pathname;

const args = process.argv.slice(2);
const flags = new Set(args);
const flagValue = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

export const SCALE = flags.has('--smoke')
  ? { name: 'smoke', seconds: 1, connections: 10, rate: 50, rateSeconds: 1, deliveries: 200 }
  : flags.has('--quick')
    ? { name: 'quick', seconds: 3, connections: 50, rate: 500, rateSeconds: 3, deliveries: 5000 }
    : { name: 'full', seconds: 10, connections: 50, rate: 500, rateSeconds: 10, deliveries: 20000 };

export const PG_URL = process.env.DATABASE_URL;
/** The hub's per-recipient in-flight limit in force (its setting, passed on to the hubs, or its default). */
export const INFLIGHT_PER_RECIPIENT = Number(
  process.env.HUB_MAX_INFLIGHT_PER_RECIPIENT ?? DEFAULT_MAX_INFLIGHT_PER_RECIPIENT,
);
export const BACKEND = PG_URL ? 'postgres' : 'pglite';
export const HUB_ENTRY = process.env.BENCH_HUB_ENTRY ?? join(ROOT, 'dist/bundle/index.js');
export const HUB_NODE_ARGS = process.env.BENCH_HUB_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
export const HUB_STDERR = process.env.BENCH_HUB_STDERR;

/** The other checkout of the regression guard (`--base=<dir>`), already built; else undefined. */
export const BASE = (() => {
  const dir = flagValue('base');
  if (dir === undefined) return undefined;
  const root = resolve(dir);
  const entry = join(root, 'dist/bundle/index.js');
  if (!existsSync(entry)) {
    throw new Error(`--base=${dir}: no ${entry}; build that checkout first (npm ci && npm run build)`);
  }
  return { root, entry };
})();

/** The scenarios to run: all of them, or with `--base` the two the regression guard compares. */
export const ONLY = new Set(
  flagValue('only')?.split(',') ??
    (flags.has('--initiate-only')
      ? ['initiate']
      : BASE
        ? ['initiate', 'audited-reads', 'drain']
        : ['initiate', 'startup', 'e2e', 'drain', 'hanging', 'search']),
);
