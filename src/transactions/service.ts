/**
 * Transaction commands and reads (SPEC §6, §7, §9). Each command is one database transaction
 * that checks the caller's party, asks the state machine, changes the row conditionally,
 * appends history and queues its messages in the outbox: all or nothing. Visibility rule:
 * a caller that is neither originator nor beneficiary gets 404, never 403.
 */

import { createHmac, hkdfSync, randomUUID } from 'node:crypto';
import { configure } from 'safe-stable-stringify';
import { recordAudit } from '../audit/store.js';
import { openPii, sealPii } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import { GroupCommit } from '../db/group-commit.js';
import { enqueue, type OutboxMessage, type WrittenMessage } from '../deliveries/outbox.js';
import type { Organization } from '../directory/schemas.js';
import { findOrganization, findOrganizationByDid } from '../directory/store.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { AppError, type ErrorCode, type FieldProblem, notFound, validationFailed } from '../http/errors.js';
import { DECLINE_CATEGORIES } from './decline.js';
import type {
  InitiateRequest,
  InitiateResponse,
  ListQuery,
  Transaction,
  TransactionSummary,
} from './schemas.js';
import { type State, type TxEvent, transition } from './state-machine.js';
import * as store from './store.js';

export interface DeliveredMessage {
  event: string;
  channel: 'webhook' | 'email';
  transactionRef: string | null;
}

export interface Idempotency {
  key: string;
  hash: Buffer;
}

/** Member order is not part of a JSON object's meaning: a retry that re-serializes its body is the same request. */
const canonicalJson = configure({ deterministic: true, strict: true });

/**
 * Identifies a request for Idempotency-Key replay: the route and the body, keys in sorted order.
 * Keyed (HMAC under a key derived from the master key), because an initiation's body holds
 * personal data: a plain hash stored beside it would let anyone holding the database test a
 * guess of that data against it.
 */
export function requestHasher(masterKey: Buffer): (route: string, body: unknown) => Buffer {
  const key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'trh/idempotency/request', 32));
  return (route, body) =>
    createHmac('sha256', key)
      .update(route)
      .update('\n')
      .update(canonicalJson(body) ?? '')
      .digest();
}

/**
 * Refusals that depend on the state of things, not on the request's form: the first answer to an
 * Idempotency-Key even so, and replayed as such. (Malformed requests never reach a command.)
 */
const REPLAYED_REFUSALS = new Set<ErrorCode>([
  'FORBIDDEN',
  'NOT_FOUND',
  'INVALID_STATE',
  'ALREADY_EXISTS',
  'UNKNOWN_COUNTERPARTY',
]);

/** Expired Idempotency-Key records are deleted at most this often per process (when keys are used). */
const IDEMPOTENCY_PURGE_MS = 60_000;
const PURGE_BATCH = 10_000;

const DEFAULT_PAGE = 50;
/** Thrown inside a keyed command's transaction to roll it back: another request holds the key. */
const KEY_TAKEN = Symbol('Idempotency-Key taken');

/**
 * A delivery worker in this process (DeliveryWorker): woken when new messages are due, or handed
 * new webhooks to send at once without claiming them (see DeliveryWorker.reserve).
 */
export interface LocalWorker {
  wake(): void;
  /** Room for up to `n` messages, to be written leased for `leaseMs` (by the database's clock). */
  reserve(n: number): { count: number; leaseMs: number };
  take(written: WrittenMessage[], leaseUntil: Date): void;
  cancel(n: number): void;
}

export class TransactionService {
  private readonly initiations: GroupCommit<store.Initiation>;
  private localWorker: LocalWorker | undefined;
  /** Keyed initiations a group commit skipped, their key being taken (see initiate). */
  private readonly keyTaken = new WeakSet<store.Initiation>();
  /** When this process last deleted expired Idempotency-Key records (see purgeExpiredKeys). */
  private lastPurge = 0;

  /** The Idempotency-Key fingerprint of a request (route and body). */
  readonly requestHash: (route: string, body: unknown) => Buffer;

