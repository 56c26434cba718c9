/** SQL of the transactions domain. Rows are mapped to domain records here and nowhere else. */
import type { Queryable } from '../db/database.js';
import { exactTime, toBuffer, toIso } from '../db/database.js';
import { deliveryFailing } from '../deliveries/summary.js';
import { awaitsConfirm, awaitsReview, reviewStateIs } from '../reviews/store.js';
import type { TrpTransferInfo } from './schemas.js';
import { type Flow, flowOf, type Protocol, type State } from './state-machine.js';

export interface TransactionRecord {
  ref: string;
  protocol: Protocol;
  status: State;
  /** null for an inbound TRP transfer: its originator is a TRP peer (src/trp/). */
  originatorId: string | null;
  originatorDid: string;
  beneficiaryId: string | null;
  beneficiaryVaspId: string | null;
  beneficiaryDid: string | null;
  asset: string;
  assetDecimals: number;
  amount: string;
  origin: string | null;
  /** null for a TRP transfer until its beneficiary approves with an address. */
  destination: string | null;
  txHash: string | null;
  notificationEmail: string | null;
  /** The decline (or cancel) reason, sealed (reasons.ts). */
  sealedReason: Buffer | null;
  /** When a NOTIFY transaction's beneficiary claimed it (it follows MAIN from then on). */
  claimedAt: string | null;
  /** A TRP transaction that a TRP peer sent to a member. */
  inbound: boolean;
  /** Which way through the state machine the transaction goes. */
  flow: Flow;
  createdAt: string;
  updatedAt: string;
  /** When the personal data and sealed reasons were erased (SPEC §14); null while kept. */
  piiErasedAt: string | null;
}

const COLUMNS = `ref, protocol, status, originator_id, originator_did, beneficiary_id, beneficiary_vasp_id,
  beneficiary_did, asset, asset_decimals, amount, origin_address, destination_address, tx_hash,
  notification_email, sealed_reason, claimed_at, inbound, created_at, updated_at, pii_erased_at`;

function toRecord(r: Record<string, unknown>): TransactionRecord {
  const protocol = r.protocol as Protocol;
  const claimedAt = r.claimed_at == null ? null : toIso(r.claimed_at);
  const inbound = r.inbound === true;
  return {
    ref: r.ref as string,
    protocol,
    status: r.status as State,
    originatorId: (r.originator_id as string | null) ?? null,
    originatorDid: r.originator_did as string,
    beneficiaryId: (r.beneficiary_id as string | null) ?? null,
    beneficiaryVaspId: (r.beneficiary_vasp_id as string | null) ?? null,
    beneficiaryDid: (r.beneficiary_did as string | null) ?? null,
    asset: r.asset as string,
    assetDecimals: r.asset_decimals as number,
    amount: r.amount as string,
    origin: (r.origin_address as string | null) ?? null,
    destination: (r.destination_address as string | null) ?? null,
    txHash: (r.tx_hash as string | null) ?? null,
    notificationEmail: (r.notification_email as string | null) ?? null,
    sealedReason: r.sealed_reason == null ? null : toBuffer(r.sealed_reason),
    claimedAt,
    inbound,
    flow: flowOf({ protocol, claimed: claimedAt !== null, inbound }),
    createdAt: toIso(r.created_at),
    updatedAt: toIso(r.updated_at),
    piiErasedAt: r.pii_erased_at == null ? null : toIso(r.pii_erased_at),
  };
}

/** Reads a transaction; `lock` takes a row lock until the surrounding transaction ends. */
export async function findTransaction(
  q: Queryable,
  ref: string,
  lock = false,
): Promise<TransactionRecord | undefined> {
  const rows = await q.query(
    `SELECT ${COLUMNS} FROM transactions WHERE ref = $1${lock ? ' FOR UPDATE' : ''}`,
    [ref],
  );
  return rows[0] && toRecord(rows[0]);
}

/** The sealed personal data; null once erased (SPEC §14), undefined for an unknown transaction. */
export async function readSealedPii(q: Queryable, ref: string): Promise<Buffer | null | undefined> {
  const rows = await q.query('SELECT sealed_pii FROM transactions WHERE ref = $1', [ref]);
  return rows[0] && (rows[0].sealed_pii == null ? null : toBuffer(rows[0].sealed_pii));
}

