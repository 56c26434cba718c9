/**
 * An organization's delivery health as the operator sees it (issue 35): the webhooks the hub owes
 * it, by state, and its endpoint's circuit. The circuit here is read from the recorded attempts,
 * not from a worker's memory (fairness.ts keeps that per process): the endpoint counts as open
 * once its last CIRCUIT_TRIP_AFTER attempts in a row failed, the rule every worker's breaker
 * follows, so every process (API or worker, any number of them) answers alike. Error classes only,
 * never an answer's body.
 */
import type { Queryable } from '../db/database.js';
import { CIRCUIT_TRIP_AFTER } from './fairness.js';
import type { EndpointHealth, OrganizationDeliveryHealth } from './schemas.js';
import * as store from './store.js';
import { errorClass } from './summary.js';

/** The host of an endpoint URL; null without one (or an unparsable one). */
export function hostOf(endpoint: string | null): string | null {
  if (endpoint === null) return null;
  try {
    return new URL(endpoint).host;
  } catch {
    return null;
  }
}

export async function endpointHealth(
  q: Queryable,
  org: { id: string; travelEndpoint: string | null },
): Promise<EndpointHealth> {
  const f = await store.endpointFailures(q, org.id, CIRCUIT_TRIP_AFTER);
  const open = f.failures >= CIRCUIT_TRIP_AFTER;
  return {
    host: hostOf(org.travelEndpoint),
    circuit: open ? 'open' : 'closed',
    failuresInARow: f.failures,
    failingSince: f.failingSince,
    openSince: open ? f.openSince : null,
    lastError: f.failures > 0 ? errorClass('webhook', f.lastError, f.lastStatusCode) : null,
    lastAttemptAt: f.lastAttemptAt,
  };
}

export async function organizationDeliveryHealth(
  q: Queryable,
  org: { id: string; travelEndpoint: string | null },
): Promise<OrganizationDeliveryHealth> {
  const [messages, endpoint, lastNotice] = await Promise.all([
    store.recipientCounts(q, org.id),
    endpointHealth(q, org),
    store.lastEndpointDownNotice(q, org.id),
  ]);
  return { organizationId: org.id, messages, endpoint, endpointDownNoticeSentAt: lastNotice };
}
