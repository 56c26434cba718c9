/**
 * Named operators (SPEC §13). HUB_ADMIN_KEY is the bootstrap operator; it creates named ones, each
 * with a key of its own (shown once, stored as SHA-256, revocable), so that every operator action
 * in the audit names a person (`operator:<id>:<name>`) and a departing operator's access ends with
 * one revocation. Names are unique among active operators in their NFKC case-folded form, so no
 * two look alike. Every change runs in one database transaction with its audit row.
 */
import { randomUUID } from 'node:crypto';
import { type Actor, recordAudit } from '../audit/store.js';
import { type Database, isUniqueViolation } from '../db/database.js';
import { generateOperatorKey } from '../directory/api-keys.js';
import type { DirectoryService } from '../directory/service.js';
import { AppError, notFound, validationFailed } from '../http/errors.js';
import { isPrintableName, NAME_RULE, nameKey } from '../text/formats.js';
import type { Operator } from './schemas.js';
import * as store from './store.js';

/** Names the audit uses for the bootstrap key and the command line. */
const RESERVED = new Set(['bootstrap', 'cli']);

export class OperatorService {
  constructor(
    private readonly db: Database,
    /** Operator keys are cached with the directory's keys and dropped with them on any change. */
    private readonly directory: DirectoryService,
  ) {}

  list(): Promise<Operator[]> {
    return store.listOperators(this.db);
  }

  async create(name: string, actor: Actor): Promise<{ operator: Operator; apiKey: string }> {
    if (!isPrintableName(name)) throw validationFailed([{ path: '/name', message: NAME_RULE }]);
    if (RESERVED.has(nameKey(name))) {
      throw validationFailed([{ path: '/name', message: `is reserved (${[...RESERVED].join(', ')})` }]);
    }
    const key = generateOperatorKey();
    try {
      const operator = await this.db.transaction(async (tx) => {
        const created = await store.insertOperator(tx, {
          id: randomUUID(),
          name,
          nameKey: nameKey(name),
          ...key,
          createdBy: actor,
        });
        await recordAudit(tx, {
          actor,
          action: 'operator.created',
          subjectType: 'operator',
          subjectId: created.id,
          details: { name, prefix: key.prefix },
        });
        return created;
      });
      return { operator, apiKey: key.key };
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new AppError(
          'ALREADY_EXISTS',
          'An active operator already has this name (or one that looks the same).',
          [{ path: '/name', message: 'already in use' }],
        );
      }
      throw err;
    } finally {
      this.directory.invalidate();
    }
  }

  /** Revokes a named operator, never the one making the request (so an operator is always left). */
  async revoke(id: string, actor: Actor, callerId: string | null): Promise<void> {
    if (id === callerId) {
      throw new AppError('INVALID_STATE', 'An operator cannot revoke itself; ask another operator.');
    }
    try {
      await this.db.transaction(async (tx) => {
        const revoked = await store.revokeOperator(tx, id);
        if (!revoked) throw notFound('The operator');
        await recordAudit(tx, {
          actor,
          action: 'operator.revoked',
          subjectType: 'operator',
          subjectId: id,
          details: { name: revoked.name },
        });
      });
    } finally {
      this.directory.invalidate();
    }
  }

  authenticate(keyHash: Buffer): Promise<{ id: string; name: string } | undefined> {
    return this.directory.cached(`operator:${keyHash.toString('base64')}`, () =>
      store.findActiveOperator(this.db, keyHash),
    );
  }
}
