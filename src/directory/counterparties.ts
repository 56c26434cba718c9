/**
 * The members' counterparty directory (issue 35): every other organization with its verified
 * state and who verified it, jurisdiction and LEI, and how the caller's messages to it fare. No
 * endpoint, key or contact address of another organization.
 */
import type { Queryable } from '../db/database.js';
import { countsToCounterparties } from '../deliveries/store.js';
import type { Counterparty } from './schemas.js';
import { listCounterparties } from './store.js';

const NONE = { delivered: 0, pending: 0, retrying: 0, failed: 0 };

export async function counterpartiesOf(q: Queryable, viewerId: string): Promise<Counterparty[]> {
  const [orgs, counts] = await Promise.all([
    listCounterparties(q, viewerId),
    countsToCounterparties(q, viewerId),
  ]);
  return orgs.map((o) => ({ ...o, delivery: counts.get(o.id) ?? NONE }));
}
