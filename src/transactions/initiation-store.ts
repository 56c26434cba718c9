/**
 * The SQL that writes new transactions: the group commit's one statement for a batch of
 * initiations, and the count behind the NOTIFY limit of unverified organizations.
 */

import { CLAIM_INPUT_COLUMNS, insertClaimsFrom } from '../claims/store.js';
import type { Queryable } from '../db/database.js';
import { toIso } from '../db/database.js';
import type { OutboxMessage } from '../deliveries/events.js';
import {
  insertOutboxFrom,
  OUTBOX_CHANNEL,
  OUTBOX_INPUT_COLUMNS,
  type OutboxPlan,
  type OutboxRow,
} from '../deliveries/outbox.js';
import { KEY_INPUT_COLUMNS, type KeyRecord, keyInput, recordKeysThen } from '../idempotency/store.js';
import { type HeldTo, insertRulesFrom, RULES_INPUT_COLUMNS } from '../rules/store.js';
import { insertWalletProofLinksFrom, WALLET_PROOF_INPUT_COLUMNS } from '../wallets/store.js';
import { nameTokensFrom } from './name-store.js';
import type { TransactionRecord } from './store.js';

/** A new transaction with its first history row and its first outbox message. */
export interface Initiation {
  record: Omit<
    TransactionRecord,
    'createdAt' | 'updatedAt' | 'sealedReason' | 'status' | 'claimedAt' | 'inbound' | 'flow' | 'piiErasedAt'
  > & { inbound?: boolean };
  sealedPii: Buffer;
  message: OutboxMessage;
  /** With an Idempotency-Key: its record, written with the transaction unless the key is taken. */
  idempotency?: KeyRecord;
  /** NOTIFY: the hash of its claim link's token (claims/tokens.ts). */
  claimHash?: Buffer;
  /** The jurisdictions' rules it was held to (SPEC §15), kept with it. */
  rules?: HeldTo;
  /** The wallet ownership proof it carries (SPEC §15). */
  walletProofId?: string;
  /** Its customer-name index entries (name-index.ts), hex; absent: indexed later in the background. */
  nameEntries?: string[];
}

/**
 * Writes initiations (one or many: group commit) in ONE statement: the transactions, their NEW
 * history rows, their outbox rows as `outbox` planned them, their Idempotency-Key records, and
 * the rules and wallet proof each was checked against. A
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
): Promise<{ leaseUntil: string; skipped: ReadonlySet<Initiation> }> {
  let at = 0;
  const rows = items.map((item, i) => {
    const row = inputRow(item, at, outbox.rows[i]!);
    at += item.sealedPii.length;
    return row;
  });
  const sealed = Buffer.concat(items.map((i) => i.sealedPii));
  const [result] = await q.query<{ lease_until: string; skipped: string[] | null }>(INSERT_INITIATIONS, [
    JSON.stringify(rows),
    sealed,
    outbox.notify,
    outbox.leaseMs,
  ]);
  const skippedRefs = new Set(result!.skipped ?? []);
  return {
    leaseUntil: result!.lease_until,
    skipped: new Set(items.filter((i) => skippedRefs.has(i.record.ref))),
  };
}

/**
 * One initiation's element of the statement's jsonb input: its own fields, its outbox row's
 * (OUTBOX_INPUT_COLUMNS), its key's (KEY_INPUT_COLUMNS; the return type makes sure none is
 * missing) and its claim link's. One object literal: spread together from the parts, the same
 * object is built a property at a time into a hash table, several times the memory and the time,
 * for every initiation of every batch.
 * The sealed personal data is not in it: all rows' blobs go as one binary parameter, which each
 * row cuts its own out of (`pii_at`, 0-based), so the database neither parses them as JSON strings
 * nor decodes base64.
 */
