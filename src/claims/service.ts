/**
 * The NOTIFY sunrise path (SPEC §12). The NOTIFY e-mail carries a claim link; with it the outside
 * exchange either applies to join (the operator reviews the application) or, already a member,
 * attaches the transaction to itself. The link works while the transaction is open and was not
 * attached through: a rejected application frees it for a new one, never while one is pending or
 * after an approval. Whoever holds it sees the latest application's state, dates and the
 * operator's reason, never what the applicant gave beyond that. The first load of the claim page
 * is recorded once (`opened`), for the originator's view of the progress (progress.ts). A NOTIFY that named a member cannot be applied through (409),
 * so an outsider who sees its link cannot use it up. Approval creates the organization, verified,
 * e-mails a single-use link to its credentials to the address the claim link went to (the only
 * inbox the applicant proved it reads; its contact, if another, hears of it without the link), and
 * attaches the transaction. The review shows that address as the originator chose it (review.ts).
 * A link that is unknown, used, or whose transaction is final is 404, with nothing said about which.
 * Every change runs in one database transaction with its audit row.
 */
import { randomUUID } from 'node:crypto';
import { type Actor, recordAudit } from '../audit/store.js';
import { openPii, type SealingKeys, sealPii } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import { email } from '../deliveries/events.js';
import { enqueue } from '../deliveries/outbox.js';
import type { DirectoryService } from '../directory/service.js';
import { findOrganization, findOrganizationByDid } from '../directory/store.js';
import { AppError, notFound } from '../http/errors.js';
import type { Lifecycle } from '../transactions/lifecycle.js';
import { FINAL_STATES } from '../transactions/state-machine.js';
import { reviewClaimAddress } from './review.js';
import type { Application, ApplicationRequest } from './schemas.js';
import * as store from './store.js';
import { type LinkTokens, TOKEN_PATTERN, tokenHash } from './tokens.js';

/** How long the credentials link of an approved application works. */
export const PICKUP_TTL_MS = 24 * 60 * 60 * 1000;

const invalidLink = () => notFound('The link');
export const pickupContext = (id: string) => `credentials:${id}`;

export class ClaimService {
  constructor(
    private readonly db: Database,
    private readonly masterKey: SealingKeys,
    private readonly tokens: LinkTokens,
    private readonly directory: DirectoryService,
    private readonly lifecycle: Lifecycle,
  ) {}

  /** The hash to store for a new NOTIFY transaction's claim link. */
  claimHash(transactionRef: string): Buffer {
    return tokenHash(this.tokens.claimToken(transactionRef));
  }

  /**
   * What the claim page shows: the announcement, never personal data, and the latest application's
   * state. The first load is recorded (`opened`); later loads write nothing.
   */
  async view(token: string) {
    const claim = await this.open(this.db, token);
    if (claim.openedAt === null) await this.markOpened(claim.ref);
    const [originator, latest] = await Promise.all([
      findOrganization(this.db, claim.originatorId),
      store.latestApplication(this.db, claim.ref),
    ]);
    return {
      transactionRef: claim.ref,
      transactionAsset: claim.asset,
      transactionAmount: claim.amount,
      destination: claim.destination,
      originator: { name: originator?.name ?? claim.originatorDid, vaspDid: claim.originatorDid },
      announcedAt: claim.createdAt,
      application: latest
        ? {
            status: latest.status,
            appliedAt: latest.createdAt,
            decidedAt: latest.decidedAt,
            rejectReason: latest.status === 'rejected' ? latest.rejectReason : null,
          }
        : null,
      canApply: claim.beneficiaryId === null && (latest === undefined || latest.status === 'rejected'),
    };
  }

