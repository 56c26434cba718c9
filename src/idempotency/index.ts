/**
 * Idempotency-Key replay (SPEC §6) for commands. A keyed command runs in one database
 * transaction that also records its first answer: a success, or a refusal that depended on the
 * state (REMEMBERED_REFUSALS). A repeat with the same key and body gets that answer again; another
 * body is 409 IDEMPOTENCY_CONFLICT. Requests with one key run one at a time (an advisory lock), so
 * a retry sent while the first still runs waits for its answer instead of meeting the state the
 * first one left. Answers recorded here are sealed like personal data (a decline's answer quotes
 * its reason). A group commit may take a key without that lock (store.recordKeysThen): a
 * command that finds the key taken when it saves undoes its run and replays that record.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { configure } from 'safe-stable-stringify';
import { currentKeyBytes, KeyRing, openPii, type SealingKeys, sealPii } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import { AppError, type ErrorCode, type FieldProblem } from '../http/errors.js';
import * as store from './store.js';

/** The key a request came with, and its fingerprint (see requestHasher). */
export interface IdempotencyKey {
  key: string;
  hash: Buffer;
  /** The fingerprints under previous master keys: a retry that straddles a rotation still replays. */
  previous?: readonly Buffer[];
}

/** Member order is not part of a JSON object's meaning: a retry that re-serializes its body is the same request. */
const canonicalJson = configure({ deterministic: true, strict: true });

/**
 * Identifies a request for replay: the route and the body, keys in sorted order. Keyed (HMAC
 * under a key derived from the master key), because an initiation's body holds personal data: a
 * plain hash stored beside it would let anyone holding the database test a guess of that data.
 */
export function requestHasher(masterKey: SealingKeys): (route: string, body: unknown) => Buffer {
  return hasherUnder(currentKeyBytes(masterKey));
}

function hasherUnder(masterKey: Buffer): (route: string, body: unknown) => Buffer {
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
const REMEMBERED_REFUSALS = new Set<ErrorCode>([
  'FORBIDDEN',
  'NOT_FOUND',
  'INVALID_STATE',
  'ALREADY_EXISTS',
  'UNKNOWN_COUNTERPARTY',
]);

/** Whether a refusal is remembered as a key's first answer. */
export function isRememberedRefusal(err: unknown): err is AppError {
  return err instanceof AppError && REMEMBERED_REFUSALS.has(err.code);
}

/** Expired records are deleted at most this often per process (when keys are used), in batches. */
const PURGE_EVERY_MS = 60_000;
const PURGE_BATCH = 10_000;

/** Thrown inside a keyed command's transaction to roll it back: another request holds the key. */
const KEY_TAKEN = Symbol('Idempotency-Key taken');

type Outcome<T> = { replay: store.StoredResponse } | { result: T } | { refused: AppError };

export class Idempotency {
  /** When this process last deleted expired records. */
  private lastPurge = 0;
  readonly requestHash: (route: string, body: unknown) => Buffer;
  private readonly previousHashes: ((route: string, body: unknown) => Buffer)[];

  constructor(
    private readonly db: Database,
    private readonly masterKey: SealingKeys,
  ) {
    this.requestHash = requestHasher(masterKey);
    const previous = masterKey instanceof KeyRing ? masterKey.all().slice(1) : [];
    this.previousHashes = previous.map((k) => hasherUnder(k.bytes()));
  }

  /** A request's fingerprint under the current master key, and under the previous ones (SPEC §14). */
  requestFingerprint(route: string, body: unknown): { hash: Buffer; previous: Buffer[] } {
    return { hash: this.requestHash(route, body), previous: this.previousHashes.map((h) => h(route, body)) };
  }

  /** Runs `fn` in one database transaction; with a key, replays or records the first answer. */
  async run<T>(
    orgId: string,
    idem: IdempotencyKey | undefined,
    fn: (tx: Queryable) => Promise<T>,
  ): Promise<T> {
    if (!idem) return this.db.transaction(fn);
    const prior = await store.findIdempotent(this.db, orgId, idem.key);
    if (prior) return this.replay<T>(orgId, prior, idem);
    this.purgeExpired();
    const outcome = await this.db
      .transaction(async (tx): Promise<Outcome<T>> => {
        await store.lockIdempotencyKey(tx, orgId, idem.key);
        const first = await store.findIdempotent(tx, orgId, idem.key);
        if (first) return { replay: first };
        await tx.query('SAVEPOINT command');
        let answer: { result: T } | { refused: AppError };
        try {
          answer = { result: await fn(tx) };
        } catch (err) {
          if (!isRememberedRefusal(err)) throw err;
          await tx.query('ROLLBACK TO SAVEPOINT command');
          answer = { refused: err };
        }
        const stored =
          'result' in answer
            ? answer.result
            : { code: answer.refused.code, detail: answer.refused.detail, errors: answer.refused.errors };
        const sealed = sealPii(this.masterKey, context(orgId, idem.key), JSON.stringify(stored));
        if (!(await store.saveIdempotent(tx, orgId, idem.key, idem.hash, sealed, 'refused' in answer))) {
          throw KEY_TAKEN;
        }
        return answer;
      })
      .catch(async (err): Promise<Outcome<T>> => {
        if (err !== KEY_TAKEN) throw err;
        const live = await store.findIdempotent(this.db, orgId, idem.key);
        if (!live) throw new Error('the Idempotency-Key record that took the key is gone');
        return { replay: live };
      });
    if ('replay' in outcome) return this.replay<T>(orgId, outcome.replay, idem);
    if ('refused' in outcome) throw outcome.refused;
    return outcome.result;
  }

  /** Deletes expired records in the background, at most every PURGE_EVERY_MS. */
  purgeExpired(): void {
    if (Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    void (async () => {
      // Batches until one comes back short: a backlog (or a high keyed rate) is cleared, in steps.
      for (let i = 0; i < 100 && (await store.purgeIdempotent(this.db, PURGE_BATCH)) === PURGE_BATCH; i++);
    })().catch(() => {
      // the next keyed command tries again a minute later
    });
  }

  private replay<T>(orgId: string, prior: store.StoredResponse, idem: IdempotencyKey): T {
    if (!prior.hash.equals(idem.hash) && !idem.previous?.some((h) => prior.hash.equals(h))) {
      throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used with a different request.');
    }
    const response =
      prior.sealed === null
        ? prior.response
        : JSON.parse(openPii(this.masterKey, context(orgId, idem.key), prior.sealed));
    if (prior.failed) {
      const refused = response as { code: ErrorCode; detail: string; errors?: FieldProblem[] };
      throw new AppError(refused.code, refused.detail, refused.errors);
    }
    return response as T;
  }
}

/** Associated data of a sealed answer: the organization and its key (exported for rekey). */
export const context = (orgId: string, key: string) => `idempotency:${orgId}/${key}`;
