/**
 * The TRP bridge's logic (SPEC §16), between the wire (listener.ts in, sender.ts out) and the
 * transactions domain (states, history, webhooks: TrpMoves). Outbound: checks an initiation's
 * travel address and records the transfer. Inbound: turns a peer's inquiry into a transaction for
 * the member that owns the travel address, and a peer's resolution or confirmation into the
 * transaction's next state. After delivery: what a peer answered to our messages.
 *
 * A peer is known by its client certificate (its SHA-256 fingerprint and subject); the personal
 * data of an inquiry is sealed at once like a member's, and never logged or echoed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/store.js';
import { type SealingKeys, sealPii } from '../crypto/envelope.js';
import { type Database, isUniqueViolation, type Queryable } from '../db/database.js';
import { trp, webhook } from '../deliveries/events.js';
import type { Delivered } from '../deliveries/hooks.js';
import { enqueue, type Outbox } from '../deliveries/outbox.js';
import { targetProblem } from '../deliveries/ssrf.js';
import { findOrganization } from '../directory/store.js';
import { AppError, validationFailed } from '../http/errors.js';
import { readIvms101 } from '../ivms101/message.js';
import { type AssetTable, assetOfTrp } from '../transactions/assets.js';
import { insertInitiations } from '../transactions/initiation-store.js';
import type { NameIndex } from '../transactions/name-index.js';
import type { InitiateRequest } from '../transactions/schemas.js';
import type { TrpTarget } from '../transactions/service.js';
import type { PeerResolution, TrpMoves } from '../transactions/trp-moves.js';
import { parseTrpAmount, TrpAmountError, toSmallestUnits } from './amount.js';
import { TrpCallbacks } from './callbacks.js';
import {
  parseConfirmation,
  parseInquiry,
  parseResolution,
  TRP_VERSION,
  type TrpIdentity,
  type TrpProblem,
} from './messages.js';
import * as peers from './peer-store.js';
import type { PeerAnswer } from './sender.js';
import * as store from './store.js';
import { decodeInquiryAddress, TravelAddressError } from './travel-address.js';

/** Who is calling, as its TLS client certificate shows it (`none` without one: mTLS off). */
export interface Peer {
  fingerprint: string;
  subject: string | null;
  /** The certificate's DNS names and IP addresses; null without a certificate (mTLS off). */
  names: string[] | null;
}

/** An answer of the TRP listener: a status and, unless 204, a JSON body. */
export interface TrpAnswer {
  status: number;
  body?: unknown;
}

const refusal = (status: number, error: string, problems?: TrpProblem[]): TrpAnswer => ({
  status,
  body: problems ? { error, problems } : { error },
});

export interface TrpBridgeOptions {
  db: Database;
  masterKey: SealingKeys;
  /** The customer-name blind index (src/transactions/name-index.ts), written with inbound transfers. */
  names?: NameIndex;
  allowPrivate: boolean;
  assets: AssetTable;
  callbacks: TrpCallbacks;
  outbox: Outbox;
  moves: TrpMoves;
}

export class TrpBridge {
  constructor(private readonly o: TrpBridgeOptions) {}

  // ---- Outbound (TrpOutbound, for the transactions domain) --------------------------------------

  target(body: InitiateRequest): TrpTarget {
    const address = body.travelAddress!; // required for TRP (validation.ts)
    let url: URL;
    try {
      url = new URL(decodeInquiryAddress(address).url);
    } catch (err) {
      const why = err instanceof TravelAddressError ? err.message : 'it does not hold a URL';
      throw validationFailed([{ path: '/travelAddress', message: `is not a travel address: ${why}` }]);
    }
    const problem = targetProblem(url, this.o.allowPrivate);
    if (problem) {
      throw new AppError(
        'UNKNOWN_COUNTERPARTY',
        `The travel address's URL ${problem}; the hub will not send there.`,
      );
    }
    const info = this.o.assets.get(body.transactionAsset.toUpperCase());
    const problems = [];
    if (info?.dti === undefined && info?.slip0044 === undefined) {
      problems.push({
        path: '/transactionAsset',
        message: 'has no TRP identifier (dti or slip0044) in the asset table, so it cannot travel by TRP',
      });
    } else {
      try {
        toSmallestUnits(body.transactionAmount, info.decimals);
      } catch (err) {
        if (!(err instanceof TrpAmountError)) throw err;
        problems.push({ path: '/transactionAmount', message: err.message });
      }
    }
    if (problems.length > 0) throw validationFailed(problems);
    return { travelAddress: address, url: url.href, did: didOf(url) };
  }

