/**
 * End-to-end latency: open-loop initiations at a fixed rate (SCALE.rate, sent regardless of
 * answers) to a hub with its worker on; the time from sending each initiation to the moment the
 * receiver holds its `received` webhook. Both clocks are `performance.timeOrigin + now()` on one
 * machine.
 *
 * The hub first gets a warm-up at the same rate (discarded, like the other scenarios' warm-ups):
 * a fresh process's first seconds run its request and send paths before the JIT has compiled
 * them, and on PGlite, where one thread also runs the database, the backlog of those seconds
 * would otherwise decide the whole run's p99.
 */
import { Pool } from 'undici';
import { freshDatabase } from '../lib/databases.js';
import { initiateBody, seed, startHub } from '../lib/hub.js';
import { pct, round } from '../lib/measure.js';
import { openLoop } from '../lib/open-loop.js';
import { SCALE } from '../lib/options.js';
import { stop } from '../lib/processes.js';
import { resetReceiver } from '../lib/receiver.js';
import { rows } from '../report.js';

export async function endToEnd(receiverUrl: string): Promise<void> {
  // On a fresh database: the throughput rounds left thousands of undelivered messages behind.
  const db = await freshDatabase();
  const hub = await startHub(db.env, true);
  const orgs = await seed(hub, receiverUrl);
  const body = initiateBody(orgs.beneficiary.organization.vaspDid);
  const pool = new Pool(hub.url, { connections: 50, pipelining: 1 });
  const run = (count: number) =>
    openLoop(pool, { apiKey: orgs.originator.apiKey, bodies: [body], receiverUrl, count });
  const warmUpSeconds = Math.min(2, SCALE.rateSeconds);
  await run(SCALE.rate * warmUpSeconds);
  await resetReceiver(receiverUrl);
  const total = SCALE.rate * SCALE.rateSeconds;
  const { responded, sendErrors, achievedRate, arrivals } = await run(total);
  await pool.close();
  // From the request's send (the initiation's own answer time included), and, unclamped, from the
  // load generator reading the answer: the webhook can arrive first, since the hub hands the
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
