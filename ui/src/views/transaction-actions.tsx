/**
 * The commands open to the caller, by role and state (SPEC §6–7, §11, §12, §16), and nothing else:
 * confirm (originator, MAIN or a NOTIFY transaction its beneficiary claimed, RECEIVER_NOTIFIED),
 * approve with an address (beneficiary of an inbound TRP transfer, RECEIVER_NOTIFIED), decline
 * (beneficiary, CONFIRMED; inbound TRP: RECEIVER_NOTIFIED), share the hash (originator, not final,
 * not yet shared; outbound TRP: once the peer approved with the address) and cancel (originator, NEW to CONFIRMED, before a hash was shared). Approve,
 * decline and cancel cannot be undone and ask once more; confirm (it sends personal data) and
 * share the hash (it ends the right to cancel) ask in a dialog that says so. If the counterparty acted first, the
 * hub's 409 is shown as it is and the page reloads the current state. A read-only session (a read
 * key, a viewer) gets no form, only a line on what a full-scope key or an analyst could do now.
 */
import { useState } from 'preact/hooks';
import { DECLINE_CATEGORIES, type DeclineCategory } from '../../../src/transactions/decline.js';
import { type Role, type Transaction, unwrap } from '../api.js';
import { ActionForm, type FormProps, useCommand } from '../components/action-form.js';
import { Field } from '../components/forms.js';
import { ErrorNote } from '../components/ui.js';
import { FINAL_STATES, words } from '../format.js';
import { useMay, useOrg } from '../session.js';
import { isInboundTrp, peerName } from '../trp.js';
import { ApproveForm } from './approve-form.js';

/** How a transaction hash is typed, wherever it is asked for. */
const TX_HASH_INPUT = { class: 'mono', pattern: '[A-Za-z0-9._:\\-]+', maxLength: 256, spellcheck: false };

/** A NOTIFY transaction that an organization claimed through the e-mail's link follows MAIN (SPEC §12). */
export const claimed = (tx: Transaction) => tx.history.some((h) => h.event === 'beneficiary-joined');

/** States the originator may cancel from, as long as no transaction hash was shared (SPEC §11). */
const CANCELLABLE = ['NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED'];

export function allowedActions(tx: Transaction, role: Role) {
  const final = FINAL_STATES.includes(tx.status);
  const hashShared = Boolean(tx.transactionBlockchainInfo.txHash);
  const followsMain = tx.protocol === 'MAIN' || (tx.protocol === 'NOTIFY' && claimed(tx));
  // An inbound TRP transfer waits for the member's decision: approve with an address, or decline.
  const trpDecision = isInboundTrp(tx, role) && tx.status === 'RECEIVER_NOTIFIED';
  return {
    confirm: role === 'originator' && followsMain && tx.status === 'RECEIVER_NOTIFIED',
    approve: trpDecision,
    decline: trpDecision || (role === 'beneficiary' && tx.status === 'CONFIRMED' && tx.protocol !== 'TRP'),
    // An outbound TRP transfer is paid to the address the peer approves with: no hash before that.
    shareHash:
      role === 'originator' && !final && !hashShared && (tx.protocol !== 'TRP' || tx.status === 'CONFIRMED'),
    cancel: role === 'originator' && CANCELLABLE.includes(tx.status) && !hashShared,
  };
}

function waitingFor(tx: Transaction, role: Role): string {
  if (tx.status === 'DECLINED') return 'The transaction is declined; nothing more can happen to it.';
  if (tx.status === 'CANCELLED') return 'The transaction is cancelled; nothing more can happen to it.';
  if (tx.status === 'EXPIRED') return 'The transaction expired; nothing more can happen to it.';
  const peer = tx.trp ? peerName(tx.trp.peer) : 'the TRP peer';
  if (tx.status === 'NEW') {
    if (tx.protocol === 'TRP') {
      return role === 'originator'
        ? `Waiting for ${peer} to take the TRP inquiry.`
        : 'Waiting for your travel endpoint to acknowledge the received webhook.';
    }
    return tx.protocol === 'NOTIFY'
      ? 'Waiting for the NOTIFY e-mail to be accepted.'
      : 'Waiting for the beneficiary to acknowledge the received webhook.';
  }
  if (tx.status === 'RECEIVER_NOTIFIED') {
    if (tx.protocol === 'TRP' && role === 'originator') {
      return `Waiting for ${peer} to approve the transfer (with the address to pay) or reject it.`;
    }
    return role === 'beneficiary' && (tx.protocol === 'MAIN' || claimed(tx))
      ? 'Waiting for the originator to confirm; the personal data follows then.'
      : 'No action is open to you in this state.';
  }
  if (tx.protocol === 'TRP' && role === 'beneficiary') {
    return tx.transactionBlockchainInfo.txHash
      ? 'You approved the transfer, and the originator shared its transaction hash.'
      : `You approved the transfer; ${peer} shares the transaction hash once it has paid.`;
  }
  return 'No action is open to you in this state.';
}

