/**
 * Reads of transactions (SPEC §6): one with its history, lists, and the personal data. Only the
 * audited `/pii` read and the delivery worker ever decrypt `pii`; every other read leaves it sealed.
 */
import { Readable } from 'node:stream';
import { type Actor, recordAudit } from '../audit/store.js';
import { claimProgress } from '../claims/progress.js';
import { claimFacts } from '../claims/store.js';
import { openPii, type SealingKeys } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import { deliverySummaries, NOT_APPLICABLE, type Summary } from '../deliveries/summary.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { AppError, notFound, validationFailed } from '../http/errors.js';
import {
  type Ivms101Message,
  type Ivms101Version,
  normalise,
  render,
  withVasps,
} from '../ivms101/message.js';
import { type After, csvRow, exportPages, fileStamp, partyNames } from './csv.js';
import type { OrgLookups } from './initiation.js';
import { MAX_QUERY_TOKENS, type NameIndex } from './name-index.js';
import { asParty, lockAsParty } from './party.js';
import { type DeclineReason, openReason } from './reasons.js';
import type { ListQuery, TransactionRead, TransactionSummary, TrpTransferInfo } from './schemas.js';
import * as store from './store.js';

const DEFAULT_PAGE = 50;

const CSV_COLUMNS = [
  'transactionRef',
  'createdAt',
  'updatedAt',
  'status',
  'protocol',
  'role',
  'asset',
  'amount',
  'originatorVASPdid',
  'beneficiaryVASPdid',
  'beneficiaryVASPid',
  'originAddress',
  'destinationAddress',
  'txHash',
  'delivery',
  'piiErasedAt',
];
const CSV_PII_COLUMNS = ['originatorCustomer', 'beneficiaryCustomer'];

/** The filters of an export, for its audit row: what was asked, not the customer name searched. */
function exportedFilters(q: ListQuery): Record<string, string> {
  const { format: _f, includePii: _i, customer, ...rest } = q;
  return { ...(rest as Record<string, string>), ...(customer === undefined ? {} : { customer: '(a name)' }) };
}

/** The object without its undefined members (exactOptionalPropertyTypes). */
function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as never;
}

