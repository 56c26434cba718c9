/**
 * The directory: organizations, their API keys and webhook secrets. Every change runs in one
 * database transaction with its audit row. Directory fields are validated here (not only by
 * the JSON schema) because their rules need code: DID syntax, a parseable public key of an
 * allowed type, and a webhook endpoint the SSRF policy accepts.
 */
import { randomUUID } from 'node:crypto';
import { type Actor, recordAudit } from '../audit/store.js';
import { openPii, sealPii } from '../crypto/envelope.js';
import { parseParticipantPublicKey } from '../crypto/public-key.js';
import { type Database, isUniqueViolation, type Queryable } from '../db/database.js';
import { generateWebhookSecret } from '../deliveries/signing.js';
import { validateEndpointUrl } from '../deliveries/ssrf.js';
import { AppError, type FieldProblem, notFound, validationFailed } from '../http/errors.js';
import { isDid } from '../text/formats.js';
import { generateApiKey } from './api-keys.js';
import { DirectoryCache } from './cache.js';
import type { CreateOrganization, Organization, UpdateOrganization } from './schemas.js';
import * as store from './store.js';

/**
 * Active API keys one organization may hold: plenty for one per service and environment, and a
 * bound on what a leaked or buggy key can pile up (every key is a row and a line of its list).
 */
export const MAX_ACTIVE_API_KEYS = 50;

