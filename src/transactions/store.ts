/** SQL of the transactions domain. Rows are mapped to domain records here and nowhere else. */
import type { Queryable } from '../db/database.js';
import { toBuffer, toIso } from '../db/database.js';
import type { OutboxMessage } from '../deliveries/events.js';
import {
  insertOutboxFrom,
  OUTBOX_CHANNEL,
  OUTBOX_INPUT_COLUMNS,
  type OutboxPlan,
} from '../deliveries/outbox.js';
import { KEY_INPUT_COLUMNS, type KeyRecord, keyInput, recordKeysThen } from '../idempotency/store.js';
import type { Protocol, State } from './state-machine.js';

export interface TransactionRecord {
  ref: string;
  protocol: Protocol;
  status: State;
  originatorId: string;
  originatorDid: string;
  beneficiaryId: string | null;
  beneficiaryVaspId: string | null;
  beneficiaryDid: string | null;
  asset: string;
  assetDecimals: number;
  amount: string;
  origin: string | null;
  destination: string;
  txHash: string | null;
  notificationEmail: string | null;
  /** The decline (or cancel) reason, sealed (reasons.ts). */
  sealedReason: Buffer | null;
  createdAt: string;
  updatedAt: string;
}

const COLUMNS = `ref, protocol, status, originator_id, originator_did, beneficiary_id, beneficiary_vasp_id,
  beneficiary_did, asset, asset_decimals, amount, origin_address, destination_address, tx_hash,
  notification_email, sealed_reason, created_at, updated_at`;

function toRecord(r: Record<string, unknown>): TransactionRecord {
  return {
    ref: r.ref as string,
    protocol: r.protocol as Protocol,
    status: r.status as State,
    originatorId: r.originator_id as string,
    originatorDid: r.originator_did as string,
    beneficiaryId: (r.beneficiary_id as string | null) ?? null,
    beneficiaryVaspId: (r.beneficiary_vasp_id as string | null) ?? null,
    beneficiaryDid: (r.beneficiary_did as string | null) ?? null,
    asset: r.asset as string,
    assetDecimals: r.asset_decimals as number,
    amount: r.amount as string,
    origin: (r.origin_address as string | null) ?? null,
    destination: r.destination_address as string,
    txHash: (r.tx_hash as string | null) ?? null,
    notificationEmail: (r.notification_email as string | null) ?? null,
    sealedReason: r.sealed_reason == null ? null : toBuffer(r.sealed_reason),
    createdAt: toIso(r.created_at),
    updatedAt: toIso(r.updated_at),
  };
}

/** A new transaction with its first history row and its first outbox message. */
export interface Initiation {
  record: Omit<TransactionRecord, 'createdAt' | 'updatedAt' | 'sealedReason' | 'status'>;
  sealedPii: Buffer;
  message: OutboxMessage;
  /** With an Idempotency-Key: its record, written with the transaction unless the key is taken. */
  idempotency?: KeyRecord;
}

/**
 * Writes initiations (one or many: group commit) in ONE statement: the transactions, their NEW
 * history rows, their outbox rows as `outbox` planned them and their Idempotency-Key records. A
 * single statement is atomic on its own, and one round trip however many rows it carries. When
 * the plan says so, the same statement NOTIFYs the workers (sent at commit). Leased outbox rows
 * are due when their lease ends, by the database's clock (as a claim's lease is: another worker
 * compares it with that clock, whatever this host's says); returns that time, and the
 * initiations whose key was taken (not written).
 */
export async function insertInitiations(
  q: Queryable,
  items: Initiation[],
  outbox: OutboxPlan,
): Promise<{ leaseUntil: Date; skipped: ReadonlySet<Initiation> }> {
  let at = 0;
  const rows = items.map((item, i) => {
    const row = { ...initiationRow(item, at), ...outbox.rows[i]!, ...keyInput(item.idempotency) };
    at += item.sealedPii.length;
    return row;
  });
  const sealed = Buffer.concat(items.map((i) => i.sealedPii));
  const [result] = await q.query<{ lease_until: unknown; skipped: string[] | null }>(INSERT_INITIATIONS, [
    JSON.stringify(rows),
    sealed,
    outbox.notify,
    outbox.leaseMs,
  ]);
  const skippedRefs = new Set(result!.skipped ?? []);
  return {
    leaseUntil: new Date(toIso(result!.lease_until)),
    skipped: new Set(items.filter((i) => skippedRefs.has(i.record.ref))),
  };
}

