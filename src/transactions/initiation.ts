/**
 * Initiation (SPEC §6): resolve the parties, seal the personal data, write the transaction with
 * its NEW history row and its first message (`received`, or the NOTIFY e-mail). It is the hot
 * path, so its single write joins a group commit: concurrent initiations go to the database as
 * one statement, an Idempotency-Key's record included unless the key is taken. A taken key (a
 * retry, a concurrent twin, an expired record) and a refusal that must be remembered go the
 * classic way instead (Idempotency.run), which replays the record, answers 409 to another body,
 * or runs alone.
 */
import { randomUUID } from 'node:crypto';
import { type SealingKeys, sealPii } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import { GroupCommit } from '../db/group-commit.js';
import { email, type OutboxMessage, trp, webhook } from '../deliveries/events.js';
import type { Outbox } from '../deliveries/outbox.js';
import type { OrganizationDetail } from '../directory/schemas.js';
import { findOrganization, findOrganizationByDid } from '../directory/store.js';
import { AppError } from '../http/errors.js';
import { type Idempotency, type IdempotencyKey, isRememberedRefusal } from '../idempotency/index.js';
import type { HeldTo } from '../rules/store.js';
import type { WalletProofSummary } from '../wallets/schemas.js';
import * as store from './initiation-store.js';
import type { NameIndex } from './name-index.js';
import type { InitiateRequest, InitiateResponse } from './schemas.js';

/** What other domains attach to an initiation once they checked it (SPEC §15). */
export interface Attachments {
  walletProof?: WalletProofSummary;
  /** The rules the transfer was held to; kept with the transaction. */
  rules?: HeldTo;
}

/** What of the attachments is written with the transaction, in its statement. */
function kept(attached: Attachments): Pick<store.Initiation, 'rules' | 'walletProofId'> {
  return {
    ...(attached.rules ? { rules: attached.rules } : {}),
    ...(attached.walletProof ? { walletProofId: attached.walletProof.id } : {}),
  };
}

/** How initiation finds organizations: in the command's transaction, or through a cache. */
export interface OrgLookups {
  byId(id: string): Promise<OrganizationDetail | undefined>;
  byDid(did: string): Promise<OrganizationDetail | undefined>;
}

/** Where an outbound TRP transfer's inquiry goes (SPEC §16): the decoded, checked travel address. */
export interface TrpTarget {
  travelAddress: string;
  /** The inquiry URL the travel address encodes. */
  url: string;
  /** How the beneficiary VASP is named on the transaction: `did:web:` of the URL's host. */
  did: string;
}

/** The TRP bridge's part in an outbound TRP initiation (src/trp/bridge.ts). */
export interface TrpOutbound {
  /** The inquiry's target and whether the asset can travel by TRP; throws a 400 or 422 AppError. */
  target(body: InitiateRequest): TrpTarget;
  /** Writes the transfer's own row beside the new transaction, in its database transaction. */
  record(tx: Queryable, ref: string, target: TrpTarget): Promise<void>;
}

export const lookupsIn = (q: Queryable): OrgLookups => ({
  byId: (id) => findOrganization(q, id),
  byDid: (did) => findOrganizationByDid(q, did),
});

export class Initiations {
  private readonly batches: GroupCommit<store.Initiation>;
  /** Keyed initiations a group commit skipped, their key being taken. */
  private readonly keyTaken = new WeakSet<store.Initiation>();

  constructor(
    private readonly db: Database,
    private readonly masterKey: SealingKeys,
    private readonly lookups: OrgLookups,
    private readonly outbox: Outbox,
    private readonly idempotency: Idempotency,
    private readonly options: {
      /** NOTIFY e-mails an unverified organization may cause per 24 hours (SPEC §13). */
      notifyDailyLimit: number;
      /** The hash of a NOTIFY transaction's claim-link token (claims/tokens.ts). */
      claimHash: (ref: string) => Buffer;
      /** The TRP bridge; undefined when the hub has none (HUB_TRP_PORT unset). */
      trp: () => TrpOutbound | undefined;
      /** The customer-name index; without it new transactions are indexed in the background. */
      names?: NameIndex;
    },
  ) {
    // One batch at a time; on a database server the next batch goes out before this one's callers
    // are answered (see GroupCommit's nextFirst).
    this.batches = new GroupCommit((items) => this.write(items), {
      maxBatch: 200,
      nextFirst: db.kind === 'postgres',
    });
  }