  /** Keeps an outbound transfer's TRP side; refuses a peer the operator blocked (its rows roll back). */
  async record(tx: Queryable, ref: string, target: TrpTarget): Promise<void> {
    const host = new URL(target.url).host;
    if ((await peers.findPeer(tx, host))?.blocked) {
      throw new AppError(
        'UNKNOWN_COUNTERPARTY',
        'The operator blocked the TRP peer this travel address names; the hub sends it nothing.',
      );
    }
    await store.insertTransfer(tx, {
      ref,
      inbound: false,
      requestIdentifier: randomUUID(),
      inquiryUrl: target.url,
      travelAddress: target.travelAddress,
      callbackHash: this.o.callbacks.hash(ref),
      peerCallback: null,
      peerFingerprint: null,
      peerSubject: null,
      peerHost: host,
      inquiryStatus: null,
      inquiryAnswer: null,
      apiVersion: null,
    });
    // Who the beneficiary VASP says it is, after the inquiry (messages of a transfer go in order).
    await enqueue(tx, [trp('trp-identity', ref, { transactionRef: ref })]);
  }

  // ---- Inbound (the listener) --------------------------------------------------------------------

  /**
   * A peer's inquiry to a travel address: a new TRP transaction for the address's member, the
   * `received` webhook (with the personal data, encrypted at send time) and a look at the peer's
   * /identity. A repeated request-identifier from the same peer gets the first answer again.
   */
  async inquiry(
    token: string,
    requestIdentifier: string,
    peer: Peer,
    body: unknown,
    apiVersion: string = TRP_VERSION,
  ): Promise<TrpAnswer> {
    const address = await store.findUsableTravelAddress(this.o.db, token);
    if (!address) return refusal(404, 'No such travel address (or it was revoked, or it expired).');
    const replay = await this.replay(peer, requestIdentifier);
    if (replay) return replay;

    const parsed = parseInquiry(body, { allowHttp: this.o.allowPrivate });
    if (!parsed.ok) return refusal(422, 'The inquiry is invalid.', parsed.problems);
    const inquiry = parsed.value;
    const problems: TrpProblem[] = [];
    const asset = assetOfInquiry(this.o.assets, inquiry.asset);
    const decimals = asset === undefined ? undefined : this.o.assets.get(asset)!.decimals;
    if (asset === undefined) problems.push({ path: '/asset', message: 'is not an asset this hub knows' });
    const known = await peers.findPeer(this.o.db, new URL(inquiry.callback).host);
    // A JSON number is in whole units, unless the operator set this peer's amounts to the smallest
    // unit: then a JSON integer is read as a digit string would be (docs/trp.md).
    const raw =
      known?.amountEncoding === 'smallest-unit-string' && Number.isSafeInteger(inquiry.amount)
        ? String(inquiry.amount)
        : inquiry.amount;
    const amount = decimals === undefined ? undefined : parseTrpAmount(raw, decimals);
    if (amount && !amount.ok) problems.push({ path: '/amount', message: amount.message });
    // Whatever dialect the peer writes (SPEC §18): kept in canonical form like a member's data.
    const ivms101 = readIvms101(inquiry.IVMS101, '/IVMS101');
    problems.push(...ivms101.problems);
    const pii = ivms101.message;
    const callback = new URL(inquiry.callback);
    const callbackProblem = targetProblem(callback, this.o.allowPrivate);
    if (callbackProblem) problems.push({ path: '/callback', message: callbackProblem });
    if (problems.length > 0 || asset === undefined || decimals === undefined || !amount?.ok) {
      return refusal(422, 'The inquiry is invalid.', problems);
    }

    const named = this.namedByCertificate(callback, peer, known);
    if (named) return named;

    const answer = { version: apiVersion };
    const ref = randomUUID();
    const received = (org: { id: string; vaspDid: string }) =>
      webhook('received', org.id, ref, {
        transactionRef: ref,
        protocol: 'TRP',
        status: 'RECEIVER_NOTIFIED',
        originatorVASPdid: didOf(callback),
        beneficiaryVASPdid: org.vaspDid,
        transactionAsset: asset,
        transactionAmount: amount.value,
        transactionAssetDecimals: decimals,
        trpPeer: {
          host: callback.host,
          certificateSubject: peer.subject,
          certificateFingerprint: peer.fingerprint === 'none' ? null : peer.fingerprint,
        },
        ivms101_data: { transactionBlockchainInfo: {} },
      });
    try {
      await this.o.db.transaction(async (tx) => {
        const org = await findOrganization(tx, address.organizationId);
        if (!org) throw new Error('a travel address outlived its organization');
        const message = received(org);
        await insertInitiations(
          tx,
          [
            {
              record: {
                ref,
                protocol: 'TRP',
                inbound: true,
                originatorId: null,
                originatorDid: didOf(callback),
                beneficiaryId: org.id,
                beneficiaryVaspId: org.id,
                beneficiaryDid: org.vaspDid,
                asset,
                assetDecimals: decimals,
                amount: amount.value,
                origin: null,
                destination: null,
                txHash: null,
                notificationEmail: null,
              },
              sealedPii: sealPii(this.o.masterKey, ref, JSON.stringify(pii)),
              ...(this.o.names ? { nameEntries: this.o.names.entriesOf(pii) } : {}),
              message,
            },
          ],
          this.o.outbox.plan([message], { lease: false }),
        );
        await store.insertTransfer(tx, {
          ref,
          inbound: true,
          requestIdentifier,
          inquiryUrl: address.url,
          travelAddress: address.travelAddress,
          callbackHash: this.o.callbacks.hash(ref),
          peerCallback: callback.href,
          peerFingerprint: peer.fingerprint,
          peerSubject: peer.subject,
          peerHost: callback.host,
          inquiryStatus: 200,
          inquiryAnswer: answer,
          apiVersion,
        });
        await peers.notePeer(tx, callback.host, {
          certificateSubject: peer.subject,
          certificateFingerprint: peer.fingerprint === 'none' ? null : peer.fingerprint,
        });
        await enqueue(tx, [trp('trp-identity', ref, { transactionRef: ref })]);
        await recordAudit(tx, {
          actor: `trp:${callback.host}`,
          action: 'trp.inquiry_received',
          subjectType: 'transaction',
          subjectId: ref,
          details: {
            travelAddressId: address.id,
            certificateSubject: peer.subject,
            certificateFingerprint: peer.fingerprint,
          },
        });
      });
    } catch (err) {
      // The same request-identifier from the same peer, at the same moment: one wins, the other replays.
      if (isUniqueViolation(err)) {
        const again = await this.replay(peer, requestIdentifier);
        if (again) return again;
      }
      throw err;
    }
    return { status: 200, body: answer };
  }

