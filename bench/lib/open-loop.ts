/**
 * Open-loop initiations: sent at a fixed rate whether or not earlier ones were answered, as
 * independent clients would, then matched with the `received` webhooks the bench's receiver got
 * (by transactionRef). Both clocks are `performance.timeOrigin + now()` on one machine.
 */
import type { Pool } from 'undici';
import { pct } from './measure.js';
import { SCALE } from './options.js';
import { receiverStats } from './receiver.js';

export interface OpenLoopResult {
  /** transactionRef → when its initiation was sent and its answer read, and to which body (`to`, its index). */
  responded: Map<string, { sent: number; answered: number; to: number }>;
  sendErrors: number;
  achievedRate: number;
  /** transactionRef → when its `received` webhook arrived. */
  arrivals: Record<string, number>;
}

/**
 * `count` initiations at `rate` per second through `pool` (the hub's), the i-th with
 * `bodies[i % bodies.length]` (one body per beneficiary: the load spread evenly over them), then
 * waits (at most 15 s) until the receiver holds a `received` webhook for every answered one whose
 * body `awaited` accepts (default: all).
 */
export async function openLoop(
  pool: Pool,
  o: {
    apiKey: string;
    bodies: readonly string[];
    receiverUrl: string;
    count: number;
    rate?: number;
    awaited?: (to: number) => boolean;
  },
): Promise<OpenLoopResult> {
  const rate = o.rate ?? SCALE.rate;
  const responded: OpenLoopResult['responded'] = new Map();
  let sendErrors = 0;
  const startAt = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < o.count; i++) {
    const due = startAt + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const sentAt = performance.timeOrigin + performance.now();
    const to = i % o.bodies.length;
    inflight.push(
      pool
        .request({
          path: '/v1/transactions/initiate',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': o.apiKey },
          body: o.bodies[to],
        })
        .then(async (res) => {
          const text = await res.body.text();
          const at = performance.timeOrigin + performance.now();
          if (res.statusCode !== 200) sendErrors++;
          else responded.set(JSON.parse(text).transactionRef, { sent: sentAt, answered: at, to });
        })
        .catch(() => {
          sendErrors++;
        }),
    );
  }
  await Promise.all(inflight);
  const achievedRate = o.count / ((performance.now() - startAt) / 1000);
  const awaited = [...responded].filter(([, t]) => o.awaited?.(t.to) ?? true).map(([ref]) => ref);
  const deadline = Date.now() + 15_000;
  let stats = await receiverStats(o.receiverUrl);
  while (awaited.some((ref) => stats.arrivals[ref] === undefined) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    stats = await receiverStats(o.receiverUrl);
  }
  return { responded, sendErrors, achievedRate, arrivals: stats.arrivals };
}

/**
 * Milliseconds from each answered initiation's send to its webhook's arrival, sorted; with p50
 * and p99. With `to`, only the initiations with those bodies.
 */
export function latencies({ responded, arrivals }: OpenLoopResult, to?: (to: number) => boolean) {
  const fromSend = [...responded]
    .filter(([ref, t]) => arrivals[ref] !== undefined && (to?.(t.to) ?? true))
    .map(([ref, t]) => arrivals[ref]! - t.sent)
    .sort((a, b) => a - b);
  return { fromSend, p50: pct(fromSend, 50), p99: pct(fromSend, 99) };
}
