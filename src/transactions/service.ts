/**
 * The transactions domain as the routes and the delivery engine see it (SPEC §6, §7, §9, §11):
 * one object wiring initiation, the commands, the lifecycle, the reads, Idempotency-Key replay and
 * what deliveries do to transactions. Each concern lives in its own module; this file only
 * composes them. Visibility rule throughout: a caller that is neither originator nor beneficiary gets 404.
 */

import type { SealingKeys } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import type { OutboxMessage } from '../deliveries/events.js';
import type { DeliveryHooks, OutcomeStep } from '../deliveries/hooks.js';
import type { Outbox } from '../deliveries/outbox.js';
import { Idempotency } from '../idempotency/index.js';
import { TransactionCommands } from './commands.js';
import { Initiations, lookupsIn, type OrgLookups, type TrpOutbound } from './initiation.js';
import { Lifecycle } from './lifecycle.js';
import type { NameIndex } from './name-index.js';
import { lockForOutcomes } from './outcomes.js';
import { TransactionReads } from './reads.js';
import { TrpMoves } from './trp-moves.js';

export type { OrgLookups, TrpOutbound, TrpTarget } from './initiation.js';

export interface TransactionOptions {
  lookups?: OrgLookups;
  /** NOTIFY transactions an unverified organization may start per 24 hours. */
  notifyDailyLimit: number;
  /** The hash of a NOTIFY transaction's claim-link token (claims/tokens.ts). */
  claimHash: (ref: string) => Buffer;
  /** The TRP bridge, once built (it is built after this service); none when HUB_TRP_PORT is unset. */
  trp?: () => TrpOutbound | undefined;
  /** The customer-name blind index (name-index.ts), written with each new transaction. */
  names?: NameIndex;
}

export class TransactionService implements DeliveryHooks {
  private readonly idempotency: Idempotency;
  private readonly initiations: Initiations;
  private readonly commands: TransactionCommands;
  private readonly reads: TransactionReads;
  readonly lifecycle: Lifecycle;
  /** What TRP peers' answers do to transactions (the TRP bridge calls these), and the member's approval. */
  readonly trpMoves: TrpMoves;

  constructor(db: Database, masterKey: SealingKeys, outbox: Outbox, options: TransactionOptions) {
    this.idempotency = new Idempotency(db, masterKey);
    const lookups = options.lookups ?? lookupsIn(db);
    this.initiations = new Initiations(db, masterKey, lookups, outbox, this.idempotency, {
      notifyDailyLimit: options.notifyDailyLimit,
      claimHash: options.claimHash,
      trp: options.trp ?? (() => undefined),
      ...(options.names ? { names: options.names } : {}),
    });
    this.commands = new TransactionCommands(this.idempotency, masterKey);
    this.lifecycle = new Lifecycle(this.idempotency, masterKey);
    this.trpMoves = new TrpMoves(this.idempotency, masterKey);
    this.reads = new TransactionReads(db, masterKey, lookups, options.names);
  }

  /** The Idempotency-Key fingerprint of a request (route and body). */
  get requestHash() {
    return this.idempotency.requestHash;
  }

  /** The fingerprint under the current master key and under the previous ones (SPEC §14). */
  requestFingerprint(route: string, body: unknown) {
    return this.idempotency.requestFingerprint(route, body);
  }

  initiate: Initiations['initiate'] = (...args) => this.initiations.initiate(...args);
  confirm: TransactionCommands['confirm'] = (...args) => this.commands.confirm(...args);
  decline: TransactionCommands['decline'] = (...args) => this.commands.decline(...args);
  shareTxHash: TransactionCommands['shareTxHash'] = (...args) => this.commands.shareTxHash(...args);
  cancel: Lifecycle['cancel'] = (...args) => this.lifecycle.cancel(...args);
  approve: TrpMoves['approve'] = (...args) => this.trpMoves.approve(...args);

  get: TransactionReads['get'] = (...args) => this.reads.get(...args);
  list: TransactionReads['list'] = (...args) => this.reads.list(...args);
  exportCsv: TransactionReads['exportCsv'] = (...args) => this.reads.exportCsv(...args);
  readPiiAsParty: TransactionReads['readPiiAsParty'] = (...args) => this.reads.readPiiAsParty(...args);

  /** DeliveryHooks: the personal data for the worker's prepare stage. */
  readPii(ref: string) {
    return this.reads.readPii(ref);
  }

  /** DeliveryHooks: the transaction's decline or cancel reason, for the worker's prepare stage. */
  readReason(ref: string) {
    return this.reads.readReason(ref);
  }

  /** DeliveryHooks: locks a recorded batch's transactions; what delivered messages do to them (outcomes.ts). */
  deliveryOutcomes(tx: Queryable, batch: readonly OutboxMessage[]): Promise<OutcomeStep> {
    return lockForOutcomes(tx, batch);
  }
}
