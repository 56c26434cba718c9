/**
 * SQL of reviews (SPEC §17): each party's own review of a transaction, its notes (sealed), and the
 * conditions the transaction list and the queue share, so that a count and the list it links to
 * can never disagree. Every statement names the caller's organization: one side never reads the
 * other's review.
 */
import type { Queryable } from '../db/database.js';
import { toBuffer, toIso } from '../db/database.js';
import type { ReviewState } from './states.js';

export interface ReviewRecord {
  state: ReviewState;
  assigneeUserId: string | null;
  assigneeName: string | null;
  updatedAt: string | null;
}

export interface NoteRecord {
  at: string;
  author: string;
  authorUserId: string | null;
  authorName: string | null;
  /** null once erased with the transaction's personal data. */
  sealedText: Buffer | null;
}

/** The caller's review; a transaction without a row reads as `open`, unassigned. */
export async function findReview(
  q: Queryable,
  ref: string,
  orgId: string,
  lock = false,
): Promise<ReviewRecord> {
  const rows = await q.query(
    `SELECT r.state, r.assignee_user_id, u.name AS assignee_name, r.updated_at
       FROM transaction_reviews r LEFT JOIN users u ON u.id = r.assignee_user_id
      WHERE r.transaction_ref = $1 AND r.organization_id = $2${lock ? ' FOR UPDATE OF r' : ''}`,
    [ref, orgId],
  );
  const r = rows[0];
  if (!r) return { state: 'open', assigneeUserId: null, assigneeName: null, updatedAt: null };
  return {
    state: r.state as ReviewState,
    assigneeUserId: (r.assignee_user_id as string | null) ?? null,
    assigneeName: (r.assignee_name as string | null) ?? null,
    updatedAt: toIso(r.updated_at),
  };
}

/** Makes sure the caller's review row exists (as `open`), so it can be locked. */
export async function ensureReview(q: Queryable, ref: string, orgId: string): Promise<void> {
  await q.query(
    `INSERT INTO transaction_reviews (transaction_ref, organization_id, state) VALUES ($1, $2, 'open')
     ON CONFLICT (transaction_ref, organization_id) DO NOTHING`,
    [ref, orgId],
  );
}

export async function updateReview(
  q: Queryable,
  ref: string,
  orgId: string,
  state: ReviewState,
  assigneeUserId: string | null,
): Promise<void> {
  await q.query(
    `UPDATE transaction_reviews SET state = $3, assignee_user_id = $4, updated_at = clock_timestamp()
      WHERE transaction_ref = $1 AND organization_id = $2`,
    [ref, orgId, state, assigneeUserId],
  );
}

export async function insertNote(
  q: Queryable,
  n: { ref: string; orgId: string; author: string; authorUserId: string | null; sealedText: Buffer },
): Promise<void> {
  await q.query(
    `INSERT INTO review_notes (transaction_ref, organization_id, author, author_user_id, sealed_text)
     VALUES ($1, $2, $3, $4, $5)`,
    [n.ref, n.orgId, n.author, n.authorUserId, n.sealedText],
  );
}

/** The caller's notes on a transaction, oldest first. */
export async function listNotes(q: Queryable, ref: string, orgId: string): Promise<NoteRecord[]> {
  const rows = await q.query(
    `SELECT n.at, n.author, n.author_user_id, u.name AS author_name, n.sealed_text
       FROM review_notes n LEFT JOIN users u ON u.id = n.author_user_id
      WHERE n.transaction_ref = $1 AND n.organization_id = $2 ORDER BY n.id`,
    [ref, orgId],
  );
  return rows.map((r) => ({
    at: toIso(r.at),
    author: r.author as string,
    authorUserId: (r.author_user_id as string | null) ?? null,
    authorName: (r.author_name as string | null) ?? null,
    sealedText: r.sealed_text == null ? null : toBuffer(r.sealed_text),
  }));
}

/** Users of the organization who may work a review (analysts and admins), by name. */
export async function listAssignees(
  q: Queryable,
  orgId: string,
): Promise<{ id: string; name: string; role: string }[]> {
  const rows = await q.query(
    `SELECT id, name, role FROM users
      WHERE organization_id = $1 AND removed_at IS NULL AND role IN ('analyst', 'admin')
      ORDER BY name, id`,
    [orgId],
  );
  return rows.map((r) => ({ id: r.id as string, name: r.name as string, role: r.role as string }));
}

/** An active user of the organization who may work a review, if `userId` is one. */
export async function findAssignee(q: Queryable, orgId: string, userId: string): Promise<boolean> {
  const rows = await q.query(
    `SELECT 1 FROM users WHERE id = $1 AND organization_id = $2 AND removed_at IS NULL
        AND role IN ('analyst', 'admin')`,
    [userId, orgId],
  );
  return rows.length === 1;
}

// ---- Conditions on a transaction `t`, as the organization `viewer` (a SQL parameter) sees it. ----

/** SQL: `viewer`'s review state of `t` (`open` without a row). */
function stateOf(viewer: string): string {
  return `coalesce((SELECT r.state FROM transaction_reviews r
                     WHERE r.transaction_ref = t.ref AND r.organization_id = ${viewer}), 'open')`;
}

/** SQL: `viewer`'s review of `t` is in the state given by the parameter `state` (the `review` filter). */
export function reviewStateIs(viewer: string, state: string): string {
  return `${stateOf(viewer)} = ${state}`;
}

/**
 * SQL: `t` waits for `viewer` to confirm it: `viewer` is the originator of a MAIN transfer, or of a
 * NOTIFY transfer its beneficiary claimed, in RECEIVER_NOTIFIED (SPEC §6, §7, §12).
 */
export function awaitsConfirm(viewer: string): string {
  return `(t.originator_id = ${viewer} AND t.status = 'RECEIVER_NOTIFIED'
           AND (t.protocol = 'MAIN' OR (t.protocol = 'NOTIFY' AND t.claimed_at IS NOT NULL)))`;
}

/**
 * SQL: `t` waits for `viewer` to review it (docs/api.md, "The queue"): its review is not cleared, and
 * either someone took it up (`in_review`, `escalated`) or the personal data has reached `viewer` as
 * the beneficiary and a decision is still open (CONFIRMED, or an inbound TRP transfer before it
 * is approved or declined).
 */
export function awaitsReview(viewer: string): string {
  return `(${stateOf(viewer)} IN ('in_review', 'escalated')
           OR (${stateOf(viewer)} = 'open' AND t.beneficiary_id = ${viewer}
               AND (t.status = 'CONFIRMED' OR (t.inbound AND t.status = 'RECEIVER_NOTIFIED'))))`;
}

/** The queue's counts for `orgId`, each by the same condition as the list filter that shows its rows. */
export async function queueCounts(
  q: Queryable,
  orgId: string,
  deliveryFailing: (viewer: string) => string,
): Promise<{ toConfirm: number; toReview: number; failingDeliveries: number }> {
  const rows = await q.query<{ confirm: number; review: number; failing: number }>(
    `SELECT count(*) FILTER (WHERE ${awaitsConfirm('$1::uuid')})::int AS confirm,
            count(*) FILTER (WHERE ${awaitsReview('$1::uuid')})::int AS review,
            count(*) FILTER (WHERE ${deliveryFailing('$1::uuid')})::int AS failing
       FROM transactions t WHERE t.originator_id = $1 OR t.beneficiary_id = $1`,
    [orgId],
  );
  const r = rows[0]!;
  return { toConfirm: r.confirm, toReview: r.review, failingDeliveries: r.failing };
}