  constructor(
    private readonly db: Database,
    private readonly masterKey: Buffer,
    private readonly lookups: OrgLookups = lookupsIn(db),
  ) {
    this.requestHash = requestHasher(masterKey);
    this.initiations = new GroupCommit(
      async (items) => {
        const handedOff = await this.writeInitiations(items);
        if (handedOff < items.length) this.localWorker?.wake();
      },
      // One batch at a time on PostgreSQL too (bench, 2 cores, 50 connections: batches of ~24
      // rows instead of ~14 with 4 at once, and PostgreSQL CPU per initiation about a fifth lower).
      // On PostgreSQL the next batch goes out before the last one's answers are written: 6–10 %
      // more initiations per second in alternating rounds (bench, 50 connections).
      { maxBatch: 200, nextFirst: db.kind === 'postgres' },
    );
  }

  /**
   * The worker of this process, if it runs one: new initiations' webhooks go to it straight
   * from the commit, with no claim and no NOTIFY round trip in between.
   */
  attachWorker(worker: LocalWorker): void {
    this.localWorker = worker;
  }

  /**
   * Writes a group of initiations; their webhooks that the local worker has room for are written
   * leased to it and handed over once committed. Returns how many were handed over. The others
   * are announced to every worker by a NOTIFY in the same statement: one per batch, with no
   * statement or commit of its own (a separate NOTIFY statement per batch cost ~12 % of the
   * initiation rate on PostgreSQL in alternating rounds, API-only hub at 50 connections).
   */
  private async writeInitiations(items: store.Initiation[]): Promise<number> {
    const worker = this.localWorker;
    const webhooks = items.filter((i) => i.message.channel === 'webhook');
    const grant = worker?.reserve(webhooks.length);
    const leased = {
      ms: grant?.leaseMs ?? 0,
      items: new Set(webhooks.slice(0, grant?.count ?? 0)),
    };
    let written: Awaited<ReturnType<typeof store.insertInitiations>>;
    try {
      written = await store.insertInitiations(this.db, items, {
        leased,
        notify: leased.items.size < items.length,
      });
    } catch (err) {
      worker?.cancel(leased.items.size);
      throw err;
    }
    for (const item of written.skipped) this.keyTaken.add(item);
    if (!worker || leased.items.size === 0) return 0;
    const handed = written.messages.filter(
      (_, i) => leased.items.has(items[i]!) && !written.skipped.has(items[i]!),
    );
    if (handed.length < leased.items.size) worker.cancel(leased.items.size - handed.length);
    worker.take(handed, written.leaseUntil);
    return handed.length;
  }

  /**
   * Initiation is the hot path: its single write joins a group commit, with an Idempotency-Key
   * too, whose record the same statement writes unless the key is taken. A taken key (a retry, a
   * concurrent twin, an expired record) and a refusal that must be remembered go the classic way
   * instead (`command`), which replays the record, answers 409 to another body, or runs alone.
   */
  async initiate(originatorId: string, body: InitiateRequest, idem?: Idempotency): Promise<InitiateResponse> {
    if (!idem) {
      const prepared = await this.prepareInitiation(this.lookups, originatorId, body);
      await this.initiations.submit(prepared.initiation);
      return prepared.response;
    }
    const alone = () =>
      this.command(originatorId, idem, async (tx) => {
        const prepared = await this.prepareInitiation(lookupsIn(tx), originatorId, body);
        await store.insertInitiations(tx, [prepared.initiation], { notify: true });
        return prepared.response;
      });
    let prepared: Awaited<ReturnType<typeof this.prepareInitiation>>;
    try {
      prepared = await this.prepareInitiation(this.lookups, originatorId, body);
    } catch (err) {
      if (err instanceof AppError && REPLAYED_REFUSALS.has(err.code)) return alone();
      throw err;
    }
    prepared.initiation.idempotency = { key: idem.key, hash: idem.hash, response: prepared.response };
    await this.initiations.submit(prepared.initiation);
    if (this.keyTaken.has(prepared.initiation)) return alone();
    this.purgeExpiredKeys();
    return prepared.response;
  }