  /** A peer's decision on our inquiry, posted to our callback (outbound transfer). */
  async resolution(token: string, requestIdentifier: string, body: unknown): Promise<TrpAnswer> {
    const transfer = await this.transferOf(token, false);
    if (!transfer) return refusal(404, 'No such callback.');
    const parsed = parseResolution(body, { allowHttp: this.o.allowPrivate });
    if (!parsed.ok) return refusal(400, 'The resolution is invalid.', parsed.problems);
    const problem = this.o.callbacks.approvalProblem(parsed.value);
    if (problem) return refusal(400, 'The resolution is invalid.', [problem]);
    return this.once(transfer.ref, requestIdentifier, body, (tx) =>
      this.applyResolution(tx, transfer.ref, parsed.value),
    );
  }

  /** A peer's confirmation of a transfer we approved: the hash, or that it called the transfer off. */
  async confirmation(
    token: string,
    requestIdentifier: string,
    peer: Peer,
    body: unknown,
  ): Promise<TrpAnswer> {
    const transfer = await this.transferOf(token, true);
    // Only the peer that sent the inquiry may confirm it.
    if (!transfer || transfer.peerFingerprint !== peer.fingerprint) return refusal(404, 'No such callback.');
    const parsed = parseConfirmation(body);
    if (!parsed.ok) return refusal(400, 'The confirmation is invalid.', parsed.problems);
    const c = parsed.value;
    return this.once(transfer.ref, requestIdentifier, body, (tx) =>
      this.o.moves.confirmed(tx, transfer.ref, c.kind === 'txid' ? { txid: c.txid } : { canceled: c.reason }),
    );
  }

  /**
   * A callback request, taken once per request-identifier. The callback's token and the peer's
   * certificate authenticate it, so the identifier is the peer's to choose (TRISA's client makes
   * one per request); the same one again gets the first answer if the body is the same, else 409.
   */
  private async once(
    ref: string,
    requestIdentifier: string,
    body: unknown,
    apply: (tx: Queryable) => Promise<void>,
  ): Promise<TrpAnswer> {
    const bodyHash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
    const replayed = (earlier: store.CallbackRequest): TrpAnswer =>
      earlier.bodyHash === bodyHash
        ? { status: earlier.status }
        : refusal(409, 'This request-identifier was already used for another request to this callback.');
    const earlier = await store.findCallbackRequest(this.o.db, ref, requestIdentifier);
    if (earlier) return replayed(earlier);
    const answer: TrpAnswer = { status: 204 };
    const taken = await this.o.db.transaction(async (tx) => {
      await this.o.moves.lock(tx, ref);
      const recorded = await store.insertCallbackRequest(tx, ref, requestIdentifier, {
        bodyHash,
        status: answer.status,
      });
      if (recorded) await apply(tx);
      return recorded !== undefined;
    });
    if (taken) return answer;
    // The same identifier at the same moment: the other request won.
    const winner = await store.findCallbackRequest(this.o.db, ref, requestIdentifier);
    return winner
      ? replayed(winner)
      : refusal(409, 'This request-identifier is being used by another request.');
  }

