/**
 * A transaction's `delivery` summary (SPEC §17) in words: whether every message the hub owes the
 * counterparty got through, the worst first, then each message. The hub gives only states, numbers
 * of attempts, classes of the last error and times (never a payload, an endpoint or a receiver's
 * answer), and that is all this shows.
 */
import type { DeliverySummary, Role, Transaction } from '../api.js';
import { Fact, ListTable, Time } from './ui.js';

type State = DeliverySummary['state'];
type Message = DeliverySummary['messages'][number];
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
    'Nothing is owed: the recipient has no endpoint to send to, or every message was withdrawn when the transaction ended.',
};

const MESSAGE_STATE_LABELS: Record<Message['state'], string> = {
  pending: 'Waiting to be sent',
  delivered: 'Delivered',
  retrying: 'Retrying',
  failed: 'Failed',
  withdrawn: 'Withdrawn (the transaction ended first)',
};

const EMAILS: Record<string, string> = {
  notify: 'NOTIFY e-mail',
  'notify-cancelled': 'cancellation e-mail',
  'application-received': 'application received e-mail',
  'application-approved': 'application approved e-mail',
  'application-rejected': 'application rejected e-mail',
};

/** A message by its event, as people call it: `confirmed-data webhook`, `NOTIFY e-mail`, … */
export function messageLabel(event: string): string {
  if (event.startsWith('trp-')) return `${event.slice(4)} TRP message`;
  return EMAILS[event] ?? `${event} webhook`;
}

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

/** Which messages the summary is about, for the caller's side of the transaction. */
function whichMessages(tx: Transaction, role: Role): string {
  if (tx.protocol === 'TRP') {
    return role === 'originator'
      ? 'The TRP inquiry that tells the beneficiary VASP of this transfer, over mutual TLS, and every TRP message after it.'
      : 'Your answer (approval or rejection) that the hub sends to the TRP peer’s callback, and every TRP message after it.';
  }
  if (role === 'beneficiary') return 'Every message the hub owes the originator about this transaction.';
  const email = tx.protocol === 'NOTIFY' && !tx.history.some((h) => h.event === 'beneficiary-joined');
  return email
    ? 'The NOTIFY e-mail that announces this transfer to the beneficiary, and every message after it.'
    : 'Every message the hub owes the beneficiary: the received webhook that tells it of this transfer, and every one after it.';
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
      <p class="muted small">{whichMessages(tx, role)}</p>
      <dl class="facts">
        <Fact label="State">
          <span class={`badge badge-delivery-${d.state}`}>{DELIVERY_STATE_LABELS[d.state]}</span>{' '}
          {d.event ? <span class="small">({messageLabel(d.event)})</span> : null}{' '}
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
      {d.messages.length > 0 ? <MessageTable messages={d.messages} /> : null}
    </section>
  );
}

/** Every message owed, in order, each with its own state. */
function MessageTable({ messages }: { messages: Message[] }) {
  return (
    <ListTable
      label="Messages owed to the counterparty"
      columns={['Message', 'State', { label: 'Attempts', num: true }, 'Last error', 'When']}
    >
      {messages.map((m, i) => (
        <tr key={`${m.event}-${i}`}>
          <td data-label="Message">{messageLabel(m.event)}</td>
          <td data-label="State">{MESSAGE_STATE_LABELS[m.state]}</td>
          <td data-label="Attempts" class="num">
            {m.attempts}
          </td>
          <td data-label="Last error">{m.lastError ? ERROR_CLASS_LABELS[m.lastError] : '—'}</td>
          <td data-label="When">
            {m.deliveredAt ? (
              <>
                delivered <Time iso={m.deliveredAt} />
              </>
            ) : m.nextAttemptAt ? (
              <>
                next <Time iso={m.nextAttemptAt} />
              </>
            ) : (
              '—'
            )}
          </td>
        </tr>
      ))}
    </ListTable>
  );
}

/** A list row's mark when a message is retrying or failed; nothing otherwise. */
export function DeliveryFlag({ delivery }: { delivery: DeliverySummary }) {
  if (!isFailing(delivery)) return null;
  return (
    <span class={`flag flag-${delivery.state}`}>
      <span aria-hidden="true">⚠ </span>
      {delivery.state === 'failed' ? 'delivery failed' : 'delivery retrying'}
    </span>
  );
}
