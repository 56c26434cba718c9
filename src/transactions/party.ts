/** Who may see a transaction (SPEC §3): its originator and its beneficiary; to anyone else it does not exist. */
import type { Queryable } from '../db/database.js';
import { notFound } from '../http/errors.js';
import * as store from './store.js';

/** The transaction if `orgId` is a party to it; to anyone else it does not exist (404). */
export function asParty<T extends store.TransactionRecord>(t: T | undefined, orgId: string): T {
  if (!t || (t.originatorId !== orgId && t.beneficiaryId !== orgId)) throw notFound('The transaction');
  return t;
}

/** The transaction, locked until `tx` ends, if the caller is a party to it. */
export async function lockAsParty(
  tx: Queryable,
  orgId: string,
  ref: string,
): Promise<store.TransactionRecord> {
  return asParty(await store.findTransaction(tx, ref, true), orgId);
}