  async initiate(
    originatorId: string,
    body: InitiateRequest,
    idem?: IdempotencyKey,
    attached: Attachments = {},
  ): Promise<InitiateResponse> {
    if (body.protocol === 'TRP') return this.trpOutbound(originatorId, body, idem, attached);
    if (
      body.protocol === 'NOTIFY' &&
      (await this.lookups.byId(originatorId))?.organizationType !== 'verified'
    ) {
      return this.limitedNotify(originatorId, body, idem, attached);
    }
    if (!idem) {
      const prepared = await this.prepare(this.lookups, originatorId, body, attached);
      await this.batches.submit(prepared.initiation);
      return prepared.response;
    }
    const alone = () =>
      this.idempotency.run(originatorId, idem, async (tx) => {
        const prepared = await this.prepare(lookupsIn(tx), originatorId, body, attached);
        const plan = this.outbox.plan([prepared.initiation.message], { lease: false });
        await store.insertInitiations(tx, [prepared.initiation], plan);
        return prepared.response;
      });
    let prepared: Awaited<ReturnType<typeof this.prepare>>;
    try {
      prepared = await this.prepare(this.lookups, originatorId, body, attached);
    } catch (err) {
      if (isRememberedRefusal(err)) return alone();
      throw err;
    }
    prepared.initiation.idempotency = {
      organizationId: originatorId,
      key: idem.key,
      hash: idem.hash,
      response: prepared.response,
    };
    await this.batches.submit(prepared.initiation);
    if (this.keyTaken.has(prepared.initiation)) return alone();
    this.idempotency.purgeExpired();
    return prepared.response;
  }

  /**
   * A NOTIFY initiation of an unverified organization: alone, counted against its daily limit, so
   * that no one can use the hub to send e-mail in its name to any address at will.
   */
  private limitedNotify(
    originatorId: string,
    body: InitiateRequest,
    idem: IdempotencyKey | undefined,
    attached: Attachments,
  ) {
    return this.idempotency.run(originatorId, idem, async (tx) => {
      await this.checkDailyLimit(tx, originatorId);
      const prepared = await this.prepare(lookupsIn(tx), originatorId, body, attached);
      const plan = this.outbox.plan([prepared.initiation.message], { lease: false });
      await store.insertInitiations(tx, [prepared.initiation], plan);
      return prepared.response;
    });
  }

  /**
   * An unverified organization's transfers to parties outside the directory (NOTIFY e-mails and
   * outbound TRP inquiries) count against one daily limit; over it, 429.
   */
  private async checkDailyLimit(tx: Queryable, originatorId: string): Promise<void> {
    const window = await store.lockNotifyWindow(tx, originatorId);
    if (window.count < this.options.notifyDailyLimit) return;
    const wait = window.windowFreesAt === null ? 60 : (Date.parse(window.windowFreesAt) - Date.now()) / 1000;
    throw new AppError(
      'RATE_LIMITED',
      `An unverified organization may send ${this.options.notifyDailyLimit} NOTIFY and TRP transactions in 24 hours; ` +
        'ask the operator to verify the organization, or retry later.',
      undefined,
      { headers: { 'retry-after': String(Math.max(1, Math.ceil(wait))) } },
    );
  }

