/**
 * SQL of the delivery engine. Rows become domain records here and nowhere else.
 *
 * Leases: claiming pushes `next_attempt_at` to the lease's end and hands the worker that exact
 * value (truncated to milliseconds so it survives a round trip through a JS Date) as its lease
 * token. Recording an outcome only changes the row while the token still matches, so a worker
 * whose lease ran out (and whose row another worker took over) cannot overwrite newer state.
 * The token is compared with IS NOT DISTINCT FROM (the column is NOT NULL, so it means `=`)
 * because that form cannot use the due index: a whole claim shares one lease value, and looking
 * rows up through it instead of the primary key scans the batch once per row.
 */
import type { Queryable } from '../db/database.js';
import { toIso } from '../db/database.js';
import type { OutboxMessage } from './events.js';
import { OUTBOX_CHANNEL } from './outbox.js';
import type { LeasedMessage } from './types.js';

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'HELD' | 'CANCELLED';
export type Channel = OutboxMessage['channel'];

export interface AttemptRecord {
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface DeliveryRecord {
  id: string;
  messageId: string;
  channel: Channel;
  event: string;
  organizationId: string | null;
  emailTo: string | null;
  transactionRef: string | null;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** Exact `created_at` (ISO 8601 UTC with microseconds) for keyset cursors. */
  cursorAt: string;
}

/**
 * SQL: rows `a` and `b` of `deliveries` belong to the same transaction and the same recipient,
 * the messages that go out in order.
 */
const sameStream = (a: string, b: string) =>
  `${a}.transaction_ref = ${b}.transaction_ref AND ${a}.channel = ${b}.channel
   AND ${a}.organization_id IS NOT DISTINCT FROM ${b}.organization_id
   AND ${a}.email_to IS NOT DISTINCT FROM ${b}.email_to`;

/**
 * Claims up to `limit` due rows and leases them for `leaseMs`. A row is due when PENDING, its
 * time has come, and no earlier (lower `seq`) row of the same transaction to the same recipient
 * is undelivered: deliveries of one transaction to one recipient go out one at a time, in order.
 * (Rows behind a FAILED one are HELD, outside the due index; the check covers FAILED and HELD
 * too, for a row that was written PENDING while the one before it was failing.)
 * The time bound is `statement_timestamp()`, which an index scan can use as its upper end;
 * `clock_timestamp()` (volatile) cannot, so a claim that found fewer due rows than its limit
 * read the whole due index, every leased row included.
 * The chosen ids reach the UPDATE as an array (`id = ANY (ARRAY(…))`), which it looks up through
 * the primary key. Joined as a CTE instead, the planner hashed the whole outbox for every claim
 * with a sequential scan, a cost that grows with the table.
 * `caps` bounds the rows taken per recipient (a worker's room for it, fairness.ts): rows beyond a
 * recipient's cap are locked for the statement only and stay due, untouched, so a claim never
 * takes rows it would have to give back (an UPDATE each, twice, and the dead row versions).
 * Recipients left out entirely go in `excludeRecipients`, so that their rows do not use up `limit`.
 */
export async function claimDue(
  q: Queryable,
  opts: {
    limit: number;
    leaseMs: number;
    channels: readonly string[];
    excludeRecipients?: readonly string[];
    /** Rows per recipient at most: `recipients` for those listed, `others` for the rest. */
    caps?: { recipients: ReadonlyMap<string, number>; others: number };
  },
): Promise<LeasedMessage[]> {
  const due = (columns: string) => `SELECT ${columns} FROM deliveries d
         WHERE d.status = 'PENDING' AND d.next_attempt_at <= statement_timestamp()
           AND d.channel = ANY ($3::text[])
           AND (d.organization_id IS NULL OR d.organization_id <> ALL ($4::uuid[]))
           AND NOT EXISTS (
             SELECT 1 FROM deliveries f
              WHERE ${sameStream('d', 'f')} AND f.seq < d.seq AND f.status IN ('PENDING', 'FAILED', 'HELD'))
         ORDER BY d.next_attempt_at
         LIMIT $2
         FOR UPDATE OF d SKIP LOCKED`;
  const caps = opts.caps;
  const chosen = caps
    ? `SELECT c.id FROM (
         SELECT l.id, l.organization_id,
                row_number() OVER (PARTITION BY l.organization_id ORDER BY l.next_attempt_at) AS n
           FROM (${due('d.id, d.organization_id, d.next_attempt_at')}) l) c
         LEFT JOIN unnest($5::uuid[], $6::int[]) AS cap(organization_id, n) ON cap.organization_id = c.organization_id
        WHERE c.organization_id IS NULL OR c.n <= coalesce(cap.n, $7::int)`
    : due('d.id');
  const params: unknown[] = [opts.leaseMs, opts.limit, opts.channels, opts.excludeRecipients ?? []];
  if (caps) params.push([...caps.recipients.keys()], [...caps.recipients.values()], caps.others);
  return lease(q, chosen, params);
}

/**
 * Claims the due webhooks of these recipients only, at most as many of each as the map says, in
 * due order per recipient (the same rows claimDue would take of them). Each recipient's are read
 * through its own due index (migration 0012), so rows of other recipients, however many are due,
 * cost nothing. The recipient is bounded with two row comparisons on (organization_id,
 * next_attempt_at), which mean `organization_id = r AND next_attempt_at <= now` and which only that
 * index can serve: with the equality written out, the planner may reckon the due index cheaper
 * (it expects the recipient's rows to be spread evenly through it) and read past every due row of
 * the recipients before it.
 */
export async function claimDueFor(
  q: Queryable,
  opts: { recipients: ReadonlyMap<string, number>; leaseMs: number },
): Promise<LeasedMessage[]> {
  const chosen = `SELECT l.id FROM unnest($2::uuid[], $3::int[]) AS r(organization_id, n)
     CROSS JOIN LATERAL (
       SELECT d.id FROM deliveries d
        WHERE (d.organization_id, d.next_attempt_at) >= (r.organization_id, '-infinity'::timestamptz)
          AND (d.organization_id, d.next_attempt_at) <= (r.organization_id, statement_timestamp())
          AND d.status = 'PENDING' AND d.channel = 'webhook'
          AND NOT EXISTS (
            SELECT 1 FROM deliveries f
             WHERE ${sameStream('d', 'f')} AND f.seq < d.seq AND f.status IN ('PENDING', 'FAILED', 'HELD'))
        ORDER BY d.organization_id, d.next_attempt_at
        LIMIT r.n
        FOR UPDATE OF d SKIP LOCKED) l`;
  return lease(q, chosen, [opts.leaseMs, [...opts.recipients.keys()], [...opts.recipients.values()]]);
}

/** Leases the rows that `chosen` selects, for `params[0]` milliseconds, and returns them as a worker holds them. */
async function lease(q: Queryable, chosen: string, params: unknown[]): Promise<LeasedMessage[]> {
  const rows = await q.query(
    `UPDATE deliveries SET next_attempt_at =
         date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => $1::double precision / 1000)
      WHERE id = ANY (ARRAY(${chosen}))
     RETURNING id, message_id, channel, event, organization_id, email_to, transaction_ref, payload, attempts,
               next_attempt_at`,
    params,
  );
  return rows.map((r) => ({
    id: r.id as string,
    messageId: r.message_id as string,
    message: messageOf(r),
    attempts: r.attempts as number,
    lease: new Date(toIso(r.next_attempt_at)),
  }));
}

/** The message an outbox row holds; the hub wrote it from an OutboxMessage (outbox.ts). */
function messageOf(r: Record<string, unknown>): OutboxMessage {
  const transactionRef = (r.transaction_ref as string | null) ?? null;
  return (
    r.channel === 'email'
      ? { channel: 'email', event: r.event, emailTo: r.email_to, transactionRef, payload: r.payload }
      : r.channel === 'trp'
        ? { channel: 'trp', event: r.event, transactionRef, payload: r.payload }
        : {
            channel: 'webhook',
            event: r.event,
            organizationId: r.organization_id,
            transactionRef,
            payload: r.payload,
          }
  ) as OutboxMessage;
}

/** Removes the outbox's dead row versions and refreshes its statistics (see DeliveryWorker.maintain). */
export async function vacuum(q: Queryable): Promise<void> {
  await q.query('VACUUM (ANALYZE, SKIP_LOCKED) deliveries');
}

/** Milliseconds until the next PENDING row falls due (future rows only), or null when none. */
export async function msUntilNextDue(q: Queryable, channels: readonly string[]): Promise<number | null> {
  const rows = await q.query<{ ms: number | string | null }>(
    `SELECT (extract(epoch FROM min(next_attempt_at) - clock_timestamp()) * 1000)::float8 AS ms
       FROM deliveries
      WHERE status = 'PENDING' AND next_attempt_at > statement_timestamp() AND channel = ANY ($1::text[])`,
    [channels],
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Math.max(0, Number(ms));
}

export interface AttemptResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/**
 * Marks leased rows DELIVERED and records their attempts, in one statement whatever their number
 * (the worker records what finished meanwhile together). Returns the rows whose lease still
 * held; only the attempt is recorded for the others. Wakes the workers (NOTIFY, sent at commit;
 * repeats within a transaction are folded into one) when a later message of the same
 * transaction was waiting for one of these.
 */
export async function markDeliveredMany(
  q: Queryable,
  items: { d: LeasedMessage; attempt: AttemptResult }[],
): Promise<LeasedMessage[]> {
  if (items.length === 0) return [];
  const rows = await q.query<{ id: string }>(
    `WITH h AS (
       SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[])
         AS h(id, lease, status_code, latency_ms)),
     done AS (
       UPDATE deliveries d SET status = 'DELIVERED', attempts = d.attempts + 1,
              delivered_at = clock_timestamp(), last_error = NULL
         FROM h WHERE d.id = h.id AND d.status = 'PENDING' AND d.next_attempt_at IS NOT DISTINCT FROM h.lease
       RETURNING d.id, d.seq, d.transaction_ref),
     tried AS (
       INSERT INTO delivery_attempts (delivery_id, status_code, latency_ms)
       SELECT id, status_code, latency_ms FROM h)
     SELECT done.id,
            (SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM deliveries e
              WHERE e.transaction_ref = done.transaction_ref AND e.seq > done.seq AND e.status = 'PENDING'
              LIMIT 1) AS woke
       FROM done`,
    [...leaseParams(items.map((i) => i.d)), ...attemptParams(items)],
  );
  const held = new Set(rows.map((r) => r.id));
  return items.filter((i) => held.has(i.d.id)).map((i) => i.d);
}

/**
 * Records failed attempts, in one statement: each row PENDING again after its `retryInMs`, or
 * FAILED when that is null. Returns each row's new status; rows whose lease was lost are absent
 * (their attempt is recorded).
 */
export async function markFailedMany(
  q: Queryable,
  items: { d: LeasedMessage; attempt: AttemptResult & { error: string }; retryInMs: number | null }[],
): Promise<Map<string, DeliveryStatus>> {
  if (items.length === 0) return new Map();
  const rows = await q.query<{ id: string; status: DeliveryStatus }>(
    `WITH f AS (
       SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::float8[], $5::int[], $6::int[])
         AS f(id, lease, error, retry_ms, status_code, latency_ms)),
     tried AS (
       INSERT INTO delivery_attempts (delivery_id, status_code, latency_ms, error)
       SELECT id, status_code, latency_ms, error FROM f)
     UPDATE deliveries d SET attempts = d.attempts + 1, last_error = f.error,
            status = CASE WHEN f.retry_ms IS NULL THEN 'FAILED' ELSE 'PENDING' END,
            next_attempt_at = CASE WHEN f.retry_ms IS NULL THEN d.next_attempt_at
              ELSE clock_timestamp() + make_interval(secs => f.retry_ms / 1000) END
       FROM f
      WHERE d.id = f.id AND d.status = 'PENDING' AND d.next_attempt_at IS NOT DISTINCT FROM f.lease
     RETURNING d.id, d.status`,
    [
      ...leaseParams(items.map((i) => i.d)),
      items.map((i) => i.attempt.error),
      items.map((i) => i.retryInMs),
      ...attemptParams(items),
    ],
  );
  const failed = rows.filter((r) => r.status === 'FAILED').map((r) => r.id);
  if (failed.length > 0) await holdSuccessors(q, failed);
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** The PENDING messages behind these FAILED ones (same transaction and recipient) become HELD. */
async function holdSuccessors(q: Queryable, failedIds: string[]): Promise<void> {
  await q.query(
    `UPDATE deliveries d SET status = 'HELD'
       FROM deliveries f
      WHERE f.id = ANY ($1::uuid[]) AND ${sameStream('d', 'f')} AND d.seq > f.seq AND d.status = 'PENDING'`,
    [failedIds],
  );
}

/** The rows' ids and lease tokens, as the `uuid[]` and `timestamptz[]` parameters of a statement. */
function leaseParams(ds: LeasedMessage[]): [string[], string[]] {
  return [ds.map((d) => d.id), ds.map((d) => d.lease.toISOString())];
}

/** Status codes and whole milliseconds, as the `int[]` parameters of an attempt row insert. */
function attemptParams(items: { attempt: AttemptResult }[]): [(number | null)[], number[]] {
  return [
    items.map((i) => i.attempt.statusCode),
    items.map((i) => Math.max(0, Math.round(i.attempt.latencyMs))),
  ];
}

/** Gives leased rows back (the worker stops before it started them): due again at once. */
export async function releaseLeases(q: Queryable, held: LeasedMessage[]): Promise<void> {
  if (held.length === 0) return;
  await q.query(
    `UPDATE deliveries d SET next_attempt_at = clock_timestamp()
       FROM unnest($1::uuid[], $2::timestamptz[]) AS h(id, lease)
      WHERE d.id = h.id AND d.status = 'PENDING' AND d.next_attempt_at IS NOT DISTINCT FROM h.lease`,
    leaseParams(held),
  );
}

const COLUMNS = `id, message_id, channel, event, organization_id, email_to, transaction_ref, status, attempts,
  next_attempt_at, last_error, created_at, delivered_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at`;

function toRecord(r: Record<string, unknown>): DeliveryRecord {
  const status = r.status as DeliveryStatus;
  return {
    id: r.id as string,
    messageId: r.message_id as string,
    channel: r.channel as Channel,
    event: r.event as string,
    organizationId: (r.organization_id as string | null) ?? null,
    emailTo: (r.email_to as string | null) ?? null,
    transactionRef: (r.transaction_ref as string | null) ?? null,
    status,
    attempts: r.attempts as number,
    nextAttemptAt: status === 'PENDING' ? toIso(r.next_attempt_at) : null,
    lastError: (r.last_error as string | null) ?? null,
    createdAt: toIso(r.created_at),
    deliveredAt: r.delivered_at == null ? null : toIso(r.delivered_at),
    cursorAt: r.cursor_at as string,
  };
}

/** SQL: delivery `d`'s transaction has organization $2 as a party (a TRP message the member caused). */
const PARTY_OF_TRANSACTION = `EXISTS (SELECT 1 FROM transactions t WHERE t.ref = d.transaction_ref
  AND (t.originator_id = $2 OR t.beneficiary_id = $2))`;

export interface ListFilter {
  /** Webhooks to this organization, TRP messages of its transactions, or (undefined) e-mails. */
  organizationId?: string;
  channel: Channel;
  transactionRef?: string;
  status?: DeliveryStatus;
  event?: string;
  after?: { at: string; id: string };
  limit: number;
}

/** Newest first, keyset-paginated on (created_at, id). */
export async function listDeliveries(q: Queryable, f: ListFilter): Promise<DeliveryRecord[]> {
  const rows = await q.query(
    `SELECT ${COLUMNS} FROM deliveries d
      WHERE channel = $1
        AND ($2::uuid IS NULL OR CASE WHEN $1 = 'trp' THEN ${PARTY_OF_TRANSACTION} ELSE organization_id = $2 END)
        AND ($3::uuid IS NULL OR transaction_ref = $3) AND ($4::text IS NULL OR status = $4)
        AND ($5::text IS NULL OR event = $5)
        AND ($6::timestamptz IS NULL OR created_at < $6 OR (created_at = $6 AND id < $7::uuid))
      ORDER BY created_at DESC, id DESC
      LIMIT $8`,
    [
      f.channel,
      f.organizationId ?? null,
      f.transactionRef ?? null,
      f.status ?? null,
      f.event ?? null,
      f.after?.at ?? null,
      f.after?.id ?? null,
      f.limit,
    ],
  );
  return rows.map(toRecord);
}

/** Attempts of the given deliveries, oldest first, grouped by delivery id. */
export async function attemptsOf(q: Queryable, ids: string[]): Promise<Map<string, AttemptRecord[]>> {
  const byId = new Map<string, AttemptRecord[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byId;
  const rows = await q.query(
    `SELECT delivery_id, at, status_code, latency_ms, error FROM delivery_attempts
      WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, id`,
    [ids],
  );
  for (const r of rows) {
    byId.get(r.delivery_id as string)?.push({
      at: toIso(r.at),
      statusCode: (r.status_code as number | null) ?? null,
      latencyMs: r.latency_ms as number,
      error: (r.error as string | null) ?? null,
    });
  }
  return byId;
}

/** A webhook delivery to this organization, or a NOTIFY e-mail, locked for a state change. */
export async function findForUpdate(
  q: Queryable,
  id: string,
  scope: { channel: 'webhook' | 'trp'; organizationId: string } | { channel: 'email' },
): Promise<DeliveryRecord | undefined> {
  const rows =
    scope.channel === 'webhook'
      ? await q.query(
          `SELECT ${COLUMNS} FROM deliveries WHERE id = $1 AND organization_id = $2 AND channel = 'webhook'
             FOR UPDATE`,
          [id, scope.organizationId],
        )
      : scope.channel === 'trp'
        ? await q.query(
            `SELECT ${COLUMNS} FROM deliveries d WHERE id = $1 AND channel = 'trp' AND ${PARTY_OF_TRANSACTION}
               FOR UPDATE`,
            [id, scope.organizationId],
          )
        : await q.query(`SELECT ${COLUMNS} FROM deliveries WHERE id = $1 AND channel = 'email' FOR UPDATE`, [
            id,
          ]);
  return rows[0] && toRecord(rows[0]);
}

/** The channel of a delivery, if it exists. */
export async function channelOf(q: Queryable, id: string): Promise<Channel | undefined> {
  const rows = await q.query('SELECT channel FROM deliveries WHERE id = $1', [id]);
  return rows[0]?.channel as Channel | undefined;
}

/**
 * FAILED → PENDING with a fresh schedule, due now; the message id stays. The messages it held
 * are PENDING again too (they go out after it, in order), except those still behind another
 * FAILED one. Wakes the workers.
 */
export async function requeue(q: Queryable, id: string): Promise<DeliveryRecord> {
  // The transaction's row first, as every command that queues a message takes it: a message being
  // queued behind this one (HELD, uncommitted) is committed before the release below looks.
  await q.query(
    `SELECT 1 FROM transactions t JOIN deliveries d ON d.transaction_ref = t.ref
      WHERE d.id = $1 FOR NO KEY UPDATE OF t`,
    [id],
  );
  // HELD instead when an earlier message of its stream is itself FAILED or HELD (two FAILED in
  // one stream: data from before migration 0006, when a FAILED one held nothing back).
  const rows = await q.query(
    `UPDATE deliveries d SET attempts = 0, next_attempt_at = clock_timestamp(),
            status = CASE WHEN EXISTS (
              SELECT 1 FROM deliveries f
               WHERE ${sameStream('f', 'd')} AND f.seq < d.seq AND f.status IN ('FAILED', 'HELD'))
            THEN 'HELD' ELSE 'PENDING' END
      WHERE d.id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  await q.query(
    `UPDATE deliveries d SET status = 'PENDING', next_attempt_at = clock_timestamp()
       FROM deliveries f
      WHERE f.id = $1 AND ${sameStream('d', 'f')} AND d.seq > f.seq AND d.status = 'HELD'
        AND NOT EXISTS (
          SELECT 1 FROM deliveries g
           WHERE ${sameStream('g', 'd')} AND g.status = 'FAILED' AND g.seq > f.seq AND g.seq < d.seq)`,
    [id],
  );
  await q.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
  return toRecord(rows[0]!);
}

/** What the queue gauges show: PENDING rows, and how long the oldest due one has waited. */
export async function queueStats(q: Queryable): Promise<{ depth: number; oldestDueAgeSeconds: number }> {
  const rows = await q.query<{ depth: number | string; age: number | string | null }>(
    `SELECT count(*)::int AS depth,
            extract(epoch FROM clock_timestamp() - min(next_attempt_at)
              FILTER (WHERE status = 'PENDING' AND next_attempt_at <= clock_timestamp()))::float8 AS age
       FROM deliveries WHERE status IN ('PENDING', 'HELD')`,
  );
  const r = rows[0];
  return { depth: Number(r?.depth ?? 0), oldestDueAgeSeconds: Math.max(0, Number(r?.age ?? 0)) };
}
