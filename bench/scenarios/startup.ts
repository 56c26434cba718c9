/**
 * Start-up: from spawning `travel-rule-hub serve` to the first 200 from /readyz, on new data (the
 * initiate scenario's first start) and on the data that scenario left. API only: the initiate
 * rounds left a backlog that a worker would start draining at once.
 */
import type { BenchDatabase } from '../lib/databases.js';
import { startHub } from '../lib/hub.js';
import { stop } from '../lib/processes.js';
import { rows } from '../report.js';

export async function startup(hubDb: BenchDatabase, startupNewMs: number): Promise<void> {
  const hub = await startHub(hubDb.env, false);
  rows.push({ scenario: 'start-up to /readyz, new data', value: startupNewMs, unit: 'ms' });
  rows.push({ scenario: 'start-up to /readyz, existing data', value: hub.readyMs, unit: 'ms' });
  await stop(hub.child);
}
