/**
 * NOTIFY progress as the originator sees it (SPEC §17): the steps a claim link went through, in
 * order, and the state it is in (the last step). Pure: the store reads the facts, this orders them.
 *
 * sent      the announcement was queued, with the link (whether SMTP took it is `delivery`)
 * opened    the claim page first loaded the announcement
 * applied   an application was made through the link (again after each rejection)
 * rejected  the operator rejected that application: the link takes a new one
 * approved  the operator approved it: the organization exists
 * attached  the transaction became the beneficiary's (an approval, or a member's attach)
 */

export const CLAIM_STATES = ['sent', 'opened', 'applied', 'rejected', 'approved', 'attached'] as const;
export type ClaimState = (typeof CLAIM_STATES)[number];

export interface ClaimStep {
  state: ClaimState;
  at: string;
}

export interface ClaimFacts {
  sentAt: string;
  openedAt: string | null;
  applications: readonly { createdAt: string; status: string; decidedAt: string | null }[];
  attachedAt: string | null;
}

/** The steps, oldest first; among steps at the same instant, in the order of CLAIM_STATES. */
export function claimSteps(f: ClaimFacts): ClaimStep[] {
  const steps: ClaimStep[] = [{ state: 'sent', at: f.sentAt }];
  if (f.openedAt !== null) steps.push({ state: 'opened', at: f.openedAt });
  for (const a of f.applications) {
    steps.push({ state: 'applied', at: a.createdAt });
    if ((a.status === 'rejected' || a.status === 'approved') && a.decidedAt !== null) {
      steps.push({ state: a.status, at: a.decidedAt });
    }
  }
  if (f.attachedAt !== null) steps.push({ state: 'attached', at: f.attachedAt });
  const rank = (s: ClaimState) => CLAIM_STATES.indexOf(s);
  return steps
    .map((s, i) => ({ s, i, t: Date.parse(s.at) }))
    .sort((a, b) => a.t - b.t || rank(a.s.state) - rank(b.s.state) || a.i - b.i)
    .map(({ s }) => s);
}

/** The claim as the transaction shows it: its state (the last step), since when, and every step. */
export function claimProgress(f: ClaimFacts): { state: ClaimState; at: string; steps: ClaimStep[] } {
  const steps = claimSteps(f);
  const last = steps[steps.length - 1]!;
  return { state: last.state, at: last.at, steps };
}
