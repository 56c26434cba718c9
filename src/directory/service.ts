/**
 * The directory: organizations, with their credentials (keys.ts). Every change runs in one
 * database transaction with its audit row. Directory fields are validated here (not only by the
 * JSON schema) because their rules need code: DID and e-mail syntax, printable names, a parseable
 * public key of an allowed type, and a webhook endpoint the SSRF policy accepts.
 *
 * Where an organization's data goes is guarded (SPEC §13): a change of its travelEndpoint,
 * publicKey or contactEmail is audited with the old and new value, and its contact address as it
 * was before the change (then the new one) is told by e-mail, so a stolen key cannot move the
 * contact first and then redirect data unseen. At most CONTACT_NOTICES_PER_DAY such e-mails go out
 * per organization per UTC day (the hub sends them in its own name, to addresses members choose);
 * changes past that still apply and are audited. A verified organization that renames itself is
 * unverified until the operator verifies it again, since the badge vouched for the old name.
 */
import { randomUUID } from 'node:crypto';
import { type Actor, recordAudit } from '../audit/store.js';
import type { SealingKeys } from '../crypto/envelope.js';
import { keyFingerprint, parseParticipantPublicKey } from '../crypto/public-key.js';
import { type Database, isUniqueViolation, type Queryable } from '../db/database.js';
import { email } from '../deliveries/events.js';
import { enqueue } from '../deliveries/outbox.js';
import { validateEndpointUrl } from '../deliveries/ssrf.js';
import { AppError, type FieldProblem, notFound, validationFailed } from '../http/errors.js';
import { isLei } from '../ivms101/codes.js';
import { isJurisdiction } from '../rules/jurisdictions.js';
import { isDid, isEmail, isPrintableName, NAME_RULE } from '../text/formats.js';
import { DirectoryCache } from './cache.js';
import { Credentials } from './keys.js';
import type { CreateOrganization, OrganizationDetail, UpdateOrganization } from './schemas.js';
import * as store from './store.js';

/** Fields whose change redirects an organization's data or its notices: audited old → new, and e-mailed. */
const GUARDED = ['travelEndpoint', 'publicKey', 'contactEmail'] as const;

/** Notices of changes (e-mails) per organization per UTC day. */
export const CONTACT_NOTICES_PER_DAY = 10;

export class DirectoryService {
  private readonly cache = new DirectoryCache();
  readonly credentials: Credentials;

  constructor(
    private readonly db: Database,
    masterKey: SealingKeys,
    private readonly allowPrivateEndpoints: boolean,
  ) {
    this.credentials = new Credentials(db, masterKey, this.cache, (fn) => this.write(fn));
  }

  list(filter: {
    organizationType?: string;
    vaspDid?: string;
    jurisdiction?: string;
    lei?: string;
  }): Promise<OrganizationDetail[]> {
    return store.listOrganizations(this.db, filter);
  }

  async get(id: string): Promise<OrganizationDetail> {
    const org = await store.findOrganization(this.db, id);
    if (!org) throw notFound('The organization');
    return org;
  }

  async create(input: CreateOrganization, actor: Actor) {
    this.check(input);
    return this.write((tx) => this.insert(tx, input, actor));
  }

  /**
   * Registers an organization inside a write of the caller's (see `write`), after checking its
   * fields; returns it with its first API key and webhook secret.
   */
  createIn(tx: Queryable, input: CreateOrganization, actor: Actor) {
    this.check(input);
    return this.insert(tx, input, actor);
  }

  private async insert(tx: Queryable, input: CreateOrganization, actor: Actor) {
    const organization: OrganizationDetail = {
      id: randomUUID(),
      name: input.name,
      vaspDid: input.vaspDid,
      travelEndpoint: input.travelEndpoint ?? null,
      publicKey: input.publicKey ?? null,
      organizationType: input.organizationType ?? 'unverified',
      contactEmail: input.contactEmail ?? null,
      ivms101Version: input.ivms101Version ?? '2020',
      jurisdiction: input.jurisdiction ?? null,
      lei: input.lei ?? null,
    };
    await store.insertOrganization(tx, organization);
    const issued = await this.credentials.issueFirst(tx, organization.id);
    await recordAudit(tx, {
      actor,
      action: 'organization.created',
      subjectType: 'organization',
      subjectId: organization.id,
      details: { vaspDid: organization.vaspDid, organizationType: organization.organizationType },
    });
    return { organization, ...issued };
  }