/** The sealed personal data of many transactions (those erased or unknown are absent). */
export async function readSealedPiiMany(q: Queryable, refs: readonly string[]): Promise<Map<string, Buffer>> {
  if (refs.length === 0) return new Map();
  const rows = await q.query(
    'SELECT ref, sealed_pii FROM transactions WHERE ref = ANY ($1::uuid[]) AND sealed_pii IS NOT NULL',
    [refs],
  );
  return new Map(rows.map((r) => [r.ref as string, toBuffer(r.sealed_pii)]));
}

/**
 * Moves a transaction from `from` to `to` only if it is still in `from` (a conditional
 * update: of two racing commands, exactly one wins). Returns whether it moved.
 */
export async function updateStatus(
  q: Queryable,
  ref: string,
  from: State,
  to: State,
  extra: { sealedReason?: Buffer; txHash?: string; destination?: string } = {},
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE transactions
        SET status = $3, updated_at = clock_timestamp(), state_changed_at = clock_timestamp(),
            sealed_reason = coalesce($4, sealed_reason), tx_hash = coalesce($5, tx_hash),
            destination_address = coalesce($6, destination_address)
      WHERE ref = $1 AND status = $2
      RETURNING ref`,
    [ref, from, to, extra.sealedReason ?? null, extra.txHash ?? null, extra.destination ?? null],
  );
  return rows.length === 1;
}

/** Sets the hash once; returns false when another value is already set. */
export async function setTxHash(q: Queryable, ref: string, txHash: string): Promise<boolean> {
  const rows = await q.query(
    `UPDATE transactions SET tx_hash = $2, updated_at = clock_timestamp()
      WHERE ref = $1 AND (tx_hash IS NULL OR tx_hash = $2) AND status NOT IN ('DECLINED', 'CANCELLED', 'EXPIRED')
      RETURNING ref`,
    [ref, txHash],
  );
  return rows.length === 1;
}

/** Locks the given transactions (in `ref` order) and returns their state, for a set-based move. */
export async function lockStates(
  q: Queryable,
  refs: string[],
): Promise<{ ref: string; status: State; flow: Flow }[]> {
  const rows = await q.query(
    `SELECT t.ref, t.status, t.protocol, t.claimed_at, t.inbound FROM transactions t
      WHERE t.ref IN (SELECT value::uuid FROM jsonb_array_elements_text($1::jsonb))
      ORDER BY t.ref FOR NO KEY UPDATE`,
    [JSON.stringify(refs)],
  );
  return rows.map((r) => ({
    ref: r.ref as string,
    status: r.status as State,
    flow: flowOf({
      protocol: r.protocol as Protocol,
      claimed: r.claimed_at != null,
      inbound: r.inbound === true,
    }),
  }));
}

/**
 * Applies moves the hub itself causes to many (locked) transactions at once: each row's final
 * status, and a history row per step in order (BASIC takes two steps). Two statements whatever
 * the number of transactions.
 */
export async function applyHubMoves(
  q: Queryable,
  finals: { ref: string; from: State; to: State }[],
  steps: { ref: string; status: State }[],
): Promise<void> {
  await q.query(
    `UPDATE transactions t SET status = m.to_status, updated_at = clock_timestamp(), state_changed_at = clock_timestamp()
       FROM jsonb_to_recordset($1::jsonb) AS m(ref uuid, from_status text, to_status text)
      WHERE t.ref = m.ref AND t.status = m.from_status`,
    [JSON.stringify(finals.map((f) => ({ ref: f.ref, from_status: f.from, to_status: f.to })))],
  );
  await q.query(
    `INSERT INTO transaction_history (transaction_ref, status, actor_id, actor)
     SELECT (e.value->>'ref')::uuid, e.value->>'status', NULL, 'hub'
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(value, n)
      ORDER BY e.n`,
    [JSON.stringify(steps)],
  );
}

export async function appendHistory(
  q: Queryable,
  h: {
    ref: string;
    status: State;
    actorId: string | null;
    actor: string;
    sealedReason?: Buffer;
    event?: string;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO transaction_history (transaction_ref, status, actor_id, actor, sealed_reason, event)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [h.ref, h.status, h.actorId, h.actor, h.sealedReason ?? null, h.event ?? null],
  );
}

/** An entry of a transaction's history; `event` names what happened when the status stayed. */
export type HistoryEntry = { status: State; at: string; actor: string; event?: string };

/**
 * A transaction and its history in one statement, so from one snapshot: a command committing in
 * between cannot make the status and the history's last entry disagree.
 */
export async function findTransactionWithHistory(
  q: Queryable,
  ref: string,
): Promise<(TransactionRecord & { history: HistoryEntry[] }) | undefined> {
  const rows = await q.query(
    `SELECT ${COLUMNS},
            (SELECT coalesce(json_agg(json_strip_nulls(json_build_object(
                      'status', h.status, 'at', h.at, 'actor', h.actor, 'event', h.event)) ORDER BY h.id), '[]')
               FROM transaction_history h WHERE h.transaction_ref = t.ref) AS history
       FROM transactions t WHERE ref = $1`,
    [ref],
  );
  const r = rows[0];
  if (!r) return undefined;
  const history = (typeof r.history === 'string' ? JSON.parse(r.history) : r.history) as HistoryEntry[];
  return { ...toRecord(r), history: history.map((h) => ({ ...h, at: toIso(h.at) })) };
}

export interface ListFilter {
  organizationId: string;
  role?: 'originator' | 'beneficiary';
  status?: string;
  protocol?: string;
  asset?: string;
  createdAfter?: string;
  createdBefore?: string;
  /** Whole units, decimal strings (AMOUNT_PATTERN). */
  minAmount?: string;
  maxAmount?: string;
  /** A reference or a prefix of it, an address, a counterparty's name or DID (SPEC §17 `q`). */
  q?: string;
  /** Customer-name index entries (hex) that must all be the transaction's (name-index.ts). */
  customerEntries?: string[];
  /** Only transactions whose message to the counterparty is failing. */
  deliveryFailing?: boolean;
  /** The caller's review state (src/reviews/) and "needs my action" (the queue's lists). */
  review?: string;
  needs?: 'confirm' | 'review';
}

export interface ListPage {
  sort: 'newest' | 'oldest';
  after?: { createdAt: string; ref: string };
  limit: number;
}

/** A short reference: the first 8 or more characters of a reference's text (hex, dashes where they fall). */
const REF_PREFIX = /^[0-9a-f]{8}[0-9a-f-]{0,28}$/i;

/**
 * Whether the caller may see this transaction's personal data (reads.ts says the same in code):
 * the originator always; the beneficiary once it was CONFIRMED, and an inbound TRP transfer's.
 */
const PII_ENTITLED = `(t.originator_id = $1 OR t.status IN ('CONFIRMED', 'DECLINED') OR t.inbound
  OR (t.status = 'CANCELLED' AND EXISTS (SELECT 1 FROM transaction_history h
                                          WHERE h.transaction_ref = t.ref AND h.status = 'CONFIRMED')))`;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The WHERE clause of a filter and its parameters ($1 is always the organization). */
function whereOf(f: ListFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [f.organizationId];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const party =
    f.role === 'originator'
      ? 't.originator_id = $1'
      : f.role === 'beneficiary'
        ? 't.beneficiary_id = $1'
        : '(t.originator_id = $1 OR t.beneficiary_id = $1)';
  const and: string[] = [party];
  if (f.status !== undefined) and.push(`t.status = ${p(f.status)}`);
  if (f.protocol !== undefined) and.push(`t.protocol = ${p(f.protocol)}`);
  if (f.asset !== undefined) and.push(`upper(t.asset) = upper(${p(f.asset)})`);
  if (f.createdAfter !== undefined) and.push(`t.created_at >= ${p(f.createdAfter)}::timestamptz`);
  if (f.createdBefore !== undefined) and.push(`t.created_at < ${p(f.createdBefore)}::timestamptz`);
  if (f.minAmount !== undefined) and.push(`t.amount::numeric >= ${p(f.minAmount)}::numeric`);
  if (f.maxAmount !== undefined) and.push(`t.amount::numeric <= ${p(f.maxAmount)}::numeric`);
  if (f.deliveryFailing) and.push(deliveryFailing('$1::uuid'));
  if (f.review !== undefined) and.push(reviewStateIs('$1::uuid', `${p(f.review)}::text`));
  if (f.needs === 'confirm') and.push(awaitsConfirm('$1::uuid'));
  if (f.needs === 'review') and.push(awaitsReview('$1::uuid'));
  if (f.q !== undefined) {
    const exact = p(f.q.toLowerCase());
    const named = p(`%${escapeLike(f.q.toLowerCase())}%`);
    const counterparties = `SELECT o.id FROM organizations o
                WHERE o.id <> $1 AND (lower(o.name) LIKE ${named} OR lower(o.vasp_did) = ${exact})`;
    const either: string[] = [
      `lower(t.destination_address) = ${exact}`,
      `lower(t.origin_address) = ${exact}`,
      // The counterparty's DID or name, not the caller's own.
      `(t.originator_id IS DISTINCT FROM $1 AND lower(t.originator_did) = ${exact})`,
      `(t.beneficiary_id IS DISTINCT FROM $1 AND lower(t.beneficiary_did) = ${exact})`,
      // Uncorrelated: each list is made once per query, not once per row.
      `t.originator_id IN (${counterparties})`,
      `t.beneficiary_id IN (${counterparties})`,
      `t.ref IN (SELECT r.transaction_ref FROM trp_transfers r
                  WHERE lower(r.peer_name) LIKE ${named} OR lower(r.travel_address) = ${exact})`,
    ];
    if (REF_PREFIX.test(f.q)) either.unshift(`t.ref::text LIKE ${p(`${f.q.toLowerCase()}%`)}`);
    and.push(`(${either.join(' OR ')})`);
  }
  if (f.customerEntries !== undefined) {
    and.push(
      `t.name_tokens @> ARRAY(SELECT decode(e, 'hex') FROM unnest(${p(f.customerEntries)}::text[]) AS e)`,
    );
    and.push(PII_ENTITLED);
  }
  return { where: and.join('\n        AND '), params };
}

/**
 * A page of the filtered list, newest (or oldest) first, keyset-paged on (created_at, ref);
 * `cursorAt` is the row's exact created_at. `piiEntitled`: whether the caller may read its personal data.
 */
export async function listTransactions(
  q: Queryable,
  f: ListFilter,
  page: ListPage,
): Promise<(TransactionRecord & { cursorAt: string; piiEntitled: boolean })[]> {
  const { where, params } = whereOf(f);
  const desc = page.sort === 'newest';
  let keyset = '';
  if (page.after) {
    params.push(page.after.createdAt, page.after.ref);
    keyset = `AND (t.created_at, t.ref) ${desc ? '<' : '>'} ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  params.push(page.limit);
  const order = desc ? 'DESC' : 'ASC';
  const rows = await q.query(
    `SELECT ${COLUMNS}, ${exactTime('created_at')}, ${PII_ENTITLED} AS pii_entitled FROM transactions t
      WHERE ${where}
        ${keyset}
      ORDER BY t.created_at ${order}, t.ref ${order}
      LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => ({
    ...toRecord(r),
    cursorAt: r.cursor_at as string,
    piiEntitled: r.pii_entitled === true,
  }));
}

/** How many transactions the filter matches (all pages). */
export async function countTransactions(q: Queryable, f: ListFilter): Promise<number> {
  const { where, params } = whereOf(f);
  const rows = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM transactions t WHERE ${where}`,
    params,
  );
  return rows[0]!.n;
}

