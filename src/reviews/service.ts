/**
 * Reviews (SPEC §17): each party keeps its own review of a transaction (a state, an assignee and
 * notes) about its own side. Invariants:
 * - every read and write is scoped to the caller's organization, and only a party to the
 *   transaction has one (anyone else gets the transaction's 404);
 * - a note is sealed under the master key, bound to the transaction and the organization, before it
 *   reaches the database; its text is shown back only to callers allowed to read personal data;
 * - every change is audited in the database transaction that makes it, never with the note's text.
 */
import { type Actor, recordAudit } from '../audit/store.js';
import { openPii, type SealingKeys, sealPii } from '../crypto/envelope.js';
import type { Database, Queryable } from '../db/database.js';
import { deliveryFailing } from '../deliveries/summary.js';
import { validationFailed } from '../http/errors.js';
import { asParty } from '../transactions/party.js';
import { findTransaction } from '../transactions/store.js';
import type { Review, ReviewRequest } from './schemas.js';
import * as store from './store.js';

/** The context a note is sealed under: its transaction and the organization that wrote it. */
export const noteContext = (ref: string, orgId: string) => `review-note:${ref}:${orgId}`;

/** Who asks: the organization, the audit actor, and whether it may read note text (personal data). */
export interface ReviewCaller {
  organizationId: string;
  /** `user:<id>` for a person; the organization's `org:<id>` for an API key. */
  actor: Actor;
  userId: string | null;
  readsNotes: boolean;
  /** The key or session for the audit row's details (auditIdentity). */
  identity: Record<string, unknown>;
}

export class ReviewService {
  constructor(
    private readonly db: Database,
    private readonly keys: SealingKeys,
  ) {}

  /** Changes the caller's review: state, assignee, a note; audited. Answers the review as it now is. */
  async review(caller: ReviewCaller, ref: string, body: ReviewRequest): Promise<Review> {
    const orgId = caller.organizationId;
    const storedRef = await this.db.transaction(async (tx) => {
      const t = asParty(await findTransaction(tx, ref), orgId);
      await store.ensureReview(tx, t.ref, orgId);
      const before = await store.findReview(tx, t.ref, orgId, true);
      let assignee = before.assigneeUserId;
      if (body.assigneeUserId !== undefined) {
        if (body.assigneeUserId !== null && !(await store.findAssignee(tx, orgId, body.assigneeUserId))) {
          throw validationFailed([
            {
              path: '/assigneeUserId',
              message:
                'is not an analyst or admin of your organization (GET /v1/reviews/assignees lists them)',
            },
          ]);
        }
        assignee = body.assigneeUserId;
      }
      await store.updateReview(tx, t.ref, orgId, body.state, assignee);
      if (body.note !== undefined) {
        await store.insertNote(tx, {
          ref: t.ref,
          orgId,
          author: caller.actor,
          authorUserId: caller.userId,
          sealedText: sealPii(this.keys, noteContext(t.ref, orgId), body.note),
        });
      }
      await recordAudit(tx, {
        actor: caller.actor,
        action: 'transaction.review_changed',
        subjectType: 'transaction',
        subjectId: t.ref,
        details: {
          ...caller.identity,
          organizationId: orgId,
          role: t.originatorId === orgId ? 'originator' : 'beneficiary',
          from: before.state,
          to: body.state,
          ...(assignee !== before.assigneeUserId ? { assigneeUserId: assignee } : {}),
          ...(body.note !== undefined ? { noteAdded: true } : {}),
        },
      });
      return t.ref;
    });
    return this.read(this.db, caller, storedRef);
  }

  /** The caller's review of a transaction it may see (the caller checked that). */
  read(
    q: Queryable,
    caller: Pick<ReviewCaller, 'organizationId' | 'readsNotes'>,
    ref: string,
  ): Promise<Review> {
    return this.readAs(q, caller.organizationId, caller.readsNotes, ref);
  }

  private async readAs(q: Queryable, orgId: string, readsNotes: boolean, ref: string): Promise<Review> {
    const [review, notes] = await Promise.all([
      store.findReview(q, ref, orgId),
      store.listNotes(q, ref, orgId),
    ]);
    return {
      state: review.state,
      assignee:
        review.assigneeUserId === null
          ? null
          : { id: review.assigneeUserId, name: review.assigneeName ?? 'removed user' },
      notes: notes.map((n) => ({
        at: n.at,
        by: {
          id: n.authorUserId,
          name: n.authorUserId === null ? 'API key' : (n.authorName ?? 'removed user'),
        },
        text: readsNotes && n.sealedText ? openPii(this.keys, noteContext(ref, orgId), n.sealedText) : null,
      })),
      updatedAt: review.updatedAt,
    };
  }

  /** Who a review can be assigned to: the organization's analysts and admins. */
  async assignees(orgId: string) {
    return {
      assignees: (await store.listAssignees(this.db, orgId)) as {
        id: string;
        name: string;
        role: 'analyst' | 'admin';
      }[],
    };
  }

  /** "Needs my action" counts, each matching its list filter. */
  queue(orgId: string) {
    return store.queueCounts(this.db, orgId, deliveryFailing);
  }
}
