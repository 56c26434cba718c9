/**
 * `npm run bench [-- --quick | --smoke] [--only=initiate,startup,e2e,drain,hanging,search,audited-reads] [--base=<checkout>]`:
 * measures the hub against baselines taken in the same run on this machine, and prints a markdown
 * table (also bench/results/latest.json). Every server runs in a child process; load comes from
 * this process; everything targets 127.0.0.1 and is bounded in time. PostgreSQL when
 * DATABASE_URL is set (each run makes fresh databases on that server and drops them), else PGlite.
 *
 * Scenarios, in this order: initiate (with its baselines, the hub's RSS and CPU), start-up,
 * end-to-end webhook latency, one worker's drain, one of ten recipients' receivers hanging, search and export over
 * seeded transactions. With
 * `--base`, the regression guard instead: initiate, audited reads (`audited-reads`, guard only) and
 * drain of the other checkout's build ("before") against this one's ("after").
 * docs/benchmarks.md describes each scenario and its baseline.
 */
import { dropAll, settle } from './lib/databases.js';
import { BACKEND, BASE, ONLY, SCALE } from './lib/options.js';
import { killAll, stop } from './lib/processes.js';
import { startReceiver } from './lib/receiver.js';
import { report } from './report.js';
import { compareAuditedReads, compareDrain, compareInitiate } from './scenarios/compare.js';
import { drain } from './scenarios/drain.js';
import { endToEnd } from './scenarios/e2e.js';
import { hangingReceiver } from './scenarios/hanging.js';
import { initiate } from './scenarios/initiate.js';
import { search } from './scenarios/search.js';
import { startup } from './scenarios/startup.js';

async function main() {
  const receiver = await startReceiver();
  process.stderr.write(`bench (${SCALE.name}, ${BACKEND}): receiver at ${receiver.url}\n`);
  if (BASE) {
    process.stderr.write(`bench: regression guard against ${BASE.root}\n`);
    for (const skipped of ['startup', 'e2e'].filter((s) => ONLY.has(s))) {
      process.stderr.write(`bench: --base compares initiate and drain only; ${skipped} skipped\n`);
    }
    if (ONLY.has('initiate')) await compareInitiate(receiver.url);
    if (ONLY.has('audited-reads')) {
      await settle();
      await compareAuditedReads(receiver.url);
    }
    if (ONLY.has('drain')) await compareDrain(receiver.url);
  } else {
    if (ONLY.has('initiate') || ONLY.has('startup')) {
      const { hubDb, startupNewMs } = await initiate(receiver.url);
      await startup(hubDb, startupNewMs);
    }
    if (ONLY.has('e2e')) {
      await settle();
      await endToEnd(receiver.url);
    }
    if (ONLY.has('drain')) {
      await settle();
      await drain(receiver.url);
    }
    if (ONLY.has('hanging')) {
      await settle();
      await hangingReceiver(receiver.url);
    }
    if (ONLY.has('search')) {
      await settle();
      await search(receiver.url);
    }
  }
  await stop(receiver.child);
  report();
}

try {
  await main();
} finally {
  killAll();
  await dropAll();
}