  /** Records the claim page's first load with its audit row; a concurrent first load writes nothing. */
  private async markOpened(ref: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!(await store.markOpened(tx, ref))) return;
      await recordAudit(tx, {
        actor: `claim:${ref}`,
        action: 'claim.opened',
        subjectType: 'transaction',
        subjectId: ref,
      });
    });
  }

  /**
   * An outside exchange applies to join through the link: refused while an application through it
   * is pending or after one was approved; after a rejection, a new one is welcome.
   */
  async apply(
    token: string,
    body: ApplicationRequest,
  ): Promise<{ applicationId: string; status: 'pending' }> {
    this.directory.check(body);
    return this.db.transaction(async (tx) => {
      const claim = await this.open(tx, token, true);
      await this.refuseIfTaken(tx, claim.ref);
      if (claim.beneficiaryId !== null) {
        throw new AppError(
          'INVALID_STATE',
          'The transfer was announced to a member of the hub; that member attaches it with its API key.',
        );
      }
      if (await findOrganizationByDid(tx, body.vaspDid)) {
        throw new AppError(
          'ALREADY_EXISTS',
          'An organization with this vaspDid is already a member; attach the transfer with its API key instead.',
          [{ path: '/vaspDid', message: 'already registered' }],
        );
      }
      const application = await store.insertApplication(tx, {
        id: randomUUID(),
        transactionRef: claim.ref,
        name: body.name,
        vaspDid: body.vaspDid,
        travelEndpoint: body.travelEndpoint ?? null,
        publicKey: body.publicKey ?? null,
        contactEmail: body.contactEmail,
        notificationEmail: claim.notificationEmail ?? body.contactEmail,
      });
      await store.useClaim(tx, claim.ref, 'application');
      await enqueue(tx, [
        email('application-received', body.contactEmail, null, {
          organizationName: body.name,
          appliedAt: application.createdAt,
        }),
      ]);
      await recordAudit(tx, {
        actor: `claim:${claim.ref}`,
        action: 'application.created',
        subjectType: 'application',
        subjectId: application.id,
        details: { vaspDid: body.vaspDid, transactionRef: claim.ref },
      });
      return { applicationId: application.id, status: 'pending' as const };
    });
  }

  /**
   * A member attaches the transaction to itself through the link, which it uses up (refused while
   * an application through it is pending or approved); `actor` is
   * the person who did it (`user:<id>`, SPEC §17), else the organization.
   */
  async attach(token: string, orgId: string, actor: Actor = `org:${orgId}`) {
    return this.db.transaction(async (tx) => {
      const claim = await this.open(tx, token, true);
      if (claim.originatorId === orgId) throw invalidLink();
      await this.refuseIfTaken(tx, claim.ref);
      await this.lifecycle.attach(tx, claim.ref, orgId);
      await store.useClaim(tx, claim.ref, 'attach');
      await recordAudit(tx, {
        actor,
        action: 'transaction.claimed',
        subjectType: 'transaction',
        subjectId: claim.ref,
        ...(actor.startsWith('user:') ? { details: { organizationId: orgId } } : {}),
      });
      return { transactionRef: claim.ref, status: 'RECEIVER_NOTIFIED', beneficiaryVASPid: orgId };
    });
  }

  async applications(status?: string): Promise<{ applications: Application[]; pending: number }> {
    const [stored, pending] = await Promise.all([
      store.listApplications(this.db, status),
      store.countPending(this.db),
    ]);
    return { applications: await this.reviewed(this.db, stored), pending };
  }

  /** How many applications wait for the operator (the operator's queue). */
  pendingCount(): Promise<number> {
    return store.countPending(this.db);
  }

  /** Applications with the review of their claim addresses. */
  private async reviewed(q: Queryable, stored: store.StoredApplication[]): Promise<Application[]> {
    const originators = await store.claimOriginators(q, [...new Set(stored.map((a) => a.transactionRef))]);
    return stored.map((a) => ({
      ...a,
      claimAddress: reviewClaimAddress({
        address: a.notificationEmail,
        applicant: a,
        originator: originators.get(a.transactionRef) ?? null,
      }),
    }));
  }

  /**
   * Approves an application: the organization is created (verified), its credentials wait sealed
   * behind a single-use link e-mailed to the address the claim link went to (its contact, if
   * another, gets a notice without the link), and the transaction, if still open, becomes its.
   */
  async approve(id: string, actor: Actor): Promise<Application> {
    return this.directory.write(async (tx) => {
      const a = await this.pending(tx, id);
      const created = await this.directory.createIn(
        tx,
        {
          name: a.name,
          vaspDid: a.vaspDid,
          travelEndpoint: a.travelEndpoint ?? undefined,
          publicKey: a.publicKey ?? undefined,
          contactEmail: a.contactEmail,
          organizationType: 'verified',
        },
        actor,
      );
      const org = created.organization;
      const pickupId = randomUUID();
      const expiresAt = new Date(Date.now() + PICKUP_TTL_MS);
      const secrets = JSON.stringify({ apiKey: created.apiKey, webhookSecret: created.webhookSecret });
      await store.insertPickup(tx, {
        id: pickupId,
        organizationId: org.id,
        hash: tokenHash(this.tokens.pickupToken(pickupId)),
        sealed: sealPii(this.masterKey, pickupContext(pickupId), secrets),
        expiresAt,
      });
      const sameInbox = a.contactEmail.toLowerCase() === a.notificationEmail.toLowerCase();
      await enqueue(tx, [
        email('application-approved', a.notificationEmail, null, {
          organizationId: org.id,
          organizationName: org.name,
          pickupId,
          expiresAt: expiresAt.toISOString(),
        }),
        ...(sameInbox
          ? []
          : [
              email('application-approved-contact', a.contactEmail, null, {
                organizationId: org.id,
                organizationName: org.name,
                credentialsSentTo: a.notificationEmail,
              }),
            ]),
      ]);
      // A transaction that ended meanwhile stays as it is; the organization joins all the same.
      await this.lifecycle.attach(tx, a.transactionRef, org.id, { ifOpen: true });
      await recordAudit(tx, {
        actor,
        action: 'application.approved',
        subjectType: 'application',
        subjectId: id,
        details: { organizationId: org.id, transactionRef: a.transactionRef },
      });
      const decided = await store.decideApplication(tx, id, {
        status: 'approved',
        by: actor,
        organizationId: org.id,
      });
      return (await this.reviewed(tx, [decided]))[0]!;
    });
  }

  async reject(id: string, reason: string, actor: Actor): Promise<Application> {
    return this.db.transaction(async (tx) => {
      const a = await this.pending(tx, id);
      const decided = await store.decideApplication(tx, id, {
        status: 'rejected',
        by: actor,
        rejectReason: reason,
      });
      await enqueue(tx, [
        email('application-rejected', a.contactEmail, null, {
          organizationName: a.name,
          reason,
          decidedAt: decided.decidedAt ?? new Date().toISOString(),
        }),
      ]);
      await recordAudit(tx, {
        actor,
        action: 'application.rejected',
        subjectType: 'application',
        subjectId: id,
        details: { transactionRef: a.transactionRef },
      });
      return (await this.reviewed(tx, [decided]))[0]!;
    });
  }

  /** Shows an approved applicant its first API key and webhook secret, once. */
  async pickup(token: string) {
    if (!TOKEN_PATTERN.test(token)) throw invalidLink();
    return this.db.transaction(async (tx) => {
      const taken = await store.takePickup(tx, tokenHash(token));
      if (!taken) throw invalidLink();
      const org = await findOrganization(tx, taken.organizationId);
      if (!org) throw invalidLink();
      const { apiKey, webhookSecret } = JSON.parse(
        openPii(this.masterKey, pickupContext(taken.id), taken.sealed),
      );
      await recordAudit(tx, {
        actor: `org:${org.id}`,
        action: 'credentials.picked_up',
        subjectType: 'organization',
        subjectId: org.id,
      });
      return { organization: { id: org.id, name: org.name, vaspDid: org.vaspDid }, apiKey, webhookSecret };
    });
  }

  /**
   * The claim behind a token, while it may still be used: its transaction is not final and no
   * member attached it through the link. 404 otherwise, whatever the reason.
   */
  private async open(q: Queryable, token: string, lock = false) {
    if (!TOKEN_PATTERN.test(token)) throw invalidLink();
    const claim = await store.findClaim(q, tokenHash(token), lock);
    if (!claim || claim.usedFor === 'attach' || (FINAL_STATES as readonly string[]).includes(claim.status)) {
      throw invalidLink();
    }
    return claim;
  }

  /** 409 while an application through the link waits for review, or after one was approved. */
  private async refuseIfTaken(q: Queryable, ref: string): Promise<void> {
    const latest = await store.latestApplication(q, ref);
    if (latest?.status === 'pending') {
      throw new AppError(
        'INVALID_STATE',
        'An application made through this link is waiting for the operator’s review; a new one is possible only if it is rejected.',
      );
    }
    if (latest?.status === 'approved') {
      throw new AppError('INVALID_STATE', 'An application made through this link was approved already.');
    }
  }

  private async pending(tx: Queryable, id: string): Promise<store.StoredApplication> {
    const a = await store.lockApplication(tx, id);
    if (!a) throw notFound('The application');
    if (a.status !== 'pending')
      throw new AppError('INVALID_STATE', `The application is already ${a.status}.`);
    return a;
  }
}