  /**
   * Applies a partial update; `null` clears an optional field. `self`: the organization changes
   * its own entry (a new name then costs the verified badge).
   */
  async update(
    id: string,
    patch: UpdateOrganization,
    actor: Actor,
    { self = false } = {},
  ): Promise<OrganizationDetail> {
    this.check(patch);
    return this.write(async (tx) => {
      // Under the row lock: a patch merges into the row as the one before it left it, so two
      // patches at once both hold (without it, the second wrote back what it read, undoing the first).
      if (!(await store.lockOrganization(tx, id))) throw notFound('The organization');
      const current = await store.findOrganization(tx, id);
      if (!current) throw notFound('The organization');
      const next: OrganizationDetail = {
        ...current,
        ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
      };
      const renamed = self && next.name !== current.name && current.organizationType === 'verified';
      if (renamed) next.organizationType = 'unverified';
      await store.updateOrganization(tx, next);
      const changes = GUARDED.filter((f) => next[f] !== current[f]).map((field) => ({
        field,
        from: current[field],
        to: next[field],
      }));
      const withheld = changes.length > 0 ? await this.noticeOfChange(tx, current, next, changes, actor) : 0;
      await recordAudit(tx, {
        actor,
        action: 'organization.updated',
        subjectType: 'organization',
        subjectId: id,
        details: {
          fields: Object.keys(patch).sort(),
          ...(changes.length === 0 ? {} : { changes }),
          ...(withheld === 0 ? {} : { noticesWithheld: withheld }),
          ...(renamed ? { unverified: 'renamed by the organization' } : {}),
        },
      });
      return next;
    });
  }

  /**
   * E-mails the contact address before the change, then the one after it, what was changed; no
   * secrets. Within the day's allowance, the previous contact first; returns how many notices the
   * allowance withheld.
   */
  private async noticeOfChange(
    tx: Queryable,
    before: OrganizationDetail,
    after: OrganizationDetail,
    changes: { field: (typeof GUARDED)[number]; from: string | null; to: string | null }[],
    actor: Actor,
  ): Promise<number> {
    const wanted = [...new Set([before.contactEmail, after.contactEmail])].filter((a) => a !== null);
    if (wanted.length === 0) return 0;
    const allowed = await store.takeContactNotices(tx, after.id, wanted.length, CONTACT_NOTICES_PER_DAY);
    const recipients = wanted.slice(0, allowed);
    const shown = (field: string, value: string | null) =>
      value === null ? null : field === 'publicKey' ? keyFingerprint(value) : value;
    const payload = {
      organizationId: after.id,
      organizationName: after.name,
      vaspDid: after.vaspDid,
      changes: changes.map((c) => ({
        field: c.field,
        from: shown(c.field, c.from),
        to: shown(c.field, c.to),
      })),
      changedBy: actor.startsWith('operator:')
        ? 'the hub operator'
        : 'the organization, with one of its API keys',
      at: new Date().toISOString(),
    };
    await enqueue(
      tx,
      recipients.map((to) => email('endpoint-changed', to, null, payload)),
    );
    return wanted.length - recipients.length;
  }

  findByDid(did: string): Promise<OrganizationDetail | undefined> {
    return store.findOrganizationByDid(this.db, did);
  }

  /** Where webhooks to this organization go now, and its BASIC encryption key. */
  async recipient(organizationId: string) {
    return this.lookups.byId(organizationId);
  }

  webhookSecrets(organizationId: string): Promise<string[]> {
    return this.credentials.webhookSecrets(organizationId);
  }

  authenticate(keyHash: Buffer) {
    return this.credentials.authenticate(keyHash);
  }

  /** Cached look-ups for the hot path (initiation). */
  readonly lookups = {
    byId: (id: string) => this.cache.get(`org:${id}`, () => store.findOrganization(this.db, id)),
    byDid: (did: string) => this.cache.get(`did:${did}`, () => store.findOrganizationByDid(this.db, did)),
  };

  /** Drops this process's cached directory data (other processes hear of changes by NOTIFY). */
  invalidate(): void {
    this.cache.clear();
  }

  /** A read-through look-up cached with the directory (cleared by every directory change). */
  cached<T>(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    return this.cache.get(key, load);
  }

  /** Drops cached directory data whenever any hub process changes the directory. */
  async watch(): Promise<() => Promise<void>> {
    return this.db.listen('hub_directory', () => this.cache.clear());
  }

  /**
   * Every directory write: one transaction, the cache cleared at commit; vaspDid collisions → 409.
   * Other domains whose writes create organizations (an approved application) run in one too.
   */
  async write<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
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

  /** Checks directory fields (a request's or an application's); 400 listing every problem. */
  check(fields: {
    name?: string;
    vaspDid?: string;
    travelEndpoint?: string | null;
    publicKey?: string | null;
    contactEmail?: string | null;
    jurisdiction?: string | null;
    lei?: string | null;
  }): void {
    const problems: FieldProblem[] = [];
    if (fields.name !== undefined && !isPrintableName(fields.name)) {
      problems.push({ path: '/name', message: NAME_RULE });
    }
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
    if (fields.contactEmail != null && !isEmail(fields.contactEmail)) {
      problems.push({ path: '/contactEmail', message: 'must be an e-mail address' });
    }
    if (fields.jurisdiction != null && !isJurisdiction(fields.jurisdiction)) {
      problems.push({
        path: '/jurisdiction',
        message: 'must be an ISO 3166-1 alpha-2 country code in upper case',
      });
    }
    if (fields.lei != null && !isLei(fields.lei)) {
      problems.push({
        path: '/lei',
        message: 'must be an ISO 17442 LEI: 20 characters with valid check digits',
      });
    }
    if (problems.length > 0) throw validationFailed(problems);
  }
}
