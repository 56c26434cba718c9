/**
 * Endpoint-down notices (issue 35): every process that runs a delivery worker looks, every
 * `checkMs`, for organizations whose endpoint's circuit (health.ts: read from the recorded
 * attempts) has been open for `afterMs`, and e-mails their contact, at most once per `everyMs`
 * (a day). Which process sends is decided by a conditional upsert of the organization's row in
 * endpoint_down_notices, in the same database transaction as the outbox row and the audit row:
 * restarts and several processes never send it twice. The e-mail goes through the outbox like
 * every other (the mailer sends it; without SMTP_URL it waits there).
 */
import { recordAudit } from '../audit/store.js';
import type { Database } from '../db/database.js';
import { email } from './events.js';
import { endpointHealth } from './health.js';
import { enqueue } from './outbox.js';
import * as store from './store.js';
import type { WorkerLog } from './types.js';

const DAY_MS = 86_400_000;

export interface EndpointDownOptions {
  /** How long the circuit must have been open (HUB_ENDPOINT_DOWN_AFTER, 1 h by default). */
  afterMs: number;
  /** Least time between two notices to one organization. */
  everyMs?: number;
  /** How often to look. */
  checkMs?: number;
}

export class EndpointDownNotifier {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private readonly everyMs: number;
  private readonly checkMs: number;

  constructor(
    private readonly db: Database,
    private readonly log: WorkerLog,
    private readonly o: EndpointDownOptions,
  ) {
    this.everyMs = o.everyMs ?? DAY_MS;
    this.checkMs = o.checkMs ?? Math.min(60_000, Math.max(200, Math.floor(o.afterMs / 4)));
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), this.checkMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
  }

  /** One look; a look still running is not started twice. Resolves to the notices this one queued. */
  check(): Promise<void> {
    this.checking ??= this.look()
      .then((sent) => {
        if (sent > 0) this.log.info({ notices: sent }, 'endpoint-down notices queued');
      })
      .catch((err) => this.log.error({ err }, 'endpoint-down check failed; the next one tries again'))
      .finally(() => {
        this.checking = undefined;
      });
    return this.checking;
  }

  private async look(): Promise<number> {
    let sent = 0;
    for (const org of await store.endpointDownCandidates(this.db, this.everyMs)) {
      const health = await endpointHealth(this.db, org);
      if (health.circuit !== 'open' || health.openSince === null || health.failingSince === null) continue;
      if (Date.now() - Date.parse(health.openSince) < this.o.afterMs) continue;
      const { failingSince, openSince } = health;
      const queued = await this.db.transaction(async (tx) => {
        if (!(await store.takeEndpointDownNotice(tx, org.id, failingSince, this.everyMs))) return false;
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
}
