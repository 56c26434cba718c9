/**
 * One hanging receiver: does a recipient whose receiver never answers slow the others down?
 * Two rounds on fresh databases, each with a hub running its worker and the same healthy
 * recipient: one alone (the baseline), one beside a second recipient whose receiver (the bench
 * receiver with `--hang`) reads every webhook and never answers, holding each connection until the
 * hub's send timeout, with a backlog of SCALE.deliveries messages queued ahead of the healthy
 * one's. Each round measures the healthy recipient's
 * - drain: WARM + SCALE.deliveries `ping`s queued behind that backlog (timed as in drain.ts), then
 * - latency: open-loop initiations at SCALE.rate to it (as in e2e.ts), after a warm-up.
 * The round ends by closing the hanging receiver, so that the hub does not wait out the send
 * timeout of the requests it still holds.
 */
import { Pool } from 'undici';
import { type BenchDatabase, freshDatabase, queuePings } from '../lib/databases.js';
import { addRecipient, initiateBody, seed, startHub } from '../lib/hub.js';
import { procStats, round } from '../lib/measure.js';
import { latencies, openLoop } from '../lib/open-loop.js';
import { SCALE } from '../lib/options.js';
import { startBenchServer, stop } from '../lib/processes.js';
import { receiverArrivalTimes, receiverStats, resetReceiver } from '../lib/receiver.js';
import { rows } from '../report.js';
import { WARM } from './drain.js';

interface RoundResult {
  drainRate: number;
  drainErrors: number;
  duplicates: number;
  p50: number;
  p99: number;
  max: number;
  latencyErrors: number;
  arrived: number;
  sentRate: number;
  /** The hub's CPU per delivery over the drain after its warm-up (µs; absent if it ended within one poll). */
  drainUs: number | undefined;
  /** The hub's CPU over the measured latency round, in % of one core. */
  latencyCpu: number;
  /** Requests the hanging receiver got (and held). */
  held: number;
}

export async function hangingReceiver(receiverUrl: string): Promise<void> {
  const alone = await hangingRound(receiverUrl);
  const hanging = await startBenchServer('receiver-server.ts', ['--hang']);
  const beside = await hangingRound(receiverUrl, hanging);
  const latencyRows = SCALE.rate * SCALE.rateSeconds;
  const name = "one hanging receiver: the healthy recipient's";
  const label = (r: RoundResult, which: string) =>
    `${name} ${which}${r === alone ? ', alone' : `, beside one that never answers with ${SCALE.deliveries} queued ahead`}`;
  for (const r of [alone, beside]) {
    rows.push({
      scenario: label(r, `drain of ${SCALE.deliveries}`),
      value: r.drainRate,
      unit: 'msg/s',
      errors: r.drainErrors,
      ...(r === beside ? { baseline: 'alone', ratio: r.drainRate / alone.drainRate } : {}),
      note:
        `${r.duplicates} duplicates; rate over the ${SCALE.deliveries} after ${WARM}` +
        (r.drainUs === undefined ? '' : `; hub ${r.drainUs} µs per delivery`) +
        (r === beside ? `; the hanging receiver got ${r.held} requests, none answered` : ''),
    });
  }
  for (const r of [alone, beside]) {
    rows.push({
      scenario: label(r, `latency, initiate sent → received webhook at ${SCALE.rate}/s`),
      value: r.p50,
      unit: 'ms p50',
      p50: r.p50,
      p99: r.p99,
      errors: r.latencyErrors,
      ...(r === beside ? { baseline: 'alone', ratio: r.p50 / alone.p50 } : {}),
      note:
        `max ${round(r.max)} ms; ${r.arrived}/${latencyRows} arrived; sent at ${round(r.sentRate)}/s; ` +
        `hub ${r.latencyCpu} % of a core` +
        (r === beside ? `; p99 ${round(r.p99 / alone.p99, 2)}× alone` : ''),
    });
  }
}

/** One round; with `hanging`, its recipient and backlog are there, and the receiver is closed at the end. */
async function hangingRound(
  receiverUrl: string,
  hanging?: Awaited<ReturnType<typeof startBenchServer>>,
): Promise<RoundResult> {
  const db = await freshDatabase();
  const orgs = await recipients(db, receiverUrl, hanging?.url);
  if (hanging) {
    await resetReceiver(hanging.url);
    await queuePings(db, orgs.hangingId!, SCALE.deliveries);
  }
  await queuePings(db, orgs.healthyId, WARM + SCALE.deliveries);
  await resetReceiver(receiverUrl);
  const hub = await startHub(db.env, true);
  const cpu = () => procStats(hub.child.pid!).cpuMs;
  const total = WARM + SCALE.deliveries;
  const deadline = Date.now() + 120_000;
  let stats = await receiverStats(receiverUrl);
  // The hub's CPU from the end of the warm-up (polled, as in drain.ts).
  let mark: { cpuMs: number; sent: number } | undefined;
  while (stats.unique < total && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    stats = await receiverStats(receiverUrl);
    if (!mark && stats.unique >= WARM && stats.unique < total) mark = { cpuMs: cpu(), sent: stats.unique };
  }
  const drainUs = mark ? round(((cpu() - mark.cpuMs) * 1000) / (stats.unique - mark.sent), 0) : undefined;
  const times = await receiverArrivalTimes(receiverUrl);
  const measured = Math.min(SCALE.deliveries, times.length - WARM);
  const drainRate = measured > 0 ? measured / ((times[WARM + measured - 1]! - times[WARM - 1]!) / 1000) : 0;

  const pool = new Pool(hub.url, { connections: 50, pipelining: 1 });
  const run = (count: number) => openLoop(pool, { apiKey: orgs.apiKey, body: orgs.body, receiverUrl, count });
  await run(SCALE.rate * Math.min(2, SCALE.rateSeconds));
  await resetReceiver(receiverUrl);
  const count = SCALE.rate * SCALE.rateSeconds;
  const cpuBefore = cpu();
  const wallBefore = performance.now();
  const loop = await run(count);
  const latencyCpu = round(((cpu() - cpuBefore) * 100) / (performance.now() - wallBefore), 0);
  await pool.close();
  const lat = latencies(loop);
  const held = hanging ? (await receiverStats(hanging.url)).count : 0;
  if (hanging) await stop(hanging.child);
  await stop(hub.child);
  return {
    drainRate,
    drainErrors: total - stats.unique,
    duplicates: stats.duplicates,
    p50: lat.p50,
    p99: lat.p99,
    max: lat.fromSend.at(-1) ?? Number.NaN,
    latencyErrors: loop.sendErrors + (count - loop.sendErrors - lat.fromSend.length),
    arrived: lat.fromSend.length,
    sentRate: loop.achievedRate,
    drainUs,
    latencyCpu,
    held,
  };
}

/** The healthy pair (originator and beneficiary at the receiver) and, with `hangUrl`, the hanging recipient. */
async function recipients(db: BenchDatabase, receiverUrl: string, hangUrl?: string) {
  const hub = await startHub(db.env, false);
  const { originator, beneficiary } = await seed(hub, receiverUrl);
  const hanging = hangUrl ? await addRecipient(hub, 'Bench hanging receiver', hangUrl) : undefined;
  await stop(hub.child);
  return {
    apiKey: originator.apiKey as string,
    body: initiateBody(beneficiary.organization.vaspDid),
    healthyId: beneficiary.organization.id as string,
    hangingId: hanging?.organization.id as string | undefined,
  };
}