/** Compares two decimal strings of AMOUNT_PATTERN without parsing them into floats. */
export function compareDecimals(a: string, b: string): number {
  const [ai = '', af = ''] = a.split('.');
  const [bi = '', bf = ''] = b.split('.');
  if (ai.length !== bi.length) return ai.length - bi.length;
  if (ai !== bi) return ai < bi ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const x = af.padEnd(width, '0');
  const y = bf.padEnd(width, '0');
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Who read personal data, for the audit: the key and its scope, the request and its client address. */
/** Who read, for the audit row: a key (its id, scope, label and owner) or a signed-in person (`actor`). */
export interface PiiReader {
  /** `user:<id>` when a person read; the organization (`org:<id>`) otherwise. */
  actor?: Actor;
  keyId?: string;
  scope?: string;
  keyLabel?: string;
  keyOwner?: string;
  organizationId?: string;
  requestId: string;
  clientAddress: string;
}

export class TransactionReads {
  constructor(
    private readonly db: Database,
    private readonly masterKey: SealingKeys,
    private readonly orgs: OrgLookups,
    private readonly names?: NameIndex,
  ) {}

  async get(orgId: string, ref: string): Promise<TransactionRead> {
    const t = asParty(await store.findTransactionWithHistory(this.db, ref), orgId);
    const delivery = (await deliverySummaries(this.db, [t], orgId)).get(t.ref) ?? NOT_APPLICABLE;
    const [trp, notify] = await Promise.all([trpOf(this.db, [t]), notifyOf(this.db, [t], orgId)]);
    return {
      ...toSummary(t, this.masterKey, delivery, trp.get(t.ref)),
      ...notify.get(t.ref),
      history: t.history,
    };
  }

  async list(
    orgId: string,
    q: ListQuery,
  ): Promise<{ transactions: TransactionSummary[]; nextCursor: string | null; total: number }> {
    const filter = this.filterOf(orgId, q);
    const limit = q.limit === undefined ? DEFAULT_PAGE : Number(q.limit);
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    const [rows, total] = await Promise.all([
      store.listTransactions(this.db, filter, {
        sort: q.sort ?? 'newest',
        ...(after ? { after: { createdAt: after.at, ref: after.id } } : {}),
        limit: limit + 1,
      }),
      store.countTransactions(this.db, filter),
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const [deliveries, trp, notify] = await Promise.all([
      deliverySummaries(this.db, page, orgId),
      trpOf(this.db, page),
      notifyOf(this.db, page, orgId),
    ]);
    return {
      transactions: page.map((t) => ({
        ...toSummary(t, this.masterKey, deliveries.get(t.ref) ?? NOT_APPLICABLE, trp.get(t.ref)),
        ...notify.get(t.ref),
      })),
      nextCursor: rows.length > limit && last ? encodeCursor(last.cursorAt, last.ref) : null,
      total,
    };
  }

  /**
   * Every transaction the filters match as CSV (csv.ts), streamed a batch at a time. With
   * `includePii` the customers' names are added where the caller may read them, and the export is
   * audited first (the filters and the count), in the audit chain, before a byte goes out.
   */
  async exportCsv(
    orgId: string,
    q: ListQuery,
    reader?: PiiReader,
  ): Promise<{ filename: string; body: Readable }> {
    const filter = this.filterOf(orgId, q);
    const includePii = q.includePii === 'true';
    if (includePii) {
      const count = await store.countTransactions(this.db, filter);
      const { actor, ...about } = reader ?? {};
      await recordAudit(this.db, {
        actor: actor ?? `org:${orgId}`,
        action: 'transaction.exported',
        subjectType: 'organization',
        subjectId: orgId,
        details: { format: 'csv', includePii: true, count, filters: exportedFilters(q), ...about },
      });
    }
    return {
      filename: `transactions-${fileStamp()}.csv`,
      body: Readable.from(this.csvLines(orgId, filter, q, includePii)),
    };
  }

  private async *csvLines(
    orgId: string,
    filter: store.ListFilter,
    q: ListQuery,
    includePii: boolean,
  ): AsyncGenerator<string> {
    yield csvRow(includePii ? [...CSV_COLUMNS, ...CSV_PII_COLUMNS] : CSV_COLUMNS);
    const read = (after: After | undefined, limit: number) =>
      store.listTransactions(this.db, filter, {
        sort: q.sort ?? 'newest',
        ...(after ? { after } : {}),
        limit,
      });
    for await (const page of exportPages(read)) {
      const [deliveries, sealed] = await Promise.all([
        deliverySummaries(this.db, page, orgId),
        includePii
          ? store.readSealedPiiMany(
              this.db,
              page.filter((t) => t.piiEntitled).map((t) => t.ref),
            )
          : new Map<string, Buffer>(),
      ]);
      let chunk = '';
      for (const t of page) {
        const cells: (string | null)[] = [
          t.ref,
          t.createdAt,
          t.updatedAt,
          t.status,
          t.protocol,
          t.originatorId === orgId ? 'originator' : 'beneficiary',
          t.asset,
          t.amount,
          t.originatorDid,
          t.beneficiaryDid,
          t.beneficiaryVaspId,
          t.origin,
          t.destination,
          t.txHash,
          (deliveries.get(t.ref) ?? NOT_APPLICABLE).state,
          t.piiErasedAt,
        ];
        if (includePii) cells.push(...this.csvNames(t.ref, sealed.get(t.ref)));
        chunk += csvRow(cells);
      }
      yield chunk;
    }
  }

  /** The customers' names of a row the caller may read the personal data of; blank otherwise. */
  private csvNames(ref: string, sealed: Buffer | undefined): string[] {
    if (!sealed) return ['', ''];
    const message = normalise(JSON.parse(openPii(this.masterKey, ref, sealed))).message;
    return [partyNames(message, 'originator'), partyNames(message, 'beneficiary')];
  }

  /** The store's filter of a list query; `customer` through the blind index (400 without letters). */
  private filterOf(orgId: string, q: ListQuery): store.ListFilter {
    if (
      q.minAmount !== undefined &&
      q.maxAmount !== undefined &&
      compareDecimals(q.minAmount, q.maxAmount) > 0
    ) {
      throw validationFailed([
        { path: '/querystring/minAmount', message: 'must not be greater than maxAmount' },
      ]);
    }
    if (q.includePii !== undefined && q.format !== 'csv') {
      throw validationFailed([{ path: '/querystring/includePii', message: 'applies to format=csv only' }]);
    }
    if (q.format === 'csv' && (q.cursor !== undefined || q.limit !== undefined)) {
      throw validationFailed([
        {
          path: `/querystring/${q.cursor !== undefined ? 'cursor' : 'limit'}`,
          message: 'does not apply to format=csv (it has every row)',
        },
      ]);
    }
    let customerEntries: string[] | undefined;
    if (q.customer !== undefined) {
      customerEntries = this.names?.queryEntries(q.customer) ?? [];
      if (customerEntries.length === 0) {
        throw validationFailed([{ path: '/querystring/customer', message: 'must contain a letter' }]);
      }
      if (customerEntries.length > MAX_QUERY_TOKENS) {
        throw validationFailed([
          { path: '/querystring/customer', message: `must have at most ${MAX_QUERY_TOKENS} words` },
        ]);
      }
    }
    return {
      organizationId: orgId,
      ...defined({
        role: q.role,
        status: q.status,
        protocol: q.protocol,
        asset: q.asset,
        createdAfter: q.createdAfter,
        createdBefore: q.createdBefore,
        minAmount: q.minAmount,
        maxAmount: q.maxAmount,
        q: q.q,
        customerEntries,
        review: q.review,
        needs: q.needs,
      }),
      deliveryFailing: q.delivery === 'failing',
    };
  }

  /**
   * The personal data, for parties entitled to it, in `version` or else the caller's own IVMS101
   * version (SPEC §18); every read is audited (SPEC §6), with the key that read it and its scope,
   * the request id and the client address (SPEC §13, §14).
   */
  async readPiiAsParty(
    orgId: string,
    ref: string,
    version?: Ivms101Version,
    reader?: PiiReader,
  ): Promise<{ transactionRef: string; pii: object }> {
    const wanted = version ?? (await this.orgs.byId(orgId))?.ivms101Version ?? '2020';
    const read = await this.db.transaction(async (tx) => {
      const t = await lockAsParty(tx, orgId, ref);
      // The beneficiary, once the data has reached it: CONFIRMED or later (a transfer cancelled after
      // it was confirmed included); an inbound TRP transfer's data came with the inquiry, to be
      // screened before approving.
      const entitled =
        orgId === t.originatorId ||
        t.status === 'CONFIRMED' ||
        t.status === 'DECLINED' ||
        t.flow === 'TRP_IN' ||
        (t.status === 'CANCELLED' && (await store.wasConfirmed(tx, t.ref)));
      if (!entitled) {
        throw new AppError(
          'FORBIDDEN',
          `The beneficiary may read the personal data once CONFIRMED; it is ${t.status}.`,
        );
      }
      const { actor, ...about } = reader ?? {};
      await recordAudit(tx, {
        actor: actor ?? `org:${orgId}`,
        action: 'transaction.pii_read',
        subjectType: 'transaction',
        subjectId: t.ref,
        details: {
          role: orgId === t.originatorId ? 'originator' : 'beneficiary',
          ivms101Version: wanted,
          ...about,
        },
      });
      // The stored ref, not the one in the path: a UUID matches in either case, but the sealed
      // data is bound to the ref exactly as it was issued (lower case).
      return { t, stored: await this.decryptPii(tx, t.ref) };
    });
    // Outside the transaction: the directory look-ups use connections of their own.
    return { transactionRef: read.t.ref, pii: render(await this.canonicalPii(read.t, read.stored), wanted) };
  }

  /**
   * For the delivery worker's prepare stage (BASIC and TRP `received`, MAIN `confirmed-data`, TRP
   * inquiries): the canonical message, written in the recipient's version by the caller.
   */
  async readPii(ref: string): Promise<Ivms101Message> {
    const t = await store.findTransaction(this.db, ref);
    if (!t) throw notFound('The transaction');
    return this.canonicalPii(t, await this.decryptPii(this.db, t.ref));
  }

  /**
   * The stored message in canonical form (data stored before SPEC §18 as submitted, normalised
   * now), with the parties' VASPs filled in from the directory where the sender left them out:
   * here rather than at initiation, so that a NOTIFY transaction's beneficiary that joins later
   * is filled in too.
   */
  private async canonicalPii(t: store.TransactionRecord, sealedCopy: unknown): Promise<Ivms101Message> {
    const stored = normalise(sealedCopy).message as Ivms101Message;
    if (stored.originatingVASP !== undefined && stored.beneficiaryVASP !== undefined) return stored;
    const [originating, beneficiary] = await Promise.all([
      t.originatorId === null || stored.originatingVASP !== undefined
        ? undefined
        : this.orgs.byId(t.originatorId),
      t.beneficiaryId === null || stored.beneficiaryVASP !== undefined
        ? undefined
        : this.orgs.byId(t.beneficiaryId),
    ]);
    return withVasps(stored, { originating, beneficiary });
  }

  /** For the worker's prepare stage: the decline (or cancel) reason, opened from its sealed copy. */
  async readReason(ref: string): Promise<unknown> {
    const t = await store.findTransaction(this.db, ref);
    if (!t?.sealedReason) return undefined;
    return openReason(this.masterKey, t.ref, t.sealedReason);
  }

  private async decryptPii(q: Queryable, ref: string): Promise<unknown> {
    const sealed = await store.readSealedPii(q, ref);
    if (sealed === null) {
      throw new AppError(
        'PII_ERASED',
        'The personal data of this transaction was erased; piiErasedAt says when.',
      );
    }
    if (!sealed) throw notFound('The transaction');
    return JSON.parse(openPii(this.masterKey, ref, sealed));
  }
}

/** The TRP side of the TRP transactions among these (one query, none without any). */
function trpOf(q: Queryable, transactions: readonly store.TransactionRecord[]) {
  return store.findTrpTransfers(
    q,
    transactions.filter((t) => t.protocol === 'TRP').map((t) => t.ref),
  );
}

/**
 * NOTIFY progress (SPEC §17), for the originator of a NOTIFY transaction only: where the
 * announcement went and how far its claim link got. Absent for anyone else and other protocols.
 */
async function notifyOf(
  q: Queryable,
  transactions: readonly store.TransactionRecord[],
  orgId: string,
): Promise<Map<string, Pick<TransactionSummary, 'notificationEmail' | 'claim'>>> {
  const mine = transactions.filter((t) => t.protocol === 'NOTIFY' && t.originatorId === orgId);
  const facts = await claimFacts(
    q,
    mine.map((t) => t.ref),
  );
  return new Map(
    mine.map((t) => {
      const f = facts.get(t.ref);
      return [
        t.ref,
        {
          ...(t.notificationEmail === null ? {} : { notificationEmail: t.notificationEmail }),
          ...(f === undefined ? {} : { claim: claimProgress(f) }),
        },
      ];
    }),
  );
}

function toSummary(
  t: store.TransactionRecord,
  masterKey: SealingKeys,
  delivery: Summary,
  trp: TrpTransferInfo | undefined,
): TransactionSummary {
  const declineReason =
    t.status === 'DECLINED' && t.sealedReason
      ? openReason<DeclineReason>(masterKey, t.ref, t.sealedReason)
      : undefined;
  const cancelReason =
    t.status === 'CANCELLED' && t.sealedReason
      ? openReason<unknown>(masterKey, t.ref, t.sealedReason)
      : undefined;
  return {
    transactionRef: t.ref,
    status: t.status,
    protocol: t.protocol,
    transactionAsset: t.asset,
    transactionAssetDecimals: t.assetDecimals,
    transactionAmount: t.amount,
    beneficiaryVASPid: t.beneficiaryVaspId,
    beneficiaryVASPdid: t.beneficiaryDid,
    originatorVASPdid: t.originatorDid,
    destination: t.destination,
    transactionBlockchainInfo: {
      ...(t.destination === null ? {} : { destination: t.destination }),
      ...(t.origin === null ? {} : { origin: t.origin }),
      ...(t.txHash === null ? {} : { txHash: t.txHash }),
    },
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    ...(declineReason === undefined ? {} : { declineReason }),
    ...(typeof cancelReason === 'string' ? { cancelReason } : {}),
    delivery,
    ...(trp ? { trp } : {}),
    ...(t.piiErasedAt === null ? {} : { piiErasedAt: t.piiErasedAt }),
  };
}