  /** Resolves the parties, seals the personal data and builds the rows and the answer. */
  private async prepareInitiation(lookups: OrgLookups, originatorId: string, body: InitiateRequest) {
    const originator = await lookups.byId(originatorId);
    if (!originator) throw new AppError('UNAUTHENTICATED', 'The calling organization no longer exists.');
    const beneficiary = await resolveBeneficiary(lookups, originatorId, body);
    const ref = randomUUID();
    const info = body.transactionBlockchainInfo;
    const beneficiaryDid = beneficiary?.vaspDid ?? body.beneficiaryVASPdid ?? null;
    const beneficiaryVaspId = beneficiary?.id ?? body.beneficiaryVASPid ?? null;
    const message: OutboxMessage =
      body.protocol === 'NOTIFY'
        ? {
            channel: 'email',
            event: 'notify',
            emailTo: body.notificationEmail!,
            transactionRef: ref,
            payload: {
              transactionRef: ref,
              transactionAsset: body.transactionAsset,
              transactionAmount: body.transactionAmount,
              destination: info.destination,
              originatorVASPdid: originator.vaspDid,
              originatorName: originator.name,
              beneficiaryVASPid: beneficiaryVaspId,
            },
          }
        : {
            channel: 'webhook',
            event: 'received',
            organizationId: beneficiary!.id,
            transactionRef: ref,
            payload: {
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
                  destination: info.destination,
                  ...(info.origin === undefined ? {} : { origin: info.origin }),
                },
              },
            },
          };
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
        destination: info.destination,
        txHash: info.txHash ?? null,
        notificationEmail: body.notificationEmail ?? null,
      },
      sealedPii: sealPii(this.masterKey, ref, JSON.stringify(body.pii)),
      message,
    };
    const response: InitiateResponse = {
      transactionRef: ref,
      status: 'NEW',
      protocol: body.protocol,
      transactionAsset: body.transactionAsset,
      transactionAmount: body.transactionAmount,
      beneficiaryVASPid: beneficiaryVaspId,
      beneficiaryVASPdid: beneficiaryDid,
      destination: info.destination,
    };
    return { initiation, response };
  }

  confirm(orgId: string, body: { transactionRef: string; txHash?: string }, idem?: Idempotency) {
    return this.command(orgId, idem, async (tx) => {
      const t = await this.partyView(tx, orgId, body.transactionRef);
      if (orgId !== t.originatorId) throw new AppError('FORBIDDEN', 'Only the originator may confirm.');
      const to = this.next(t.status, 'confirm', t.protocol);
      if (body.txHash !== undefined && t.txHash !== null && t.txHash !== body.txHash) {
        throw new AppError('ALREADY_EXISTS', 'A different txHash is already set for this transaction.');
      }
      await this.move(tx, t, to, { actorId: orgId, actor: t.originatorDid }, { txHash: body.txHash });
      const setsTxHash = body.txHash !== undefined && t.txHash === null;
      if (setsTxHash) await this.auditTxHash(tx, orgId, t.ref);
      const messages: OutboxMessage[] = [];
      if (await this.hasEndpoint(tx, t.beneficiaryId)) {
        messages.push(
          this.webhook(t.beneficiaryId!, t.ref, 'confirmed-data', {
            transactionRef: t.ref,
            protocol: 'MAIN',
            status: 'CONFIRMED',
            originatorVASPdid: t.originatorDid,
            beneficiaryVASPdid: t.beneficiaryDid,
          }),
        );
        if (setsTxHash) {
          messages.push(
            this.webhook(t.beneficiaryId!, t.ref, 'tx-hash', { transactionRef: t.ref, txHash: body.txHash }),
          );
        }
      }
      await enqueue(tx, messages);
      return { transactionRef: t.ref, status: 'CONFIRMED' as const, protocol: 'MAIN' as const };
    });
  }

  decline(
    orgId: string,
    body: { transactionRef: string; reason: { category: string; description: string } },
    idem?: Idempotency,
  ) {
    const problems = [];
    if (!(DECLINE_CATEGORIES as readonly string[]).includes(body.reason.category)) {
      problems.push({ path: '/reason/category', message: `must be one of ${DECLINE_CATEGORIES.join(', ')}` });
    }
    if (body.reason.description.trim() === '') {
      problems.push({ path: '/reason/description', message: 'must not be empty' });
    }
    if (problems.length > 0) throw validationFailed(problems);
    const reason = { category: body.reason.category, description: body.reason.description };
    return this.command(orgId, idem, async (tx) => {
      const t = await this.partyView(tx, orgId, body.transactionRef);
      if (orgId !== t.beneficiaryId) throw new AppError('FORBIDDEN', 'Only the beneficiary may decline.');
      const to = this.next(t.status, 'decline', t.protocol);
      await this.move(
        tx,
        t,
        to,
        { actorId: orgId, actor: t.beneficiaryDid ?? orgId, reason },
        { declineReason: reason },
      );
      if (await this.hasEndpoint(tx, t.originatorId)) {
        await enqueue(tx, [
          this.webhook(t.originatorId, t.ref, 'declined', {
            transactionRef: t.ref,
            status: 'DECLINED',
            reason,
            beneficiaryVASPdid: t.beneficiaryDid,
          }),
        ]);
      }
      return {
        transactionRef: t.ref,
        status: 'DECLINED' as const,
        reason,
        message: 'The transaction was declined and cannot be processed again; the originator is informed.',
      };
    });
  }

  shareTxHash(orgId: string, body: { transactionRef: string; txHash: string }, idem?: Idempotency) {
    return this.command(orgId, idem, async (tx) => {
      const t = await this.partyView(tx, orgId, body.transactionRef);
      if (orgId !== t.originatorId) throw new AppError('FORBIDDEN', 'Only the originator may set txHash.');
      this.next(t.status, 'share_tx_hash', t.protocol);
      const result = { transactionRef: t.ref, txHash: body.txHash, status: t.status };
      if (t.txHash === body.txHash) return result;
      if (t.txHash !== null || !(await store.setTxHash(tx, t.ref, body.txHash))) {
        throw new AppError('ALREADY_EXISTS', 'A different txHash is already set for this transaction.');
      }
      await this.auditTxHash(tx, orgId, t.ref);
      if (t.beneficiaryId && (await this.hasEndpoint(tx, t.beneficiaryId))) {
        await enqueue(tx, [
          this.webhook(t.beneficiaryId, t.ref, 'tx-hash', { transactionRef: t.ref, txHash: body.txHash }),
        ]);
      }
      return result;
    });
  }

  /** By the originator, after initiation: through confirm or the tx-hash command. */
  private async auditTxHash(tx: Queryable, orgId: string, ref: string): Promise<void> {
    await recordAudit(tx, {
      actor: `org:${orgId}`,
      action: 'transaction.tx_hash_set',
      subjectType: 'transaction',
      subjectId: ref,
    });
  }

  async get(orgId: string, ref: string): Promise<Transaction> {
    const t = asParty(await store.findTransactionWithHistory(this.db, ref), orgId);
    return { ...toSummary(t), history: t.history };
  }

  async list(
    orgId: string,
    q: ListQuery,
  ): Promise<{ transactions: TransactionSummary[]; nextCursor: string | null }> {
    const limit = q.limit === undefined ? DEFAULT_PAGE : Number(q.limit);
    const rows = await store.listTransactions(this.db, {
      organizationId: orgId,
      role: q.role,
      status: q.status,
      protocol: q.protocol,
      asset: q.asset,
      createdAfter: q.createdAfter,
      createdBefore: q.createdBefore,
      after: q.cursor === undefined ? undefined : afterCursor(q.cursor),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      transactions: page.map(toSummary),
      nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.ref) : null,
    };
  }

  /** The personal data, for parties entitled to it; every read is audited (SPEC §6). */
  async readPiiAsParty(orgId: string, ref: string): Promise<{ transactionRef: string; pii: object }> {
    return this.db.transaction(async (tx) => {
      const t = await this.partyView(tx, orgId, ref);
      const entitled = orgId === t.originatorId || t.status === 'CONFIRMED' || t.status === 'DECLINED';
      if (!entitled) {
        throw new AppError(
          'FORBIDDEN',
          `The beneficiary may read the personal data once CONFIRMED; it is ${t.status}.`,
        );
      }
      await recordAudit(tx, {
        actor: `org:${orgId}`,
        action: 'transaction.pii_read',
        subjectType: 'transaction',
        subjectId: t.ref,
        details: { role: orgId === t.originatorId ? 'originator' : 'beneficiary' },
      });
      // The stored ref, not the one in the path: a UUID matches in either case, but the sealed
      // data is bound to the ref exactly as it was issued (lower case).
      return { transactionRef: t.ref, pii: (await this.decryptPii(tx, t.ref)) as object };
    });
  }

  /** For the delivery worker's prepare stage (BASIC `received`, MAIN `confirmed-data`). */
  async readPii(ref: string): Promise<{ originator: unknown; beneficiary: unknown }> {
    return (await this.decryptPii(this.db, ref)) as { originator: unknown; beneficiary: unknown };
  }

  /**
   * Called by the worker inside the database transaction that marks deliveries DELIVERED: an
   * acknowledged `received` webhook or an accepted NOTIFY e-mail notifies the receiver; BASIC
   * then confirms at once, since its data went with `received`. Set-based (the worker records
   * deliveries in batches): the transactions are locked and moved together, each move decided
   * by the state machine. A repeated delivery (after a crash) finds its transaction already
   * moved and changes nothing.
   */
  async deliveryOutcomes(tx: Queryable, ds: DeliveredMessage[]): Promise<void> {
    const refs = [
      ...new Set(
        ds
          .filter(
            (d) =>
              (d.channel === 'webhook' && d.event === 'received') ||
              (d.channel === 'email' && d.event === 'notify'),
          )
          .flatMap((d) => (d.transactionRef === null ? [] : [d.transactionRef])),
      ),
    ];
    if (refs.length === 0) return;
    const finals: { ref: string; from: State; to: State }[] = [];
    const steps: { ref: string; status: State }[] = [];
    for (const t of await store.lockStates(tx, refs)) {
      const notified = transition(t.status, 'notified', t.protocol);
      if (!notified.ok) continue;
      steps.push({ ref: t.ref, status: notified.to });
      let to = notified.to;
      const confirmed = transition(to, 'data_delivered', t.protocol);
      if (confirmed.ok) {
        to = confirmed.to;
        steps.push({ ref: t.ref, status: to });
      }
      finals.push({ ref: t.ref, from: t.status, to });
    }
    if (finals.length > 0) await store.applyHubMoves(tx, finals, steps);
  }

  /** One delivery's outcome (see deliveryOutcomes). */
  deliveryOutcome(tx: Queryable, d: DeliveredMessage): Promise<void> {
    return this.deliveryOutcomes(tx, [d]);
  }

  private async decryptPii(q: Queryable, ref: string): Promise<unknown> {
    const sealed = await store.readSealedPii(q, ref);
    if (!sealed) throw notFound('The transaction');
    return JSON.parse(openPii(this.masterKey, ref, sealed));
  }

  /**
   * Runs a command in one database transaction, replaying the first answer to an Idempotency-Key:
   * a success, or a refusal that depended on the state (REPLAYED_REFUSALS). Requests with the same
   * key run one at a time (an advisory lock), so a retry sent while the first still runs waits
   * for its answer instead of meeting the state the first one left (a 409 where it should get 200).
   */
  private async command<T>(
    orgId: string,
    idem: Idempotency | undefined,
    fn: (tx: Queryable) => Promise<T>,
  ): Promise<T> {
    if (!idem) return this.db.transaction(fn);
    const prior = await store.findIdempotent(this.db, orgId, idem.key);
    if (prior) return replay<T>(prior, idem);
    this.purgeExpiredKeys();
    const outcome = await this.db
      .transaction(
        async (tx): Promise<{ replay: store.StoredResponse } | { result: T } | { refused: AppError }> => {
          await store.lockIdempotencyKey(tx, orgId, idem.key);
          const first = await store.findIdempotent(tx, orgId, idem.key);
          if (first) return { replay: first };
          await tx.query('SAVEPOINT command');
          let answer: { result: T } | { refused: AppError };
          try {
            answer = { result: await fn(tx) };
          } catch (err) {
            if (!(err instanceof AppError && REPLAYED_REFUSALS.has(err.code))) throw err;
            await tx.query('ROLLBACK TO SAVEPOINT command');
            answer = { refused: err };
          }
          const stored =
            'result' in answer
              ? answer.result
              : { code: answer.refused.code, detail: answer.refused.detail, errors: answer.refused.errors };
          // A live record committed meanwhile by a group commit, which takes the key without this
          // lock (INSERT_INITIATIONS): undo this run and replay that record instead.
          if (!(await store.saveIdempotent(tx, orgId, idem.key, idem.hash, stored, 'refused' in answer))) {
            throw KEY_TAKEN;
          }
          return answer;
        },
      )
      .catch(async (err) => {
        if (err !== KEY_TAKEN) throw err;
        const live = await store.findIdempotent(this.db, orgId, idem.key);
        if (!live) throw new Error('the Idempotency-Key record that took the key is gone');
        return { replay: live };
      });
    if ('replay' in outcome) return replay<T>(outcome.replay, idem);
    if ('refused' in outcome) throw outcome.refused;
    return outcome.result;
  }

  /** Deletes expired Idempotency-Key records in the background, at most every IDEMPOTENCY_PURGE_MS. */
  private purgeExpiredKeys(): void {
    if (Date.now() - this.lastPurge < IDEMPOTENCY_PURGE_MS) return;
    this.lastPurge = Date.now();
    void (async () => {
      // Batches until one comes back short: a backlog (or a high keyed rate) is cleared, in steps.
      for (let i = 0; i < 100 && (await store.purgeIdempotent(this.db, PURGE_BATCH)) === PURGE_BATCH; i++);
    })().catch(() => {
      // the next keyed command tries again a minute later
    });
  }

  /** The transaction, locked, if the caller is a party; otherwise it does not exist (404). */
  private async partyView(q: Queryable, orgId: string, ref: string) {
    return asParty(await store.findTransaction(q, ref, q !== this.db), orgId);
  }

  private next(from: State, event: TxEvent, protocol: store.TransactionRecord['protocol']): State {
    const r = transition(from, event, protocol);
    if (!r.ok) throw new AppError('INVALID_STATE', r.reason);
    return r.to;
  }

  private async move(
    tx: Queryable,
    t: store.TransactionRecord,
    to: State,
    who: { actorId: string | null; actor: string; reason?: unknown },
    extra: { declineReason?: unknown; txHash?: string } = {},
  ) {
    if (!(await store.updateStatus(tx, t.ref, t.status, to, extra))) {
      throw new AppError(
        'INVALID_STATE',
        `The transaction changed state concurrently; it is no longer ${t.status}.`,
      );
    }
    await store.appendHistory(tx, { ref: t.ref, status: to, ...who });
  }

  private async hasEndpoint(q: Queryable, orgId: string | null): Promise<boolean> {
    if (!orgId) return false;
    return Boolean((await findOrganization(q, orgId))?.travelEndpoint);
  }

  private webhook(
    organizationId: string,
    transactionRef: string,
    event: 'confirmed-data' | 'declined' | 'tx-hash',
    payload: Record<string, unknown>,
  ): OutboxMessage {
    return { channel: 'webhook', event, organizationId, transactionRef, payload };
  }
}

