/**
 * An organization's credentials: API keys (scoped, several, revocable, stored as SHA-256) and its
 * Standard Webhooks signing secrets (sealed at rest; a rotation overlaps for 24 h). Every change
 * runs in one database transaction with its audit row, under the organization's row lock so that
 * concurrent changes take turns.
 */
import { randomUUID } from 'node:crypto';
import { type Actor, recordAudit } from '../audit/store.js';
import { openPii, type SealingKeys, sealPii } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import { generateWebhookSecret } from '../deliveries/signing.js';
import type { Scope } from '../http/auth.js';
import { AppError, notFound, validationFailed } from '../http/errors.js';
import { generateApiKey } from './api-keys.js';
import type { DirectoryCache } from './cache.js';
import * as store from './store.js';

/**
 * Active API keys one organization may hold: plenty for one per service and environment, and a
 * bound on what a leaked or buggy key can pile up (every key is a row and a line of its list).
 */
export const MAX_ACTIVE_API_KEYS = 50;

/** How long a rotated-out webhook secret keeps signing (SPEC §5). */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Associated data for sealed webhook secrets, distinct from any transaction reference. */
export const secretContext = (organizationId: string) => `webhook-secret:${organizationId}`;

export class Credentials {
  constructor(
    private readonly db: Database,
    private readonly masterKey: SealingKeys,
    private readonly cache: DirectoryCache,
    /** Runs a directory write: one transaction, the cache cleared at commit. */
    private readonly write: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>,
  ) {}

  /** The first key and secret of a new organization, inside its creating transaction. */
  async issueFirst(
    tx: Queryable,
    organizationId: string,
  ): Promise<{ apiKey: string; webhookSecret: string }> {
    const key = generateApiKey();
    const webhookSecret = generateWebhookSecret();
    await store.insertApiKey(tx, { id: randomUUID(), organizationId, scope: 'full', ...key });
    await store.insertWebhookSecret(tx, {
      id: randomUUID(),
      organizationId,
      sealed: sealPii(this.masterKey, secretContext(organizationId), webhookSecret),
    });
    return { apiKey: key.key, webhookSecret };
  }

  /** `label` says what the key is for; `ownerUserId` names the person who answers for it (a user of the organization). */
  async createApiKey(
    organizationId: string,
    actor: Actor,
    scope: Scope = 'full',
    about: { label?: string | null; ownerUserId?: string | null } = {},
  ) {
    const label = about.label ?? null;
    const ownerUserId = about.ownerUserId ?? null;
    const key = generateApiKey();
    const keyId = randomUUID();
    await this.write(async (tx) => {
      if (!(await store.lockOrganization(tx, organizationId))) throw notFound('The organization');
      if ((await store.countActiveApiKeys(tx, organizationId)) >= MAX_ACTIVE_API_KEYS) {
        throw new AppError(
          'INVALID_STATE',
          `The organization already has ${MAX_ACTIVE_API_KEYS} active API keys; revoke one before issuing another.`,
        );
      }
      if (ownerUserId !== null && !(await store.isActiveUserOf(tx, ownerUserId, organizationId))) {
        throw validationFailed([
          { path: '/owner', message: 'must be the id of a person in the organization' },
        ]);
      }
      await store.insertApiKey(tx, { id: keyId, organizationId, scope, label, ownerUserId, ...key });
      await recordAudit(tx, {
        actor,
        action: 'api_key.created',
        subjectType: 'api_key',
        subjectId: keyId,
        details: { organizationId, prefix: key.prefix, scope, label, owner: ownerUserId },
      });
    });
    return { apiKey: key.key, keyId, scope, label, owner: ownerUserId };
  }

  async listApiKeys(organizationId: string) {
    if (!(await store.findOrganization(this.db, organizationId))) throw notFound('The organization');
    return store.listApiKeys(this.db, organizationId);
  }

  /**
   * Revokes a key, under its organization's row lock so that revocations of one organization take
   * turns. With `owner`, only a key of that organization may be revoked, and only while the key
   * making the request is still active: two keys revoking each other at once leave one working.
   */
  async revokeApiKey(
    keyId: string,
    actor: Actor,
    owner?: { organizationId: string; callerKeyId: string | null },
  ) {
    await this.write(async (tx) => {
      const organizationId = owner?.organizationId ?? (await store.apiKeyOrganization(tx, keyId));
      if (!organizationId || !(await store.lockOrganization(tx, organizationId)))
        throw notFound('The API key');
      if (owner) {
        const keys = await store.listApiKeys(tx, owner.organizationId);
        if (!keys.some((k) => k.keyId === keyId)) throw notFound('The API key');
        if (
          owner.callerKeyId !== null &&
          !keys.some((k) => k.keyId === owner.callerKeyId && k.revokedAt === null)
        ) {
          throw new AppError('UNAUTHENTICATED', 'The API key making this request has just been revoked.');
        }
      }
      const revoked = await store.revokeApiKey(tx, keyId);
      if (!revoked) throw notFound('The API key');
      await recordAudit(tx, {
        actor,
        action: 'api_key.revoked',
        subjectType: 'api_key',
        subjectId: keyId,
        details: { organizationId: revoked.organizationId },
      });
    });
  }

  /**
   * Self-service revocation: an organization revokes one of its own keys (any other key id is
   * NOT_FOUND), but never the key it is calling with. So self-service can never leave an
   * organization without a working key; recovering from that would need the operator. A signed-in
   * admin (no calling key: `callerKeyId` null) may revoke any of them.
   */
  async revokeOwnApiKey(
    organizationId: string,
    keyId: string,
    callerKeyId: string | null,
    actor: Actor = `org:${organizationId}`,
  ): Promise<void> {
    if (keyId === callerKeyId) {
      throw new AppError(
        'INVALID_STATE',
        'This API key is making the request and stays active; revoke it with another key of the organization.',
      );
    }
    await this.revokeApiKey(keyId, actor, { organizationId, callerKeyId });
  }

  /** Issues a new webhook secret; the previous one keeps signing for SECRET_OVERLAP_MS, older ones stop. */
  async rotateWebhookSecret(organizationId: string, actor: Actor) {
    const webhookSecret = generateWebhookSecret();
    const until = new Date(Date.now() + SECRET_OVERLAP_MS);
    await this.write(async (tx) => {
      // Concurrent rotations (a double click, a retried request) take turns, so each one ends the
      // secret the one before it opened and at most two ever sign.
      if (!(await store.lockOrganization(tx, organizationId))) throw notFound('The organization');
      await store.expireWebhookSecrets(tx, organizationId, until);
      await store.insertWebhookSecret(tx, {
        id: randomUUID(),
        organizationId,
        sealed: sealPii(this.masterKey, secretContext(organizationId), webhookSecret),
      });
      await recordAudit(tx, {
        actor,
        action: 'webhook_secret.rotated',
        subjectType: 'webhook_secret',
        subjectId: organizationId,
      });
    });
    return { webhookSecret, previousSecretValidUntil: until.toISOString() };
  }

  /** The secrets that sign a delivery to this org right now, newest first. */
  async webhookSecrets(organizationId: string): Promise<string[]> {
    const secrets = await this.cache.get(`secrets:${organizationId}`, async () => {
      const sealed = await store.activeWebhookSecrets(this.db, organizationId);
      return sealed.map((s) => openPii(this.masterKey, secretContext(organizationId), s));
    });
    return secrets ?? [];
  }

  authenticate(keyHash: Buffer) {
    return this.cache.get(`key:${keyHash.toString('base64')}`, () => store.findActiveKey(this.db, keyHash));
  }
}