/**
 * Makes a directory member the beneficiary of a NOTIFY transaction it claimed (SPEC §12), and
 * moves it to `status`. The claim is recorded (`claimed_at`): the transaction follows MAIN from now on.
 * Its history row is progress, so the expiry clock starts again (SPEC §11).
 */
export async function claimBeneficiary(
  q: Queryable,
  ref: string,
  from: State,
  to: State,
  beneficiary: { id: string; vaspDid: string },
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE transactions
        SET beneficiary_id = $4::uuid, beneficiary_vasp_id = $6, beneficiary_did = $5, claimed_at = clock_timestamp(),
            status = $3, updated_at = clock_timestamp(),
            state_changed_at = clock_timestamp()
      WHERE ref = $1 AND status = $2 AND claimed_at IS NULL
      RETURNING ref`,
    [ref, from, to, beneficiary.id, beneficiary.vaspDid, beneficiary.id],
  );
  return rows.length === 1;
}

/**
 * One transaction with no state change for `olderThanMs` in NEW or RECEIVER_NOTIFIED, locked for
 * the surrounding transaction; rows another worker holds are skipped, so each expires once.
 */
export async function lockExpiring(
  q: Queryable,
  olderThanMs: number,
): Promise<TransactionRecord | undefined> {
  const rows = await q.query(
    `SELECT ${COLUMNS} FROM transactions
      WHERE status IN ('NEW', 'RECEIVER_NOTIFIED')
        AND state_changed_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000)
      ORDER BY state_changed_at
      LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [olderThanMs],
  );
  return rows[0] && toRecord(rows[0]);
}

