/**
 * Endpoint-down notices (SPEC §17): every process that runs a delivery worker looks, every
 * `endpointDownCheckMs`, for organizations whose endpoint's circuit (health.ts: read from the
 * recorded attempts) has been open for `afterMs` (HUB_ENDPOINT_DOWN_AFTER, 1 h by default), and
 * e-mails their contact, at most once a day. Which process sends is decided by a conditional
 * upsert of the organization's row in endpoint_down_notices, in the same database transaction as
 * the outbox row and the audit row: restarts and several processes never send it twice. The
 * e-mail goes through the outbox like every other (the mailer sends it; without SMTP_URL it waits
 * there).
 */
import { recordAudit } from '../audit/store.js';
import type { Database } from '../db/database.js';
import { email } from './events.js';
import { endpointHealth } from './health.js';
import { enqueue } from './outbox.js';
import * as store from './store.js';
import type { WorkerLog } from './types.js';

/** Least time between two notices to one organization. */
const DAY_MS = 86_400_000;

/** How often to look for endpoints that have been down for `afterMs`. */
export const endpointDownCheckMs = (afterMs: number): number =>
  Math.min(60_000, Math.max(200, Math.floor(afterMs / 4)));

/** One look (run by a Periodic, periodic.ts): queues the notices due, and logs how many. */
export async function notifyEndpointsDown(db: Database, log: WorkerLog, afterMs: number): Promise<void> {
  const sent = await look(db, afterMs);
  if (sent > 0) log.info({ notices: sent }, 'endpoint-down notices queued');
}

async function look(db: Database, afterMs: number): Promise<number> {
  let sent = 0;
  for (const org of await store.endpointDownCandidates(db, DAY_MS)) {
    const health = await endpointHealth(db, org);
    if (health.circuit !== 'open' || health.openSince === null || health.failingSince === null) continue;
    if (Date.now() - Date.parse(health.openSince) < afterMs) continue;
    const { failingSince, openSince } = health;
    const queued = await db.transaction(async (tx) => {
      if (!(await store.takeEndpointDownNotice(tx, org.id, failingSince, DAY_MS))) return false;
      const counts = await store.recipientCounts(tx, org.id);
      await enqueue(tx, [
        email('endpoint-down', org.contactEmail, null, {
          organizationId: org.id,
          organizationName: org.name,
          vaspDid: org.vaspDid,
          endpointHost: health.host,
          failingSince,
          openSince,
          lastError: health.lastError,
          waiting: counts.pending + counts.retrying,
          failed: counts.failed,
        }),
      ]);
      await recordAudit(tx, {
        actor: 'hub',
        action: 'organization.endpoint_down_notified',
        subjectType: 'organization',
        subjectId: org.id,
        details: { endpointHost: health.host, failingSince, openSince, lastError: health.lastError },
      });
      return true;
    });
    if (queued) sent++;
  }
  return sent;
}