  // ---- After delivery (inside the worker's recording transaction) ------------------------------

  /** What peers answered to our messages: an inquiry's resolution, an /identity. */
  async deliveryOutcomes(tx: Queryable, delivered: readonly Delivered[]): Promise<void> {
    for (const { message: m, answer, withdrawn } of delivered) {
      // A message withdrawn in flight belongs to a transfer that ended meanwhile: its answer is moot.
      if (m.channel !== 'trp' || withdrawn) continue;
      if (m.event === 'trp-inquiry' && answer) {
        await this.applyResolution(tx, m.transactionRef, answer as PeerAnswer, true);
      } else if (m.event === 'trp-identity' && answer) {
        const given = answer as TrpIdentity;
        const identity = { name: given.name?.trim() || null, lei: given.lei?.trim() || null };
        await store.setPeerIdentity(tx, m.transactionRef, identity);
        const transfer = await store.findTransfer(tx, m.transactionRef);
        if (transfer) await peers.notePeer(tx, transfer.peerHost, identity);
        await recordAudit(tx, {
          actor: 'hub',
          action: 'trp.peer_identified',
          subjectType: 'transaction',
          subjectId: m.transactionRef,
          details: identity,
        });
      }
    }
  }

  private async applyResolution(
    tx: Queryable,
    ref: string,
    r: PeerAnswer,
    inquiryAnswer = false,
  ): Promise<void> {
    if (r.kind === 'approved') await store.setPeerCallback(tx, ref, r.callback);
    const resolution: PeerResolution =
      r.kind === 'pending'
        ? { kind: 'pending' }
        : r.kind === 'approved'
          ? { kind: 'approved', address: r.address }
          : r.kind === 'refused'
            ? { kind: 'rejected', reason: null, refused: r.status }
            : { kind: 'rejected', reason: r.reason };
    if (inquiryAnswer) await this.o.moves.inquiryAnswered(tx, ref, resolution);
    else if (resolution.kind !== 'pending') await this.o.moves.resolved(tx, ref, resolution);
  }

  /**
   * An inbound peer is who its certificate says: its callback's host must be one of the
   * certificate's names, or a host the operator pinned to this certificate; and a blocked peer is
   * refused. Undefined when the inquiry may go on; else the 422 or 403 to answer.
   */
  private namedByCertificate(
    callback: URL,
    peer: Peer,
    known: peers.Counterparty | undefined,
  ): TrpAnswer | undefined {
    if (known?.blocked) return refusal(403, 'This hub does not take transfers from this peer.');
    if (peer.names === null) return undefined; // mTLS off (tests and demos): no certificate to hold it to
    const host = callback.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (known?.pinned) {
      if (known.certificateFingerprint === peer.fingerprint) return undefined;
      return refusal(422, 'The callback host is pinned to another certificate.', [
        { path: '/callback', message: 'is on a host pinned to another certificate' },
      ]);
    }
    if (peer.names.includes(host)) return undefined;
    return refusal(422, 'The callback host is not one of the client certificate’s names.', [
      { path: '/callback', message: 'must be on a host named by the client certificate' },
    ]);
  }

  private async replay(peer: Peer, requestIdentifier: string): Promise<TrpAnswer | undefined> {
    const earlier = await store.findInboundTransfer(this.o.db, peer.fingerprint, requestIdentifier);
    if (!earlier) return undefined;
    return { status: earlier.inquiryStatus ?? 200, body: earlier.inquiryAnswer ?? { version: TRP_VERSION } };
  }

  private async transferOf(token: string, inbound: boolean) {
    const transfer = await store.findTransferByCallback(this.o.db, TrpCallbacks.hashOf(token));
    return transfer?.inbound === inbound ? transfer : undefined;
  }
}

/** `did:web:` of a URL's host (a port is written `%3A`, as did:web has it). */
function didOf(url: URL): string {
  return `did:web:${url.host.replace(':', '%3A')}`;
}

/** Our asset for an inquiry's: by DTI, by SLIP-0044 coin type, or by the coin symbol TRISA sends there. */
function assetOfInquiry(assets: AssetTable, asset: { dti?: string; slip0044?: number | string }) {
  if (typeof asset.slip0044 === 'string') {
    const symbol = asset.slip0044.toUpperCase();
    for (const [key, info] of assets) {
      if (info.slip0044 !== undefined && key.split('-')[1] === symbol && key.split('-')[0] === symbol)
        return key;
    }
    for (const [key, info] of assets)
      if (info.slip0044 !== undefined && key.split('-')[1] === symbol) return key;
    return undefined;
  }
  return assetOfTrp(assets, { dti: asset.dti, slip0044: asset.slip0044 });
}