/** The TRP side of TRP transactions, by reference (the bridge writes it: src/trp/store.ts). */
export async function findTrpTransfers(q: Queryable, refs: readonly string[]) {
  if (refs.length === 0) return new Map<string, TrpTransferInfo>();
  const rows = await q.query(
    `SELECT transaction_ref, inbound, travel_address, peer_host, peer_name, peer_lei, peer_subject
       FROM trp_transfers WHERE transaction_ref = ANY ($1::uuid[])`,
    [refs],
  );
  return new Map<string, TrpTransferInfo>(
    rows.map((r) => [
      r.transaction_ref as string,
      {
        direction: r.inbound ? 'inbound' : 'outbound',
        travelAddress: (r.travel_address as string | null) ?? null,
        peer: {
          host: r.peer_host as string,
          name: (r.peer_name as string | null) ?? null,
          lei: (r.peer_lei as string | null) ?? null,
          certificateSubject: (r.peer_subject as string | null) ?? null,
        },
      },
    ]),
  );
}

/** Whether the transaction was ever CONFIRMED (its data then reached the beneficiary). */
export async function wasConfirmed(q: Queryable, ref: string): Promise<boolean> {
  const rows = await q.query(
    `SELECT 1 FROM transaction_history WHERE transaction_ref = $1 AND status = 'CONFIRMED' LIMIT 1`,
    [ref],
  );
  return rows.length > 0;
}

