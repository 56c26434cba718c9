/**
 * The TRP bridge's SQL (SPEC §16): members' travel addresses, and one transfer row per TRP
 * transaction (the peer, the request-identifier, both callbacks, the inquiry's stored answer).
 */
import { exactTime, type Queryable, toIso } from '../db/database.js';

export interface TravelAddress {
  id: string;
  organizationId: string;
  token: string;
  travelAddress: string;
  url: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

function toAddress(r: Record<string, unknown>): TravelAddress {
  return {
    id: r.id as string,
    organizationId: r.organization_id as string,
    token: r.token as string,
    travelAddress: r.travel_address as string,
    url: r.url as string,
    createdAt: toIso(r.created_at),
    expiresAt: r.expires_at == null ? null : toIso(r.expires_at),
    revokedAt: r.revoked_at == null ? null : toIso(r.revoked_at),
  };
}

export async function insertTravelAddress(
  q: Queryable,
  a: Pick<TravelAddress, 'id' | 'organizationId' | 'token' | 'travelAddress' | 'url' | 'expiresAt'>,
): Promise<TravelAddress> {
  const rows = await q.query(
    `INSERT INTO travel_addresses (id, organization_id, token, travel_address, url, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [a.id, a.organizationId, a.token, a.travelAddress, a.url, a.expiresAt],
  );
  return toAddress(rows[0]!);
}

/** An organization's travel addresses, newest first, after the keyset cursor if given. */
export async function listTravelAddresses(
  q: Queryable,
  organizationId: string,
  page: { limit: number; after?: { at: string; id: string } },
): Promise<(TravelAddress & { cursorAt: string })[]> {
  const rows = await q.query(
    `SELECT *, ${exactTime('created_at')} FROM travel_addresses
      WHERE organization_id = $1
        AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
      ORDER BY created_at DESC, id DESC
      LIMIT $4`,
    [organizationId, page.after?.at ?? null, page.after?.id ?? null, page.limit],
  );
  return rows.map((r) => ({ ...toAddress(r), cursorAt: r.cursor_at as string }));
}

/** Revokes one of the organization's addresses (again: no change); undefined when it has none such. */
export async function revokeTravelAddress(
  q: Queryable,
  organizationId: string,
  id: string,
): Promise<TravelAddress | undefined> {
  const rows = await q.query(
    `UPDATE travel_addresses SET revoked_at = coalesce(revoked_at, now())
      WHERE id = $1 AND organization_id = $2 RETURNING *`,
    [id, organizationId],
  );
  return rows[0] && toAddress(rows[0]);
}

/** The address an inquiry's path names, while it is neither revoked nor expired. */
export async function findUsableTravelAddress(
  q: Queryable,
  token: string,
): Promise<TravelAddress | undefined> {
  const rows = await q.query(
    `SELECT * FROM travel_addresses
      WHERE token = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [token],
  );
  return rows[0] && toAddress(rows[0]);
}

export interface Transfer {
  ref: string;
  inbound: boolean;
  requestIdentifier: string;
  inquiryUrl: string;
  travelAddress: string | null;
  peerCallback: string | null;
  peerFingerprint: string | null;
  peerSubject: string | null;
  peerName: string | null;
  peerLei: string | null;
  peerHost: string;
  inquiryStatus: number | null;
  inquiryAnswer: unknown;
  /** The TRP version the transfer speaks (null: the hub's own). */
  apiVersion: string | null;
}

function toTransfer(r: Record<string, unknown>): Transfer {
  return {
    ref: r.transaction_ref as string,
    inbound: r.inbound as boolean,
    requestIdentifier: r.request_identifier as string,
    inquiryUrl: r.inquiry_url as string,
    travelAddress: (r.travel_address as string | null) ?? null,
    peerCallback: (r.peer_callback as string | null) ?? null,
    peerFingerprint: (r.peer_fingerprint as string | null) ?? null,
    peerSubject: (r.peer_subject as string | null) ?? null,
    peerName: (r.peer_name as string | null) ?? null,
    peerLei: (r.peer_lei as string | null) ?? null,
    peerHost: r.peer_host as string,
    inquiryStatus: (r.inquiry_status as number | null) ?? null,
    inquiryAnswer: r.inquiry_answer ?? null,
    apiVersion: (r.api_version as string | null) ?? null,
  };
}

export async function insertTransfer(
  q: Queryable,
  t: Omit<Transfer, 'peerName' | 'peerLei'> & { callbackHash: string },
): Promise<void> {
  await q.query(
    `INSERT INTO trp_transfers (transaction_ref, inbound, request_identifier, inquiry_url, travel_address,
       callback_hash, peer_callback, peer_fingerprint, peer_subject, peer_host, inquiry_status, inquiry_answer,
       api_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      t.ref,
      t.inbound,
      t.requestIdentifier,
      t.inquiryUrl,
      t.travelAddress,
      t.callbackHash,
      t.peerCallback,
      t.peerFingerprint,
      t.peerSubject,
      t.peerHost,
      t.inquiryStatus,
      t.inquiryAnswer === null ? null : JSON.stringify(t.inquiryAnswer),
      t.apiVersion,
    ],
  );
}

export async function findTransfer(q: Queryable, ref: string): Promise<Transfer | undefined> {
  const rows = await q.query('SELECT * FROM trp_transfers WHERE transaction_ref = $1', [ref]);
  return rows[0] && toTransfer(rows[0]);
}

/** The transfer whose callback URL carries the token with this hash. */
export async function findTransferByCallback(
  q: Queryable,
  callbackHash: string,
): Promise<Transfer | undefined> {
  const rows = await q.query('SELECT * FROM trp_transfers WHERE callback_hash = $1', [callbackHash]);
  return rows[0] && toTransfer(rows[0]);
}

/** An inbound transfer a peer already sent under this request-identifier. */
export async function findInboundTransfer(
  q: Queryable,
  peerFingerprint: string,
  requestIdentifier: string,
): Promise<Transfer | undefined> {
  const rows = await q.query(
    `SELECT * FROM trp_transfers WHERE inbound AND peer_fingerprint = $1 AND request_identifier = $2`,
    [peerFingerprint, requestIdentifier],
  );
  return rows[0] && toTransfer(rows[0]);
}

/** The approval's callback (where our confirmation goes) of an outbound transfer. */
export async function setPeerCallback(q: Queryable, ref: string, callback: string): Promise<void> {
  await q.query('UPDATE trp_transfers SET peer_callback = $2 WHERE transaction_ref = $1', [ref, callback]);
}

/** What the peer's /identity said of it. */
export async function setPeerIdentity(
  q: Queryable,
  ref: string,
  identity: { name: string | null; lei: string | null },
): Promise<void> {
  await q.query('UPDATE trp_transfers SET peer_name = $2, peer_lei = $3 WHERE transaction_ref = $1', [
    ref,
    identity.name,
    identity.lei,
  ]);
}

/** A request a peer made to one of a transfer's callbacks, as first answered. */
export interface CallbackRequest {
  bodyHash: string;
  status: number;
}

/**
 * Records a callback request under its request-identifier; returns undefined when the transfer
 * already has one under that identifier (read it with findCallbackRequest).
 */
export async function insertCallbackRequest(
  q: Queryable,
  ref: string,
  requestIdentifier: string,
  r: CallbackRequest,
): Promise<CallbackRequest | undefined> {
  const rows = await q.query(
    `INSERT INTO trp_callback_requests (transaction_ref, request_identifier, body_hash, status)
     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING body_hash`,
    [ref, requestIdentifier, r.bodyHash, r.status],
  );
  return rows.length > 0 ? r : undefined;
}

export async function findCallbackRequest(
  q: Queryable,
  ref: string,
  requestIdentifier: string,
): Promise<CallbackRequest | undefined> {
  const rows = await q.query(
    'SELECT body_hash, status FROM trp_callback_requests WHERE transaction_ref = $1 AND request_identifier = $2',
    [ref, requestIdentifier],
  );
  const r = rows[0];
  return r && { bodyHash: r.body_hash as string, status: r.status as number };
}
