/**
 * SQL of the worker's claims: which outbox rows are due, claiming and leasing them, giving the
 * leases back, when the next row falls due, and the outbox's vacuum. What became of a claimed row
 * is recorded by outcome-store.ts; the delivery API's reads and redelivery are in store.ts.
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
import type { OutboxMessage } from './events.js';
import type { LeasedMessage } from './types.js';

/**
 * SQL: rows `a` and `b` of `deliveries` belong to the same transaction and the same recipient,
 * the messages that go out in order.
 */
export const sameStream = (a: string, b: string) =>
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
  // A TRP message's recipient is its transfer's peer host (trpRecipient), read beside the row.
  const trp = opts.channels.includes('trp');
  const host = trp ? 'p.peer_host' : 'NULL::text';
  const due = (columns: string) => `SELECT ${columns} FROM deliveries d
         ${trp ? `LEFT JOIN trp_transfers p ON d.channel = 'trp' AND p.transaction_ref = d.transaction_ref` : ''}
         WHERE d.status = 'PENDING' AND d.next_attempt_at <= statement_timestamp()
           AND d.channel = ANY ($3::text[])
           AND (d.organization_id IS NULL OR d.organization_id <> ALL ($4::uuid[]))
           AND (${host} IS NULL OR ${host} <> ALL ($5::text[]))
           AND NOT EXISTS (
             SELECT 1 FROM deliveries f
              WHERE ${sameStream('d', 'f')} AND f.seq < d.seq AND f.status IN ('PENDING', 'FAILED', 'HELD'))
         ORDER BY d.next_attempt_at
         LIMIT $2
         FOR UPDATE OF d SKIP LOCKED`;
  const caps = opts.caps;
  const chosen = caps
    ? `SELECT c.id FROM (
         SELECT l.id, l.organization_id, l.peer_host,
                row_number() OVER (PARTITION BY l.organization_id, l.peer_host ORDER BY l.next_attempt_at) AS n
           FROM (${due(`d.id, d.organization_id, ${host} AS peer_host, d.next_attempt_at`)}) l) c
         LEFT JOIN unnest($6::uuid[], $7::int[]) AS cap(organization_id, n) ON cap.organization_id = c.organization_id
         LEFT JOIN unnest($9::text[], $10::int[]) AS hcap(host, n) ON hcap.host = c.peer_host
        WHERE (c.organization_id IS NULL AND c.peer_host IS NULL) OR c.n <= coalesce(cap.n, hcap.n, $8::int)`
    : due('d.id');
  const excluded = byKind(opts.excludeRecipients ?? []);
  const params: unknown[] = [opts.leaseMs, opts.limit, opts.channels, excluded.orgs, excluded.hosts];
  if (caps) {
    const orgs = [...caps.recipients].filter(([id]) => !isTrpRecipient(id));
    const hosts = [...caps.recipients].filter(([id]) => isTrpRecipient(id));
    params.push(
      orgs.map(([id]) => id),
      orgs.map(([, n]) => n),
      caps.others,
      hosts.map(([id]) => hostOf(id)),
      hosts.map(([, n]) => n),
    );
  }
  return lease(q, chosen, params, trp);
}

/**
 * Claims the due messages of these recipients only, at most as many of each as the map says, in
 * due order per recipient (the same rows claimDue would take of them). Each organization's
 * webhooks are read through its own due index (migration 0012), so rows of other recipients,
 * however many are due, cost nothing. The recipient is bounded with two row comparisons on
 * (organization_id, next_attempt_at), which mean `organization_id = r AND next_attempt_at <= now`
 * and which only that index can serve: with the equality written out, the planner may reckon the
 * due index cheaper (it expects the recipient's rows to be spread evenly through it) and read
 * past every due row of the recipients before it. A TRP peer's messages are found through its
 * transfers (migration 0018).
 */
export async function claimDueFor(
  q: Queryable,
  opts: { recipients: ReadonlyMap<string, number>; leaseMs: number },
): Promise<LeasedMessage[]> {
  const orgs = [...opts.recipients].filter(([id]) => !isTrpRecipient(id));
  const hosts = [...opts.recipients].filter(([id]) => isTrpRecipient(id));
  const out: LeasedMessage[] = [];
  if (orgs.length > 0) {
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
    out.push(
      ...(await lease(q, chosen, [opts.leaseMs, orgs.map(([id]) => id), orgs.map(([, n]) => n)], false)),
    );
  }
  if (hosts.length > 0) {
    const chosen = `SELECT l.id FROM unnest($2::text[], $3::int[]) AS r(host, n)
     CROSS JOIN LATERAL (
       SELECT d.id FROM trp_transfers p JOIN deliveries d ON d.transaction_ref = p.transaction_ref
        WHERE p.peer_host = r.host AND d.channel = 'trp' AND d.status = 'PENDING'
          AND d.next_attempt_at <= statement_timestamp()
          AND NOT EXISTS (
            SELECT 1 FROM deliveries f
             WHERE ${sameStream('d', 'f')} AND f.seq < d.seq AND f.status IN ('PENDING', 'FAILED', 'HELD'))
        ORDER BY d.next_attempt_at
        LIMIT r.n
        FOR UPDATE OF d SKIP LOCKED) l`;
    const leased = await lease(
      q,
      chosen,
      [opts.leaseMs, hosts.map(([id]) => hostOf(id)), hosts.map(([, n]) => n)],
      true,
    );
    out.push(...leased);
  }
  return out;
}

const TRP_RECIPIENT = 'trp:';

/** How the worker's fairness names a TRP peer: by its host (organizations go by their id). */
export function trpRecipient(host: string): string {
  return `${TRP_RECIPIENT}${host}`;
}

function isTrpRecipient(id: string): boolean {
  return id.startsWith(TRP_RECIPIENT);
}

function hostOf(id: string): string {
  return id.slice(TRP_RECIPIENT.length);
}

function byKind(ids: readonly string[]): { orgs: string[]; hosts: string[] } {
  return {
    orgs: ids.filter((id) => !isTrpRecipient(id)),
    hosts: ids.filter(isTrpRecipient).map(hostOf),
  };
}

/**
 * Leases the rows that `chosen` selects, for `params[0]` milliseconds, and returns them as a worker
 * holds them; with `trp`, a TRP message's peer host too.
 */
async function lease(
  q: Queryable,
  chosen: string,
  params: unknown[],
  trp: boolean,
): Promise<LeasedMessage[]> {
  const host = trp
    ? `(SELECT p.peer_host FROM trp_transfers p
         WHERE deliveries.channel = 'trp' AND p.transaction_ref = deliveries.transaction_ref)`
    : 'NULL::text';
  const rows = await q.query(
    `UPDATE deliveries SET next_attempt_at =
         date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => $1::double precision / 1000)
      WHERE id = ANY (ARRAY(${chosen}))
     RETURNING id, message_id, channel, event, organization_id, email_to, transaction_ref, payload, attempts,
               next_attempt_at::text AS lease, ${host} AS trp_host`,
    params,
  );
  return rows.map((r) => ({
    id: r.id as string,
    messageId: r.message_id as string,
    message: messageOf(r),
    attempts: r.attempts as number,
    lease: r.lease as string,
    ...(r.channel === 'trp' ? { trpHost: (r.trp_host as string | null) ?? null } : {}),
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

/** The rows' ids and lease tokens, as the `uuid[]` and `timestamptz[]` parameters of a statement. */
export function leaseParams(ds: LeasedMessage[]): [string[], string[]] {
  return [ds.map((d) => d.id), ds.map((d) => d.lease)];
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