export function TransactionActions({
  tx,
  role,
  onChanged,
}: {
  tx: Transaction;
  role: Role;
  onChanged: () => void;
}) {
  // A conflict is shown here, not in its form: the reloaded state may no longer offer that form.
  const [conflict, setConflict] = useState<unknown>(null);
  const canWrite = useMay('act');
  const { person } = useOrg();
  const allowed = allowedActions(tx, role);
  // Cancelling is always a way out while it is open, not a next step: it does not count here.
  const any = allowed.confirm || allowed.approve || allowed.decline || allowed.shareHash;
  const props = { tx, onChanged, onConflict: setConflict };
  if (!canWrite) {
    const open = [
      allowed.confirm ? 'confirm it' : '',
      allowed.approve ? 'approve it' : '',
      allowed.decline ? 'decline it' : '',
      allowed.shareHash ? 'share its transaction hash' : '',
      allowed.cancel ? 'cancel it' : '',
    ].filter(Boolean);
    return (
      <section class="panel" aria-labelledby="actions-heading">
        <h2 id="actions-heading">Actions</h2>
        <p class="muted">
          {open.length > 0
            ? person
              ? `Your role (${person.role}) may only read. An analyst or admin could now ${open.join(' or ')}.`
              : `This session’s key may only read. With a full-scope key you could now ${open.join(' or ')}.`
            : waitingFor(tx, role)}
        </p>
      </section>
    );
  }
  return (
    <section class="panel" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      <ErrorNote error={conflict} prefix="Not possible now:" />
      {!any ? <p class="muted">{waitingFor(tx, role)}</p> : null}
      {allowed.confirm ? <ConfirmForm {...props} /> : null}
      {allowed.approve ? <ApproveForm {...props} /> : null}
      {allowed.decline ? <DeclineForm {...props} /> : null}
      {allowed.shareHash && !allowed.confirm ? <TxHashForm {...props} /> : null}
      {allowed.cancel ? <CancelForm {...props} /> : null}
    </section>
  );
}

function ConfirmForm(props: FormProps) {
  const { tx } = props;
  const { client } = useOrg();
  const [txHash, setTxHash] = useState('');
  const command = useCommand(props);
  const submit = () => {
    const body = { transactionRef: tx.transactionRef, ...(txHash.trim() ? { txHash: txHash.trim() } : {}) };
    command.run(
      () => unwrap(client.POST('/v1/transactions/confirm', { body })),
      'Confirmed. The personal data is on its way to the beneficiary.',
    );
  };
  return (
    <ActionForm
      name="confirm"
      title="Confirm"
      intro={
        <>
          The beneficiary acknowledged the transfer. Confirming sends it your customer’s personal data (
          <code>confirmed-data</code> webhook).
        </>
      }
      command={command}
      button="Confirm transaction…"
      busyButton="Confirming…"
      dialog={{
        title: 'Send the personal data?',
        body: (
          <p>
            Confirming sends your customer’s personal data (IVMS101) to the beneficiary VASP in the{' '}
            <code>confirmed-data</code> webhook. Once sent it cannot be called back.
            {txHash.trim() ? ' The transaction hash you typed goes with it.' : ''}
          </p>
        ),
        yes: 'Yes, confirm and send',
      }}
      onSubmit={submit}
    >
      <Field id="confirm-hash" label="Transaction hash (optional)">
        {(aria) => (
          <input
            {...aria}
            {...TX_HASH_INPUT}
            value={txHash}
            onInput={(e) => setTxHash(e.currentTarget.value)}
          />
        )}
      </Field>
    </ActionForm>
  );
}

