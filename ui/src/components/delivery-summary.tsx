/**
 * A transaction's `delivery` summary (SPEC §17) in words: whether the message that tells the
 * counterparty got through. The hub gives only the state, the number of attempts, a class of the
 * last error and the next attempt's time (never a payload, an endpoint or a receiver's answer),
 * and that is all this shows.
 */
import type { DeliverySummary, Role, Transaction } from '../api.js';
import { Fact, Time } from './ui.js';

type State = DeliverySummary['state'];
type ErrorClass = NonNullable<DeliverySummary['lastError']>;

export const DELIVERY_STATE_LABELS: Record<State, string> = {
  pending: 'Waiting to be sent',
  delivered: 'Delivered',
  retrying: 'Retrying',
  failed: 'Failed',
  'not-applicable': 'No message to send',
};

const DELIVERY_STATE_DETAILS: Record<State, string> = {
  pending: 'Not tried yet, or on its first try.',
  delivered: 'The recipient accepted it.',
  retrying: 'The last attempt failed; the hub tries again on its schedule.',
  failed: 'Every attempt failed; the hub has stopped trying until the recipient has it sent again.',
  'not-applicable':
    'There is no such message: the recipient has no endpoint to send to, or the message was withdrawn when the transaction ended.',
};

export const ERROR_CLASS_LABELS: Record<ErrorClass, string> = {
  timeout: 'No answer in time (timeout)',
  connection: 'Could not connect to the recipient',
  'http-5xx': 'The recipient answered with a server error (HTTP 5xx)',
  'http-4xx': 'The recipient refused the message (HTTP 4xx)',
  'refused-target': 'The hub may not send to the recipient’s address (refused target)',
  smtp: 'The mail server did not accept the e-mail (SMTP)',
  'invalid-answer': 'The TRP peer answered with something that is not a TRP answer',
};

/** Retrying or failed: the counterparty does not hear of the transaction (or of its latest news). */
export const isFailing = (d: DeliverySummary) => d.state === 'retrying' || d.state === 'failed';

/**
 * Which message the summary is about, for the caller's side of the transaction. For TRP (SPEC §16)
 * it is the hub's TRP message to the peer: the inquiry (outbound), the member's answer (inbound).
 */
function whichMessage(tx: Transaction, role: Role): string {
  if (tx.protocol === 'TRP') {
    return role === 'originator'
      ? 'The TRP inquiry that tells the beneficiary VASP of this transfer, over mutual TLS.'
      : 'Your answer (approval or rejection) that the hub sends to the TRP peer’s callback.';
  }
  if (role === 'beneficiary') return 'The latest message the hub owes the originator about this transaction.';
  const email = tx.protocol === 'NOTIFY' && !tx.history.some((h) => h.event === 'beneficiary-joined');
  return email
    ? 'The NOTIFY e-mail that announces this transfer to the beneficiary.'
    : 'The received webhook that tells the beneficiary of this transfer.';
}

/** An inbound TRP transfer the member has not answered yet: the hub owes the peer nothing so far. */
const undecidedInboundTrp = (tx: Transaction, role: Role) =>
  tx.protocol === 'TRP' &&
  role === 'beneficiary' &&
  (tx.status === 'NEW' || tx.status === 'RECEIVER_NOTIFIED');

/** The "Delivery" box of a transaction page. */
export function DeliveryBox({ tx, role }: { tx: Transaction; role: Role }) {
  const d = tx.delivery;
  return (
    <section class="panel" aria-labelledby="delivery-heading">
      <h2 id="delivery-heading">Delivery</h2>
      <p class="muted small">{whichMessage(tx, role)}</p>
      <dl class="facts">
        <Fact label="State">
          <span class={`badge badge-delivery-${d.state}`}>{DELIVERY_STATE_LABELS[d.state]}</span>{' '}
          <span class="small">
            {d.state === 'not-applicable' && undecidedInboundTrp(tx, role)
              ? 'Nothing is sent to the peer until you approve or decline.'
              : DELIVERY_STATE_DETAILS[d.state]}
          </span>
        </Fact>
        <Fact label="Attempts">{d.attempts}</Fact>
        <Fact label="Last error">
          {d.lastError ? ERROR_CLASS_LABELS[d.lastError] : <span class="muted">none</span>}
        </Fact>
        <Fact label="Next attempt">
          {d.nextAttemptAt ? <Time iso={d.nextAttemptAt} /> : <span class="muted">none planned</span>}
        </Fact>
      </dl>
    </section>
  );
}

/** A list row's mark when its message is retrying or failed; nothing otherwise. */
export function DeliveryFlag({ delivery }: { delivery: DeliverySummary }) {
  if (!isFailing(delivery)) return null;
  return (
    <span class={`flag flag-${delivery.state}`}>
      <span aria-hidden="true">⚠ </span>
      {delivery.state === 'failed' ? 'delivery failed' : 'delivery retrying'}
    </span>
  );
}