/** How initiation finds organizations: in the command's transaction, or through a cache. */
export interface OrgLookups {
  byId(id: string): Promise<Organization | undefined>;
  byDid(did: string): Promise<Organization | undefined>;
}

const lookupsIn = (q: Queryable): OrgLookups => ({
  byId: (id) => findOrganization(q, id),
  byDid: (did) => findOrganizationByDid(q, did),
});

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

/** The transaction if `orgId` is a party to it; to anyone else it does not exist (404). */
function asParty<T extends store.TransactionRecord>(t: T | undefined, orgId: string): T {
  if (!t || (t.originatorId !== orgId && t.beneficiaryId !== orgId)) throw notFound('The transaction');
  return t;
}

function replay<T>(prior: store.StoredResponse, idem: Idempotency): T {
  if (!prior.hash.equals(idem.hash)) {
    throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used with a different request.');
  }
  if (prior.failed) {
    const refused = prior.response as { code: ErrorCode; detail: string; errors?: FieldProblem[] };
    throw new AppError(refused.code, refused.detail, refused.errors);
  }
  return prior.response as T;
}

function toSummary(t: store.TransactionRecord): TransactionSummary {
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
      destination: t.destination,
      ...(t.origin === null ? {} : { origin: t.origin }),
      ...(t.txHash === null ? {} : { txHash: t.txHash }),
    },
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    ...(t.declineReason ? { declineReason: t.declineReason } : {}),
  };
}

function afterCursor(cursor: string): { createdAt: string; ref: string } {
  const { at, id } = decodeCursor(cursor);
  return { createdAt: at, ref: id };
}