  /**
   * An outbound TRP transfer (SPEC §16): alone (it is rare beside the hot path), with the transfer's
   * row, and the inquiry as its first message. The beneficiary VASP is outside the directory: it is
   * named by the travel address's host, and the payment address comes with its approval.
   */
  private trpOutbound(
    originatorId: string,
    body: InitiateRequest,
    idem: IdempotencyKey | undefined,
    attached: Attachments,
  ) {
    const bridge = this.options.trp();
    if (!bridge) {
      throw new AppError(
        'UNKNOWN_COUNTERPARTY',
        'This hub does not reach TRP VASPs: its operator has not enabled the TRP bridge (HUB_TRP_PORT).',
      );
    }
    const target = bridge.target(body);
    return this.idempotency.run(originatorId, idem, async (tx) => {
      const originator = await findOrganization(tx, originatorId);
      if (!originator) throw new AppError('UNAUTHENTICATED', 'The calling organization no longer exists.');
      if (originator.organizationType !== 'verified') await this.checkDailyLimit(tx, originatorId);
      const ref = randomUUID();
      const initiation: store.Initiation = {
        record: {
          ref,
          protocol: 'TRP',
          originatorId,
          originatorDid: originator.vaspDid,
          beneficiaryId: null,
          beneficiaryVaspId: null,
          beneficiaryDid: target.did,
          asset: body.transactionAsset,
          assetDecimals: body.transactionAssetDecimals,
          amount: body.transactionAmount,
          origin: body.transactionBlockchainInfo.origin ?? null,
          destination: null,
          txHash: body.transactionBlockchainInfo.txHash ?? null,
          notificationEmail: null,
        },
        sealedPii: sealPii(this.masterKey, ref, JSON.stringify(body.pii)),
        ...this.nameEntries(body.pii),
        message: trp('trp-inquiry', ref, { transactionRef: ref }),
        ...kept(attached),
      };
      await store.insertInitiations(
        tx,
        [initiation],
        this.outbox.plan([initiation.message], { lease: false }),
      );
      await bridge.record(tx, ref, target);
      return {
        transactionRef: ref,
        status: 'NEW' as const,
        protocol: 'TRP' as const,
        transactionAsset: body.transactionAsset,
        transactionAmount: body.transactionAmount,
        beneficiaryVASPid: null,
        beneficiaryVASPdid: target.did,
        destination: null,
      };
    });
  }

  /**
   * Writes a batch in one statement. Its webhooks that this process's worker has room for are
   * written leased to it and handed over once committed; the statement NOTIFYs the workers of the
   * others (one per batch, with no statement or commit of its own).
   */
  private async write(items: store.Initiation[]): Promise<void> {
    const plan = this.outbox.plan(items.map((i) => i.message));
    let written: Awaited<ReturnType<typeof store.insertInitiations>>;
    try {
      written = await store.insertInitiations(this.db, items, plan);
    } catch (err) {
      this.outbox.failed(plan);
      throw err;
    }
    for (const item of written.skipped) this.keyTaken.add(item);
    this.outbox.committed(plan, written.leaseUntil, (i) => !written.skipped.has(items[i]!));
  }

  /** The customer-name index entries written with the transaction (name-index.ts). */
  private nameEntries(pii: unknown): Pick<store.Initiation, 'nameEntries'> {
    return this.options.names ? { nameEntries: this.options.names.entriesOf(pii) } : {};
  }

