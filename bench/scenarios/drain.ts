/**
 * One worker draining queued deliveries, against a raw undici sender. Both are measured warm:
 * the raw sender's rate and the worker's are both taken from the receiver's arrival times over
 * SCALE.deliveries messages after a warm-up share sent ahead of them, so neither figure includes
 * connection set-up or the JIT compiling the hot path, and the worker's excludes its start-up.
 * The messages are small `ping`s queued straight into the outbox, with no state change behind
 * them, so the figure is the worker's own.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { type BenchDatabase, freshDatabase, queuePings } from '../lib/databases.js';
import { seed, startHub } from '../lib/hub.js';
import {
  type Busy,
  busyMark,
  busyNote,
  busySince,
  databaseServerCpu,
  databaseServerCpuSince,
  procStats,
  round,
} from '../lib/measure.js';
import { HUB_ENTRY, INFLIGHT_PER_RECIPIENT, PG_URL, SCALE } from '../lib/options.js';
import { stop } from '../lib/processes.js';
import { receiverArrivalTimes, receiverStats, resetReceiver } from '../lib/receiver.js';
import { rows } from '../report.js';

/** Messages sent ahead of the measured ones, by the worker and by the raw sender alike. */
export const WARM = Math.min(2000, Math.ceil(SCALE.deliveries / 10));

/** A database of its own holding just the recipient (seeded through the hub at `entry`). */
export async function drainDatabase(receiverUrl: string, entry = HUB_ENTRY) {
  const db = await freshDatabase();
  const hub = await startHub(db.env, false, entry);
  const orgs = await seed(hub, receiverUrl);
  await stop(hub.child);
  return { db, orgId: orgs.beneficiary.organization.id as string };
}

export interface DrainResult {
  rate: number;
  /** Messages that never arrived. */
  errors: number;
  duplicates: number;
  startupSeconds: number;
  /** µs of CPU per delivery over the measured stretch (absent when the drain ended within its warm-up poll). */
  cpu?: { hubUs: number; dbUs: number };
  busy: Busy;
}

/** Queues WARM + SCALE.deliveries pings, starts a hub with its worker and times it draining them. */
export async function drainRound(
  receiverUrl: string,
  prepared: { db: BenchDatabase; orgId: string },
  entry = HUB_ENTRY,
): Promise<DrainResult> {
  const total = WARM + SCALE.deliveries;
  await resetReceiver(receiverUrl);
  await queuePings(prepared.db, prepared.orgId, total);
  const drainStart = performance.now();
  const hub = await startHub(prepared.db.env, true, entry);
  const drainReady = performance.now();
  const deadline = Date.now() + 120_000;
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
      warm: sent >= WARM,
    };
  };
  let mark = markNow(stats.unique);
  while (stats.unique < total && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    stats = await receiverStats(receiverUrl);
    if (!mark.warm && stats.unique >= WARM && stats.unique < total) mark = markNow(stats.unique);
  }
  const busy = busySince(mark.busy);
  const perDelivery = (ms: number) => round((ms * 1000) / (stats.unique - mark.sent), 0);
  const cpu =
    stats.unique > mark.sent
      ? {
          hubUs: perDelivery(procStats(hub.child.pid!).cpuMs - mark.hubCpuMs),
          dbUs: perDelivery(databaseServerCpuSince(mark.dbCpu)),
        }
      : undefined;
  await stop(hub.child);
  const times = await receiverArrivalTimes(receiverUrl);
  const measured = Math.min(SCALE.deliveries, times.length - WARM);
  const rate = measured > 0 ? measured / ((times[WARM + measured - 1]! - times[WARM - 1]!) / 1000) : 0;
  return {
    rate,
    errors: total - stats.unique,
    duplicates: stats.duplicates,
    startupSeconds: (drainReady - drainStart) / 1000,
    cpu,
    busy,
  };
}

export async function drain(receiverUrl: string): Promise<void> {
  const prepared = await drainDatabase(receiverUrl);
  const rawBefore = await rawSender(receiverUrl, WARM, SCALE.deliveries);
  const worker = await drainRound(receiverUrl, prepared);
  const rawAfter = await rawSender(receiverUrl, WARM, SCALE.deliveries);
  const raw = (rawBefore + rawAfter) / 2;
  rows.push({
    scenario: `baseline: raw undici sender (signed, ${INFLIGHT_PER_RECIPIENT} in flight, as the hub to one recipient)`,
    value: raw,
    unit: 'msg/s',
    note: `mean of ${round(rawBefore)} before and ${round(rawAfter)} after the worker's run; each timed like the worker, over ${SCALE.deliveries} arrivals after ${WARM}`,
  });
  rows.push({
    scenario: `one worker draining ${SCALE.deliveries} queued deliveries`,
    value: worker.rate,
    unit: 'msg/s',
    errors: worker.errors,
    baseline: 'raw sender',
    ratio: worker.rate / raw,
    note:
      `${worker.duplicates} duplicates; rate over the ${SCALE.deliveries} after a ${WARM}-message warm-up; start-up ${round(worker.startupSeconds, 2)} s excluded` +
      `${worker.cpu ? `; hub ${worker.cpu.hubUs} µs per delivery${PG_URL ? `, PostgreSQL ${worker.cpu.dbUs} µs` : ''}` : ''}` +
      `; ${busyNote(worker.busy)}`,
  });
}

/**
 * The delivery limit: `warm + count` signed messages from one process, on one agent, with as many
 * in flight as the hub keeps to one recipient (the drain has one). Timed as the worker is: from the receiver's arrival times of the `warm`-th and the
 * `(warm + count)`-th message.
 */
async function rawSender(receiverUrl: string, warm: number, count: number): Promise<number> {
  await resetReceiver(receiverUrl);
  const agent = new Agent({ connections: INFLIGHT_PER_RECIPIENT, keepAliveTimeout: 30_000 });
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
  await Promise.all(Array.from({ length: INFLIGHT_PER_RECIPIENT }, lane));
  await agent.close();
  const times = await receiverArrivalTimes(receiverUrl);
  return count / ((times[total - 1]! - times[warm - 1]!) / 1000);
}