/** How long a rotated-out webhook secret keeps signing (SPEC §5). */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export class DirectoryService {
  private readonly cache = new DirectoryCache();

  constructor(
    private readonly db: Database,
    private readonly masterKey: Buffer,
    private readonly allowPrivateEndpoints: boolean,
  ) {}

  list(filter: { organizationType?: string; vaspDid?: string }): Promise<Organization[]> {
    return store.listOrganizations(this.db, filter);
  }

  async get(id: string): Promise<Organization> {
    const org = await store.findOrganization(this.db, id);
    if (!org) throw notFound('The organization');
    return org;
  }

  findByDid(did: string): Promise<Organization | undefined> {
    return store.findOrganizationByDid(this.db, did);
  }

  async create(input: CreateOrganization, actor: Actor) {
    this.validate(input);
    const organization: Organization = {
      id: randomUUID(),
      name: input.name,
      vaspDid: input.vaspDid,
      travelEndpoint: input.travelEndpoint ?? null,
      publicKey: input.publicKey ?? null,
      organizationType: input.organizationType ?? 'unverified',
    };
    const key = generateApiKey();
    const webhookSecret = generateWebhookSecret();
    await this.write(async (tx) => {
      await store.insertOrganization(tx, organization);
      await store.insertApiKey(tx, { id: randomUUID(), organizationId: organization.id, ...key });
      await store.insertWebhookSecret(tx, {
        id: randomUUID(),
        organizationId: organization.id,
        sealed: sealPii(this.masterKey, secretContext(organization.id), webhookSecret),
      });
      await recordAudit(tx, {
        actor,
        action: 'organization.created',
        subjectType: 'organization',
        subjectId: organization.id,
        details: { vaspDid: organization.vaspDid, organizationType: organization.organizationType },
      });
    });
    return { organization, apiKey: key.key, webhookSecret };
  }

  /** Applies a partial update; `null` clears an optional field. */
  async update(id: string, patch: UpdateOrganization, actor: Actor): Promise<Organization> {
    this.validate(patch);
    return this.write(async (tx) => {
      // Under the row lock: a patch merges into the row as the one before it left it, so two
      // patches at once both hold (without it, the second wrote back what it read, undoing the first).
      if (!(await store.lockOrganization(tx, id))) throw notFound('The organization');
      const current = await store.findOrganization(tx, id);
      if (!current) throw notFound('The organization');
      const next: Organization = {
        ...current,
        ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
      };
      await store.updateOrganization(tx, next);
      await recordAudit(tx, {
        actor,
        action: 'organization.updated',
        subjectType: 'organization',
        subjectId: id,
        details: { fields: Object.keys(patch).sort() },
      });
      return next;
    });
  }

  async createApiKey(organizationId: string, actor: Actor): Promise<{ apiKey: string; keyId: string }> {
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
      await store.insertApiKey(tx, { id: keyId, organizationId, ...key });
      await recordAudit(tx, {
        actor,
        action: 'api_key.created',
        subjectType: 'api_key',
        subjectId: keyId,
        details: { organizationId, prefix: key.prefix },
      });
    });
    return { apiKey: key.key, keyId };
  }

  async listApiKeys(organizationId: string) {
    await this.get(organizationId);
    return store.listApiKeys(this.db, organizationId);
  }

  /**
   * Revokes a key, under its organization's row lock so that revocations of one organization take
   * turns. With `owner`, only a key of that organization may be revoked, and only while the key
   * making the request is still active: two keys revoking each other at once leave one working.
   */
  async revokeApiKey(keyId: string, actor: Actor, owner?: { organizationId: string; callerKeyId: string }) {
    await this.write(async (tx) => {
      const organizationId = owner?.organizationId ?? (await store.apiKeyOrganization(tx, keyId));
      if (!organizationId || !(await store.lockOrganization(tx, organizationId)))
        throw notFound('The API key');
      if (owner) {
        const keys = await store.listApiKeys(tx, owner.organizationId);
        if (!keys.some((k) => k.keyId === keyId)) throw notFound('The API key');
        if (!keys.some((k) => k.keyId === owner.callerKeyId && k.revokedAt === null)) {
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
   * organization without a working key; recovering from that would need the operator.
   */
  async revokeOwnApiKey(organizationId: string, keyId: string, callerKeyId: string): Promise<void> {
    if (keyId === callerKeyId) {
      throw new AppError(
        'INVALID_STATE',
        'This API key is making the request and stays active; revoke it with another key of the organization.',
      );
    }
    await this.revokeApiKey(keyId, `org:${organizationId}`, { organizationId, callerKeyId });
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

  /** Where webhooks to this organization go now, and its BASIC encryption key. */
  async recipient(organizationId: string) {
    return this.lookups.byId(organizationId);
  }

  authenticate(keyHash: Buffer): Promise<{ keyId: string; organizationId: string } | undefined> {
    return this.cache.get(`key:${keyHash.toString('base64')}`, () => store.findActiveKey(this.db, keyHash));
  }

  /** Cached look-ups for the hot path (initiation). */
  readonly lookups = {
    byId: (id: string) => this.cache.get(`org:${id}`, () => store.findOrganization(this.db, id)),
    byDid: (did: string) => this.cache.get(`did:${did}`, () => store.findOrganizationByDid(this.db, did)),
  };

  /** Drops cached directory data whenever any hub process changes the directory. */
  async watch(): Promise<() => Promise<void>> {
    return this.db.listen('hub_directory', () => this.cache.clear());
  }

  /** Every directory write: one transaction, the cache cleared at commit; vaspDid collisions → 409. */
  private async write<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(fn);
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new AppError('ALREADY_EXISTS', 'An organization with this vaspDid already exists.', [
          { path: '/vaspDid', message: 'already registered' },
        ]);
      }
      throw err;
    } finally {
      this.cache.clear();
    }
  }

  private validate(fields: {
    vaspDid?: string;
    travelEndpoint?: string | null;
    publicKey?: string | null;
  }): void {
    const problems: FieldProblem[] = [];
    if (fields.vaspDid !== undefined && !isDid(fields.vaspDid)) {
      problems.push({ path: '/vaspDid', message: 'must be a DID such as did:web:vasp.example' });
    }
    if (fields.travelEndpoint != null) {
      const err = validateEndpointUrl(fields.travelEndpoint, this.allowPrivateEndpoints);
      if (err) problems.push({ path: '/travelEndpoint', message: err });
    }
    if (fields.publicKey != null) {
      const parsed = parseParticipantPublicKey(fields.publicKey);
      if (!parsed.ok) problems.push({ path: '/publicKey', message: parsed.message });
    }
    if (problems.length > 0) throw validationFailed(problems);
  }
}

/** Associated data for sealed webhook secrets, distinct from any transaction reference. */
const secretContext = (organizationId: string) => `webhook-secret:${organizationId}`;