function inputRow(
  { record: t, sealedPii, idempotency, claimHash, rules, walletProofId, nameEntries }: Initiation,
  piiAt: number,
  o: OutboxRow,
): OutboxRow & ReturnType<typeof keyInput> & Record<string, unknown> {
  const key = keyInput(idempotency);
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
    inbound: t.inbound ?? false,
    pii_at: piiAt,
    pii_len: sealedPii.length,
    delivery_id: o.delivery_id,
    message_id: o.message_id,
    channel: o.channel,
    event: o.event,
    recipient_id: o.recipient_id,
    email_to: o.email_to,
    transaction_ref: o.transaction_ref,
    payload: o.payload,
    leased: o.leased,
    idem_org: key.idem_org,
    idem_key: key.idem_key,
    idem_hash: key.idem_hash,
    idem_response: key.idem_response,
    claim_hash: claimHash?.toString('hex') ?? null,
    rules_regime: rules?.regime ?? null,
    rules: rules?.rules ?? null,
    wallet_proof_id: walletProofId ?? null,
    // One string, split by the statement: a few tokens a row, no jsonb array to take apart.
    name_tokens: nameEntries === undefined ? null : nameEntries.join(' '),
  };
}

const INSERT_INITIATIONS = `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
         ref uuid, protocol text, originator_id uuid, originator_did text, beneficiary_id uuid,
         beneficiary_vasp_id text, beneficiary_did text, asset text, asset_decimals integer, amount text,
         origin_address text, destination_address text, tx_hash text, notification_email text, inbound boolean,
         pii_at integer, pii_len integer, ${OUTBOX_INPUT_COLUMNS}, ${KEY_INPUT_COLUMNS}, ${CLAIM_INPUT_COLUMNS},
         ${RULES_INPUT_COLUMNS}, ${WALLET_PROOF_INPUT_COLUMNS}, name_tokens text)
     ), ${recordKeysThen('input', 'ref', 'ok')}, lease AS (
       -- Milliseconds, as the worker's token (a Date) holds it; the same for every row.
       SELECT date_trunc('milliseconds', statement_timestamp() + make_interval(secs => $4::float8 / 1000))
         AS until
     ), t AS (
       INSERT INTO transactions (ref, protocol, status, originator_id, originator_did, beneficiary_id,
         beneficiary_vasp_id, beneficiary_did, asset, asset_decimals, amount, origin_address,
         destination_address, tx_hash, notification_email, inbound, sealed_pii, names_indexed, name_tokens)
       SELECT ref, protocol, 'NEW', originator_id, originator_did, beneficiary_id, beneficiary_vasp_id,
         beneficiary_did, asset, asset_decimals, amount, origin_address, destination_address, tx_hash,
         notification_email, inbound, substring($2::bytea FROM pii_at + 1 FOR pii_len), name_tokens IS NOT NULL,
         -- The customer-name blind index (name-index.ts): one array, under a GIN index (migration 0026).
         ${nameTokensFrom('name_tokens')}
       FROM ok
     ), h AS (
       INSERT INTO transaction_history (transaction_ref, status, actor_id, actor)
       SELECT ref, 'NEW', originator_id, originator_did FROM ok
     ), d AS (
       ${insertOutboxFrom('ok', '(SELECT until FROM lease)')}
     ), c AS (
       ${insertClaimsFrom('ok')}
     ), r AS (
       ${insertRulesFrom('ok')}
     ), w AS (
       ${insertWalletProofLinksFrom('ok')}
     )
     SELECT count(*)::int AS n, (SELECT until FROM lease)::text AS lease_until,
            (SELECT array_agg(ref::text) FROM input WHERE ref NOT IN (SELECT ref FROM ok)) AS skipped,
            CASE WHEN $3::boolean THEN pg_notify('${OUTBOX_CHANNEL}', '') END AS woke
       FROM input`;

/**
 * NOTIFY and outbound TRP transactions the organization started in the last 24 hours, counted under a lock that
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
      WHERE originator_id = $1 AND protocol IN ('NOTIFY', 'TRP') AND created_at > now() - interval '24 hours'`,
    [originatorId],
  );
  const r = rows[0]!;
  return { count: r.n, windowFreesAt: r.frees == null ? null : toIso(r.frees) };
}
