/**
 * The delivery API's SQL: lists, attempts, a row locked for a state change, redelivery and the
 * queue gauges. Rows become domain records here (outbox messages in claim-store.ts) and nowhere
 * else. The worker's statements are in claim-store.ts (claims and leases) and outcome-store.ts
 * (recording attempts).
 */
import type { Queryable } from '../db/database.js';
import { exactTime, toIso } from '../db/database.js';
import { sameStream } from './claim-store.js';
import type { OutboxMessage } from './events.js';
import { OUTBOX_CHANNEL } from './outbox.js';

// Worker statements that test/deliveries/worker.test.ts calls through this module.
export { claimDue, releaseLeases } from './claim-store.js';
export { markDeliveredMany, markFailedMany } from './outcome-store.js';

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

const COLUMNS = `id, message_id, channel, event, organization_id, email_to, transaction_ref, status, attempts,
  next_attempt_at, last_error, created_at, delivered_at, ${exactTime('created_at')}`;

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

/**
 * Locks the transaction a delivery belongs to, if any. Taken before the delivery's own row, as by
 * every command that queues or withdraws messages (hooks.ts): a message being queued behind this
 * one (HELD, uncommitted) is committed before a requeue looks, and a cancel never waits on a
 * redelivery that waits on it.
 */
export async function lockTransactionOf(q: Queryable, id: string): Promise<void> {
  await q.query(
    `SELECT 1 FROM transactions t JOIN deliveries d ON d.transaction_ref = t.ref
      WHERE d.id = $1 FOR NO KEY UPDATE OF t`,
    [id],
  );
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
 * FAILED one. Wakes the workers. The caller holds the transaction's lock (lockTransactionOf).
 */
export async function requeue(q: Queryable, id: string): Promise<DeliveryRecord> {
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

/** Webhooks owed to an organization, by state (withdrawn ones left out). */
export async function recipientCounts(
  q: Queryable,
  organizationId: string,
): Promise<{ delivered: number; pending: number; retrying: number; failed: number }> {
  const [row] = await q.query<{ delivered: number; pending: number; retrying: number; failed: number }>(
    `SELECT (count(*) FILTER (WHERE status = 'DELIVERED'))::int AS delivered,
            (count(*) FILTER (WHERE status IN ('PENDING', 'HELD') AND attempts = 0))::int AS pending,
            (count(*) FILTER (WHERE status IN ('PENDING', 'HELD') AND attempts > 0))::int AS retrying,
            (count(*) FILTER (WHERE status = 'FAILED'))::int AS failed
       FROM deliveries WHERE channel = 'webhook' AND organization_id = $1`,
    [organizationId],
  );
  return row ?? { delivered: 0, pending: 0, retrying: 0, failed: 0 };
}

/**
 * Per counterparty, the webhooks the hub sent it about transactions `viewerId` is a party to (the
 * viewer's messages to it), by state.
 */
export async function countsToCounterparties(
  q: Queryable,
  viewerId: string,
): Promise<Map<string, { delivered: number; pending: number; retrying: number; failed: number }>> {
  const rows = await q.query<{
    organization_id: string;
    delivered: number;
    pending: number;
    retrying: number;
    failed: number;
  }>(
    `SELECT d.organization_id,
            (count(*) FILTER (WHERE d.status = 'DELIVERED'))::int AS delivered,
            (count(*) FILTER (WHERE d.status IN ('PENDING', 'HELD') AND d.attempts = 0))::int AS pending,
            (count(*) FILTER (WHERE d.status IN ('PENDING', 'HELD') AND d.attempts > 0))::int AS retrying,
            (count(*) FILTER (WHERE d.status = 'FAILED'))::int AS failed
       FROM deliveries d JOIN transactions t ON t.ref = d.transaction_ref
      WHERE d.channel = 'webhook' AND d.organization_id <> $1
        AND (t.originator_id = $1 OR t.beneficiary_id = $1)
      GROUP BY d.organization_id`,
    [viewerId],
  );
  return new Map(rows.map(({ organization_id, ...counts }) => [organization_id, counts]));
}

export interface EndpointFailures {
  /** Failed attempts since the last successful one. */
  failures: number;
  /** The first of them. */
  failingSince: string | null;
  /** The `tripAfter`-th of them: when the circuit opened. */
  openSince: string | null;
  lastError: string | null;
  lastStatusCode: number | null;
  lastAttemptAt: string | null;
}

/** The run of failed webhook attempts to an organization since its last successful one. */
export async function endpointFailures(
  q: Queryable,
  organizationId: string,
  tripAfter: number,
): Promise<EndpointFailures> {
  const [row] = await q.query(
    `WITH mine AS (
       SELECT a.id, a.at, a.error, a.status_code
         FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE d.channel = 'webhook' AND d.organization_id = $1),
     fails AS (
       SELECT at, error, status_code, row_number() OVER (ORDER BY at, id) AS n, id FROM mine
        WHERE error IS NOT NULL
          AND at > coalesce((SELECT max(at) FROM mine WHERE error IS NULL), '-infinity'::timestamptz))
     SELECT (SELECT count(*)::int FROM fails) AS failures,
            (SELECT min(at) FROM fails) AS failing_since,
            (SELECT at FROM fails WHERE n = $2) AS open_since,
            (SELECT error FROM fails ORDER BY at DESC, id DESC LIMIT 1) AS last_error,
            (SELECT status_code FROM fails ORDER BY at DESC, id DESC LIMIT 1) AS last_status,
            (SELECT max(at) FROM mine) AS last_attempt_at`,
    [organizationId, tripAfter],
  );
  const time = (v: unknown) => (v == null ? null : toIso(v));
  return {
    failures: (row?.failures as number | undefined) ?? 0,
    failingSince: time(row?.failing_since),
    openSince: time(row?.open_since),
    lastError: (row?.last_error as string | null) ?? null,
    lastStatusCode: (row?.last_status as number | null) ?? null,
    lastAttemptAt: time(row?.last_attempt_at),
  };
}

/**
 * Organizations that may need an endpoint-down notice: with a contact address, a webhook that
 * failed its last attempt (retrying or given up), and no notice in the last `everyMs`.
 */
export async function endpointDownCandidates(
  q: Queryable,
  everyMs: number,
): Promise<
  { id: string; name: string; vaspDid: string; travelEndpoint: string | null; contactEmail: string }[]
> {
  const rows = await q.query(
    `SELECT o.id, o.name, o.vasp_did, o.travel_endpoint, o.contact_email FROM organizations o
      WHERE o.contact_email IS NOT NULL
        AND EXISTS (SELECT 1 FROM deliveries d WHERE d.organization_id = o.id AND d.channel = 'webhook'
                       AND (d.status = 'FAILED' OR (d.status IN ('PENDING', 'HELD') AND d.attempts > 0)))
        AND NOT EXISTS (SELECT 1 FROM endpoint_down_notices n WHERE n.organization_id = o.id
                           AND n.sent_at > clock_timestamp() - make_interval(secs => $1::float8 / 1000))`,
    [everyMs],
  );
  return rows.map((r) => ({
    id: r.id as string,
    name: r.name as string,
    vaspDid: r.vasp_did as string,
    travelEndpoint: (r.travel_endpoint as string | null) ?? null,
    contactEmail: r.contact_email as string,
  }));
}

/**
 * Takes the organization's notice for now, unless one was sent within `everyMs`: a conditional
 * upsert, so that of several processes (or a restarted one) exactly one sends it. Returns whether
 * this caller took it (then it queues the e-mail in the same transaction).
 */
export async function takeEndpointDownNotice(
  q: Queryable,
  organizationId: string,
  failingSince: string,
  everyMs: number,
): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO endpoint_down_notices (organization_id, sent_at, failing_since)
     VALUES ($1, clock_timestamp(), $2)
     ON CONFLICT (organization_id) DO UPDATE SET sent_at = EXCLUDED.sent_at, failing_since = EXCLUDED.failing_since
      WHERE endpoint_down_notices.sent_at <= clock_timestamp() - make_interval(secs => $3::float8 / 1000)
     RETURNING organization_id`,
    [organizationId, failingSince, everyMs],
  );
  return rows.length === 1;
}

/** When the organization's last endpoint-down notice went out, if ever. */
export async function lastEndpointDownNotice(q: Queryable, organizationId: string): Promise<string | null> {
  const rows = await q.query('SELECT sent_at FROM endpoint_down_notices WHERE organization_id = $1', [
    organizationId,
  ]);
  return rows[0] ? toIso(rows[0].sent_at) : null;
}