/**
 * The operator's list (SPEC §17 workbench, issue 35): every transaction, or those of one
 * organization as either party, newest first, keyset-paged on (created_at, ref). Its own query,
 * apart from the members' list: no party rule, no delivery summary, no personal data selected.
 */
export interface AdminListFilter {
  status?: string;
  protocol?: string;
  organizationId?: string;
  after?: { createdAt: string; ref: string };
  limit: number;
}

export async function listAllTransactions(
  q: Queryable,
  f: AdminListFilter,
): Promise<(TransactionRecord & { cursorAt: string })[]> {
  const rows = await q.query(
    `SELECT ${COLUMNS}, ${exactTime('created_at')} FROM transactions t
      WHERE ($1::text IS NULL OR status = $1)
        AND ($2::text IS NULL OR protocol = $2)
        AND ($3::uuid IS NULL OR originator_id = $3 OR beneficiary_id = $3)
        AND ($4::timestamptz IS NULL OR (created_at, ref) < ($4, $5::uuid))
      ORDER BY created_at DESC, ref DESC
      LIMIT $6`,
    [
      f.status ?? null,
      f.protocol ?? null,
      f.organizationId ?? null,
      f.after?.createdAt ?? null,
      f.after?.ref ?? null,
      f.limit,
    ],
  );
  return rows.map((r) => ({ ...toRecord(r), cursorAt: r.cursor_at as string }));
}

/** Transactions created per UTC day since `since`, by their current status and protocol. */
export async function dailyCounts(
  q: Queryable,
  f: { since: string; organizationId?: string },
): Promise<{ day: string; status: State; protocol: Protocol; n: number }[]> {
  const rows = await q.query<{ day: string; status: State; protocol: Protocol; n: number }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status, protocol, count(*)::int AS n
       FROM transactions
      WHERE created_at >= $1::timestamptz
        AND ($2::uuid IS NULL OR originator_id = $2 OR beneficiary_id = $2)
      GROUP BY 1, 2, 3`,
    [f.since, f.organizationId ?? null],
  );
  return rows;
}

/** An organization's transactions by status, as originator and as beneficiary. */
export async function partyCounts(
  q: Queryable,
  organizationId: string,
): Promise<{ status: State; asOriginator: number; asBeneficiary: number }[]> {
  return q.query(
    `SELECT status,
            (count(*) FILTER (WHERE originator_id = $1))::int AS "asOriginator",
            (count(*) FILTER (WHERE beneficiary_id = $1))::int AS "asBeneficiary"
       FROM transactions WHERE originator_id = $1 OR beneficiary_id = $1
      GROUP BY status`,
    [organizationId],
  );
}