/**
 * One initiation's own fields of the statement's jsonb input. The sealed personal data is not in
 * it: all rows' blobs go as one binary parameter, which each row cuts its own out of (`pii_at`,
 * 0-based), so the database neither parses them as JSON strings nor decodes base64.
 */
function initiationRow({ record: t, sealedPii }: Initiation, piiAt: number) {
  return {
    ref: t.ref,
    protocol: t.protocol,
    originator_id: t.originatorId,
    originator_did: t.originatorDid,
    beneficiary_id: t.beneficiaryId,
    beneficiary_vasp_id: t.beneficiaryVaspId,
    beneficiary_did: t.beneficiaryDid,
    asset: t.asset,
    asset_decimals: t.assetDecimals,
    amount: t.amount,
    origin_address: t.origin,
    destination_address: t.destination,
    tx_hash: t.txHash,
    notification_email: t.notificationEmail,
    pii_at: piiAt,
    pii_len: sealedPii.length,
  };
}

const INSERT_INITIATIONS = `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
         ref uuid, protocol text, originator_id uuid, originator_did text, beneficiary_id uuid,
         beneficiary_vasp_id text, beneficiary_did text, asset text, asset_decimals integer, amount text,
         origin_address text, destination_address text, tx_hash text, notification_email text,
         pii_at integer, pii_len integer, ${OUTBOX_INPUT_COLUMNS}, ${KEY_INPUT_COLUMNS})
     ), ${recordKeysThen('input', 'ref', 'ok')}, lease AS (
       -- Milliseconds, as the worker's token (a Date) holds it; the same for every row.
       SELECT date_trunc('milliseconds', statement_timestamp() + make_interval(secs => $4::float8 / 1000))
         AS until
     ), t AS (
       INSERT INTO transactions (ref, protocol, status, originator_id, originator_did, beneficiary_id,
         beneficiary_vasp_id, beneficiary_did, asset, asset_decimals, amount, origin_address,
         destination_address, tx_hash, notification_email, sealed_pii)
       SELECT ref, protocol, 'NEW', originator_id, originator_did, beneficiary_id, beneficiary_vasp_id,
         beneficiary_did, asset, asset_decimals, amount, origin_address, destination_address, tx_hash,
         notification_email, substring($2::bytea FROM pii_at + 1 FOR pii_len)
       FROM ok
     ), h AS (
       INSERT INTO transaction_history (transaction_ref, status, actor_id, actor)
       SELECT ref, 'NEW', originator_id, originator_did FROM ok
     ), d AS (
       ${insertOutboxFrom('ok', '(SELECT until FROM lease)')}
     )
     SELECT count(*)::int AS n, (SELECT until FROM lease) AS lease_until,
            (SELECT array_agg(ref::text) FROM input WHERE ref NOT IN (SELECT ref FROM ok)) AS skipped,
            CASE WHEN $3::boolean THEN pg_notify('${OUTBOX_CHANNEL}', '') END AS woke
       FROM input`;

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

