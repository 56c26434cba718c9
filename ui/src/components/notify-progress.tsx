/**
 * NOTIFY progress, on the originator's transaction page (SPEC §17): where the announcement went
 * and how far its claim link got, as a stepper: every step reached, with its time (an application
 * and its rejection repeat for each try), the current one marked, then the steps still ahead.
 * The hub sends `claim` to the originator of a NOTIFY transaction only; nothing here otherwise.
 */
import type { Transaction } from '../api.js';
import { Time } from './ui.js';

type Progress = NonNullable<Transaction['claim']>;
type State = Progress['state'];

const DONE: Record<State, string> = {
  sent: 'Announcement e-mailed',
  opened: 'Claim page opened',
  applied: 'Applied to join',
  rejected: 'Application rejected by the operator',
  approved: 'Application approved: the exchange joined',
  attached: 'Transfer attached to the beneficiary',
};

/** What comes after each state, as the stepper names it. */
const AHEAD: Record<State, string[]> = {
  sent: [
    'Claim page opened',
    'Applied to join (or attached by a member)',
    'Approved or rejected',
    'Attached',
  ],
  opened: ['Applied to join (or attached by a member)', 'Approved or rejected', 'Attached'],
  applied: ['Approved or rejected by the operator', 'Attached'],
  rejected: ['A new application through the same link', 'Approved or rejected', 'Attached'],
  approved: ['Attached'],
  attached: [],
};

const NOW: Record<State, string> = {
  sent: 'Nobody has opened the claim link yet.',
  opened: 'The claim link was opened; no application yet.',
  applied: 'An application waits for the hub operator’s review.',
  rejected:
    'The operator rejected the application and e-mailed the reason; the link takes a new application while the transfer is open.',
  approved: 'The exchange joined the hub.',
  attached: 'The beneficiary has the transfer: confirm it to send the personal data, as for MAIN.',
};

export function NotifyProgress({ tx }: { tx: Transaction }) {
  const claim = tx.claim;
  if (!claim) return null;
  const last = claim.steps.length - 1;
  return (
    <section class="panel" aria-labelledby="notify-heading">
      <h2 id="notify-heading">NOTIFY progress</h2>
      <p>
        Announcement sent to{' '}
        <strong class="break" data-testid="notification-email">
          {tx.notificationEmail ?? 'the address you gave'}
        </strong>
        . {NOW[claim.state]}
      </p>
      <ol class="stepper" aria-label="Claim link progress">
        {claim.steps.map((s, i) => (
          <li
            key={`${s.state}${s.at}`}
            class={i === last ? 'step current' : 'step done'}
            aria-current={i === last ? 'step' : undefined}
          >
            <span class={`step-label step-${s.state}`}>{DONE[s.state]}</span>
            <Time iso={s.at} />
          </li>
        ))}
        {AHEAD[claim.state].map((label) => (
          <li key={label} class="step ahead">
            <span class="step-label">{label}</span>
            <span class="muted small">not yet</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