  /** Resolves the parties, seals the personal data and builds the rows and the answer. */
  private async prepare(
    lookups: OrgLookups,
    originatorId: string,
    body: InitiateRequest,
    attached: Attachments = {},
  ) {
    const originator = await lookups.byId(originatorId);
    if (!originator) throw new AppError('UNAUTHENTICATED', 'The calling organization no longer exists.');
    const beneficiary = await resolveBeneficiary(lookups, originatorId, body);
    const ref = randomUUID();
    const info = body.transactionBlockchainInfo;
    // Required for every protocol that comes this way (validation.ts); TRP has its own path (src/trp/).
    const destination = info.destination!;
    const beneficiaryDid = beneficiary?.vaspDid ?? body.beneficiaryVASPdid ?? null;
    const beneficiaryVaspId = beneficiary?.id ?? body.beneficiaryVASPid ?? null;
    const message: OutboxMessage =
      body.protocol === 'NOTIFY'
        ? email('notify', body.notificationEmail!, ref, {
            transactionRef: ref,
            transactionAsset: body.transactionAsset,
            transactionAmount: body.transactionAmount,
            destination,
            originatorVASPdid: originator.vaspDid,
            originatorName: originator.name,
            beneficiaryVASPid: beneficiaryVaspId,
          })
        : webhook('received', beneficiary!.id, ref, {
            transactionRef: ref,
            protocol: body.protocol,
            status: 'RECEIVER_NOTIFIED',
            originatorVASPdid: originator.vaspDid,
            beneficiaryVASPdid: beneficiaryDid,
            transactionAsset: body.transactionAsset,
            transactionAmount: body.transactionAmount,
            transactionAssetDecimals: body.transactionAssetDecimals,
            ivms101_data: {
              transactionBlockchainInfo: {
                destination,
                ...(info.origin === undefined ? {} : { origin: info.origin }),
              },
            },
            ...(attached.walletProof ? { walletProof: attached.walletProof } : {}),
          });
    const initiation: store.Initiation = {
      record: {
        ref,
        protocol: body.protocol,
        originatorId,
        originatorDid: originator.vaspDid,
        beneficiaryId: beneficiary?.id ?? null,
        beneficiaryVaspId,
        beneficiaryDid,
        asset: body.transactionAsset,
        assetDecimals: body.transactionAssetDecimals,
        amount: body.transactionAmount,
        origin: info.origin ?? null,
        destination,
        txHash: info.txHash ?? null,
        notificationEmail: body.notificationEmail ?? null,
      },
      sealedPii: sealPii(this.masterKey, ref, JSON.stringify(body.pii)),
      ...this.nameEntries(body.pii),
      message,
      ...(body.protocol === 'NOTIFY' ? { claimHash: this.options.claimHash(ref) } : {}),
      ...kept(attached),
    };
    const response: InitiateResponse = {
      transactionRef: ref,
      status: 'NEW',
      protocol: body.protocol,
      transactionAsset: body.transactionAsset,
      transactionAmount: body.transactionAmount,
      beneficiaryVASPid: beneficiaryVaspId,
      beneficiaryVASPdid: beneficiaryDid,
      destination,
    };
    return { initiation, response };
  }
}

async function resolveBeneficiary(lookups: OrgLookups, originatorId: string, body: InitiateRequest) {
  const byId = body.beneficiaryVASPid === undefined ? undefined : await lookups.byId(body.beneficiaryVASPid);
  const byDid =
    body.beneficiaryVASPdid === undefined ? undefined : await lookups.byDid(body.beneficiaryVASPdid);
  const unknown = (detail: string) => new AppError('UNKNOWN_COUNTERPARTY', detail);
  const both = body.beneficiaryVASPid !== undefined && body.beneficiaryVASPdid !== undefined;
  if (body.protocol === 'NOTIFY') {
    // The id may name an exchange outside the directory; a DID beside it must then be outside it
    // too, and one that resolves must resolve to the id's organization (each DID has one owner).
    if (both && byId?.id !== byDid?.id) {
      throw unknown('beneficiaryVASPid and beneficiaryVASPdid name different organizations.');
    }
    if (byId?.id === originatorId)
      throw unknown('The originator and the beneficiary are the same organization.');
    return byId;
  }
  if (!byDid) throw unknown('beneficiaryVASPdid names no organization in the directory.');
  if (both && byId?.id !== byDid.id) {
    throw unknown('beneficiaryVASPid and beneficiaryVASPdid name different organizations.');
  }
  if (byDid.id === originatorId)
    throw unknown('The originator and the beneficiary are the same organization.');
  if (!byDid.travelEndpoint) throw unknown('The beneficiary has no travelEndpoint to receive messages.');
  if (body.protocol === 'BASIC' && !byDid.publicKey) {
    throw unknown('The beneficiary has no publicKey; BASIC needs one to encrypt the personal data.');
  }
  return byDid;
}