export async function readSealedPii(q: Queryable, ref: string): Promise<Buffer | undefined> {
  const rows = await q.query('SELECT sealed_pii FROM transactions WHERE ref = $1', [ref]);
  return rows[0] && toBuffer(rows[0].sealed_pii);
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
  extra: { sealedReason?: Buffer; txHash?: string } = {},
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE transactions
        SET status = $3, updated_at = clock_timestamp(),
            sealed_reason = coalesce($4, sealed_reason), tx_hash = coalesce($5, tx_hash)
      WHERE ref = $1 AND status = $2
      RETURNING ref`,
    [ref, from, to, extra.sealedReason ?? null, extra.txHash ?? null],
  );
  return rows.length === 1;
}

/** Sets the hash once; returns false when another value is already set. */
export async function setTxHash(q: Queryable, ref: string, txHash: string): Promise<boolean> {
  const rows = await q.query(
    `UPDATE transactions SET tx_hash = $2, updated_at = clock_timestamp()
      WHERE ref = $1 AND (tx_hash IS NULL OR tx_hash = $2) AND status <> 'DECLINED'
      RETURNING ref`,
    [ref, txHash],
  );
  return rows.length === 1;
}

/** Locks the given transactions and returns their state, for a set-based move. */
export async function lockStates(
  q: Queryable,
  refs: string[],
): Promise<{ ref: string; status: State; protocol: Protocol }[]> {
  const rows = await q.query(
    `SELECT t.ref, t.status, t.protocol FROM transactions t
      WHERE t.ref IN (SELECT value::uuid FROM jsonb_array_elements_text($1::jsonb))
      ORDER BY t.ref FOR UPDATE`,
    [JSON.stringify(refs)],
  );
  return rows.map((r) => ({
    ref: r.ref as string,
    status: r.status as State,
    protocol: r.protocol as Protocol,
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
    `UPDATE transactions t SET status = m.to_status, updated_at = clock_timestamp()
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
  h: { ref: string; status: State; actorId: string | null; actor: string; sealedReason?: Buffer },
): Promise<void> {
  await q.query(
    'INSERT INTO transaction_history (transaction_ref, status, actor_id, actor, sealed_reason) VALUES ($1, $2, $3, $4, $5)',
    [h.ref, h.status, h.actorId, h.actor, h.sealedReason ?? null],
  );
}

export type HistoryEntry = { status: State; at: string; actor: string };

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
            (SELECT coalesce(json_agg(json_build_object('status', h.status, 'at', h.at, 'actor', h.actor)
                                      ORDER BY h.id), '[]')
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
  after?: { createdAt: string; ref: string };
  limit: number;
}

/** Newest first, keyset-paged on (created_at, ref). */
export async function listTransactions(q: Queryable, f: ListFilter): Promise<TransactionRecord[]> {
  const party =
    f.role === 'originator'
      ? 'originator_id = $1'
      : f.role === 'beneficiary'
        ? 'beneficiary_id = $1'
        : '(originator_id = $1 OR beneficiary_id = $1)';
  const rows = await q.query(
    `SELECT ${COLUMNS} FROM transactions
      WHERE ${party}
        AND ($2::text IS NULL OR status = $2)
        AND ($3::text IS NULL OR protocol = $3)
        AND ($4::text IS NULL OR upper(asset) = upper($4))
        AND ($5::timestamptz IS NULL OR created_at >= $5)
        AND ($6::timestamptz IS NULL OR created_at < $6)
        AND ($7::timestamptz IS NULL OR (created_at, ref) < ($7, $8::uuid))
      ORDER BY created_at DESC, ref DESC
      LIMIT $9`,
    [
      f.organizationId,
      f.status ?? null,
      f.protocol ?? null,
      f.asset ?? null,
      f.createdAfter ?? null,
      f.createdBefore ?? null,
      f.after?.createdAt ?? null,
      f.after?.ref ?? null,
      f.limit,
    ],
  );
  return rows.map(toRecord);
}

/**
 * NOTIFY transactions the organization started in the last 24 hours, counted under a lock that
 * makes concurrent NOTIFY initiations of one organization take turns (the count then holds until
 * the surrounding transaction commits), and when the oldest of them leaves the window.
 */
export async function lockNotifyWindow(
  q: Queryable,
  originatorId: string,
): Promise<{ count: number; windowFreesAt: string | null }> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtextextended('notify-limit/' || $1::text, 0))`, [
    originatorId,
  ]);
  const rows = await q.query<{ n: number; frees: unknown }>(
    `SELECT count(*)::int AS n, min(created_at) + interval '24 hours' AS frees FROM transactions
      WHERE originator_id = $1 AND protocol = 'NOTIFY' AND created_at > now() - interval '24 hours'`,
    [originatorId],
  );
  const r = rows[0]!;
  return { count: r.n, windowFreesAt: r.frees == null ? null : toIso(r.frees) };
}
