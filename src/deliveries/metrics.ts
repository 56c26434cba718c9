/**
 * Delivery metrics on the app's registry. Counters and the latency histogram are fed by the
 * worker of this process; the queue gauges are read from the database on scrape, so every
 * process (API or worker) reports the shared queue as it is.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Queryable } from '../db/database.js';
import { queueStats } from './store.js';

export type AttemptOutcome = 'delivered' | 'retrying' | 'failed';

export interface DeliveryMetrics {
  attempt(labels: { event: string; channel: string; outcome: AttemptOutcome }, seconds: number): void;
}

const STATS_MAX_AGE_MS = 1000;

export function registerDeliveryMetrics(registry: Registry, db: Queryable): DeliveryMetrics {
  const outcomes = new Counter({
    name: 'hub_deliveries_total',
    help: 'Delivery attempts by event and outcome: delivered, retrying (a retry is planned), failed (gave up).',
    labelNames: ['event', 'outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'hub_delivery_attempt_duration_seconds',
    help: 'Duration of one delivery attempt (webhook request or SMTP submission), by channel.',
    labelNames: ['channel'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // One query serves both gauges, and every scrape within a second: /metrics needs no key, and
  // the count reads every PENDING row, so a client polling it must not cost a query each time.
  // A query still running is shared whatever its age, so scrapes never stack up queries.
  let pending: Promise<{ depth: number; oldestDueAgeSeconds: number }> | undefined;
  let running = false;
  let fresh = 0;
  const stats = () => {
    if (!pending || (!running && performance.now() - fresh > STATS_MAX_AGE_MS)) {
      fresh = performance.now();
      running = true;
      pending = queueStats(db)
        .catch(() => ({ depth: Number.NaN, oldestDueAgeSeconds: Number.NaN }))
        .finally(() => {
          running = false;
        });
    }
    return pending;
  };
  new Gauge({
    name: 'hub_delivery_queue_depth',
    help: 'Deliveries not yet delivered: PENDING (due or scheduled for a retry) and HELD (behind a FAILED one).',
    registers: [registry],
    async collect() {
      this.set((await stats()).depth);
    },
  });
  new Gauge({
    name: 'hub_delivery_oldest_due_age_seconds',
    help: 'How long the oldest due PENDING delivery has been waiting past its time (0 when none).',
    registers: [registry],
    async collect() {
      this.set((await stats()).oldestDueAgeSeconds);
    },
  });

  return {
    attempt({ event, channel, outcome }, seconds) {
      outcomes.inc({ event, outcome });
      duration.observe({ channel }, seconds);
    },
  };
}
