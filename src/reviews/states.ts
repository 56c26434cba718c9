/**
 * Review states (SPEC §17): a party's own verdict on a transaction, apart from the transaction's
 * status. Any state may follow any other (a cleared review can be reopened, an escalation taken
 * back into review); a transaction without a review reads as `open`. Pure.
 */
export const REVIEW_STATES = ['open', 'in_review', 'cleared', 'escalated'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/** Longest note, in characters (like a decline's description). */
export const NOTE_MAX = 2000;

/** Where a party's review is not finished: what the queue's "to review" may count. */
export const UNFINISHED: readonly ReviewState[] = ['open', 'in_review', 'escalated'];