function DeclineForm(props: FormProps) {
  const { tx } = props;
  const { client } = useOrg();
  // An inbound TRP transfer's originator is the peer: it hears of the decline as TRP's rejection.
  const trp = tx.trp ? peerName(tx.trp.peer) : null;
  const [category, setCategory] = useState('');
  const [description, setDescription] = useState('');
  const command = useCommand(props);
  const submit = () => {
    const reason = { category: category as DeclineCategory, description: description.trim() };
    const body = { transactionRef: tx.transactionRef, reason };
    command.run(
      () => unwrap(client.POST('/v1/transactions/decline', { body })),
      trp ? `Declined. ${trp} is told over TRP.` : 'Declined. The originator is informed.',
    );
  };
  return (
    <ActionForm
      name="decline"
      title="Decline"
      intro={
        trp
          ? `Declining closes the transaction for good; ${trp} is told over TRP that it is rejected, with your description as the reason (TRP carries no category).`
          : 'Declining closes the transaction for good; the originator is told the reason.'
      }
      command={command}
      button="Decline transaction…"
      busyButton="Declining…"
      buttonClass="danger"
      ready={category !== '' && description.trim() !== ''}
      confirm={{
        question: (
          <>
            <strong>Decline this transfer for good?</strong> This cannot be undone.
          </>
        ),
        yes: 'Yes, decline the transfer',
        back: 'Not yet',
      }}
      onSubmit={submit}
    >
      <Field id="decline-category" label="Reason">
        {(aria) => (
          <select {...aria} required value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
            <option value="" disabled>
              Choose a category…
            </option>
            {DECLINE_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {words(c)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        id="decline-description"
        label="Description"
        hint={`Required; up to 2000 characters. ${trp ?? 'The originator'} sees it.`}
      >
        {(aria) => (
          <textarea
            {...aria}
            required
            maxLength={2000}
            rows={3}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        )}
      </Field>
    </ActionForm>
  );
}

function TxHashForm(props: FormProps) {
  const { tx } = props;
  const { client } = useOrg();
  const [txHash, setTxHash] = useState('');
  const command = useCommand(props);
  const submit = () => {
    const body = { transactionRef: tx.transactionRef, txHash: txHash.trim() };
    command.run(
      () => unwrap(client.POST('/v1/transactions/tx-hash', { body })),
      'Transaction hash shared with the beneficiary.',
    );
  };
  return (
    <ActionForm
      name="hash"
      title="Share the transaction hash"
      intro="After broadcasting the transfer, tell the beneficiary its hash (once)."
      command={command}
      button="Share hash…"
      busyButton="Sharing…"
      buttonClass="secondary"
      ready={txHash.trim() !== ''}
      dialog={{
        title: 'Share the transaction hash?',
        body: (
          <p>
            The beneficiary is sent the hash <code class="break">{txHash.trim()}</code>. It can be shared only
            once, and after that <strong>the transfer can no longer be cancelled</strong>.
          </p>
        ),
        yes: 'Yes, share the hash',
      }}
      onSubmit={submit}
    >
      <Field id="share-hash" label="Transaction hash">
        {(aria) => (
          <input
            {...aria}
            {...TX_HASH_INPUT}
            required
            value={txHash}
            onInput={(e) => setTxHash(e.currentTarget.value)}
          />
        )}
      </Field>
    </ActionForm>
  );
}

/** Calls the transfer off for good, after a second question. */
function CancelForm(props: FormProps) {
  const { tx } = props;
  const { client } = useOrg();
  const [reason, setReason] = useState('');
  const command = useCommand(props);
  const cancel = () => {
    const body = { transactionRef: tx.transactionRef, ...(reason.trim() ? { reason: reason.trim() } : {}) };
    command.run(
      () => unwrap(client.POST('/v1/transactions/cancel', { body })),
      'Cancelled. The transaction is final.',
    );
  };
  // In NEW the beneficiary has heard nothing yet, so there is nobody to tell.
  const notified = tx.status !== 'NEW';
  return (
    <ActionForm
      name="cancel"
      title="Cancel the transfer"
      intro={
        <>
          Calls the transfer off for good, as long as you have not shared its transaction hash: messages not
          sent yet are withdrawn
          {!notified
            ? '.'
            : tx.protocol === 'NOTIFY' && !claimed(tx)
              ? ', the announced address gets a short cancellation e-mail and its claim link stops working.'
              : tx.protocol === 'TRP'
                ? ', and the beneficiary VASP is told over TRP.'
                : ', and the beneficiary is told (cancelled webhook).'}
        </>
      }
      command={command}
      button="Cancel transfer…"
      busyButton="Cancelling…"
      buttonClass="danger-outline"
      confirm={{
        question: (
          <>
            <strong>Cancel this transfer for good?</strong> This cannot be undone.
          </>
        ),
        yes: 'Yes, cancel the transfer',
        back: 'Keep the transfer',
        yesClass: 'danger',
      }}
      onSubmit={cancel}
    >
      <Field
        id="cancel-reason"
        label="Reason (optional)"
        hint={
          tx.protocol === 'TRP'
            ? 'Up to 2000 characters. Goes to the beneficiary VASP with TRP’s cancellation.'
            : 'Up to 2000 characters. Goes to the beneficiary with the cancelled webhook, never by e-mail.'
        }
      >
        {(aria) => (
          <textarea
            {...aria}
            maxLength={2000}
            rows={2}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
        )}
      </Field>
    </ActionForm>
  );
}
