/**
 * The commands open to the caller, by role and state (SPEC §6–7, §11, §12), and nothing else:
 * confirm (originator, MAIN or a NOTIFY transaction its beneficiary claimed, RECEIVER_NOTIFIED),
 * decline (beneficiary, CONFIRMED), share the hash (originator, not final, not yet shared) and
 * cancel (originator, NEW to CONFIRMED, before a hash was shared; asks once more). If the
 * counterparty acted first, the hub's 409 is shown as it is and the page reloads the current
 * state. A read-only session gets no form, only a line on what a full-scope key could do now.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { DECLINE_CATEGORIES, type DeclineCategory } from '../../../src/transactions/decline.js';
import { HubProblem, type Role, type Transaction, unwrap } from '../api.js';
import { Field } from '../components/forms.js';
import { ErrorNote } from '../components/ui.js';
import { FINAL_STATES, words } from '../format.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useCanWrite, useOrg } from '../session.js';

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
  return {
    confirm: role === 'originator' && followsMain && tx.status === 'RECEIVER_NOTIFIED',
    decline: role === 'beneficiary' && tx.status === 'CONFIRMED' && tx.protocol !== 'TRP',
    shareHash: role === 'originator' && !final && !hashShared,
    cancel: role === 'originator' && CANCELLABLE.includes(tx.status) && !hashShared,
  };
}

function waitingFor(tx: Transaction, role: Role): string {
  if (tx.status === 'DECLINED') return 'The transaction is declined; nothing more can happen to it.';
  if (tx.status === 'CANCELLED') return 'The transaction is cancelled; nothing more can happen to it.';
  if (tx.status === 'EXPIRED') return 'The transaction expired; nothing more can happen to it.';
  if (tx.status === 'NEW') {
    return tx.protocol === 'NOTIFY'
      ? 'Waiting for the NOTIFY e-mail to be accepted.'
      : 'Waiting for the beneficiary to acknowledge the received webhook.';
  }
  if (tx.status === 'RECEIVER_NOTIFIED') {
    return role === 'beneficiary' && (tx.protocol === 'MAIN' || claimed(tx))
      ? 'Waiting for the originator to confirm; the personal data follows then.'
      : 'No action is open to you in this state.';
  }
  return 'No action is open to you in this state.';
}

interface FormProps {
  tx: Transaction;
  onChanged: () => void;
  onConflict: (err: unknown) => void;
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
  const canWrite = useCanWrite();
  const allowed = allowedActions(tx, role);
  // Cancelling is always a way out while it is open, not a next step: it does not count here.
  const any = allowed.confirm || allowed.decline || allowed.shareHash;
  const props = { tx, onChanged, onConflict: setConflict };
  if (!canWrite) {
    const open = [
      allowed.confirm ? 'confirm it' : '',
      allowed.decline ? 'decline it' : '',
      allowed.shareHash ? 'share its transaction hash' : '',
      allowed.cancel ? 'cancel it' : '',
    ].filter(Boolean);
    return (
      <section class="panel" aria-labelledby="actions-heading">
        <h2 id="actions-heading">Actions</h2>
        <p class="muted">
          {open.length > 0
            ? `This session’s key may only read. With a full-scope key you could now ${open.join(' or ')}.`
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
      {allowed.decline ? <DeclineForm {...props} /> : null}
      {allowed.shareHash && !allowed.confirm ? <TxHashForm {...props} /> : null}
      {allowed.cancel ? <CancelForm {...props} /> : null}
    </section>
  );
}

/**
 * Runs a command. A 409 means the state moved on (the counterparty acted first, or a hash is
 * already set): it is reported in the hub's own words and the page reloads the state.
 */
function useCommand({ onChanged, onConflict }: FormProps) {
  const announce = useAnnounce();
  const { busy, error, run: runAction } = useAction();
  const run = (command: () => Promise<unknown>, done: string) => {
    onConflict(null);
    return runAction(async () => {
      try {
        await command();
      } catch (err) {
        if (!(err instanceof HubProblem && err.status === 409)) throw err;
        onConflict(err);
        onChanged();
        return;
      }
      announce(done);
      onChanged();
    });
  };
  return { busy, error, run };
}

/** One command's form: heading, what it does, its fields, its failure and its submit button. */
function ActionForm({
  name,
  title,
  intro,
  command,
  button,
  busyButton,
  buttonClass,
  ready = true,
  onSubmit,
  children,
}: {
  /** Gives the heading's id, `<name>-heading`. */
  name: string;
  title: string;
  intro: ComponentChildren;
  command: { busy: boolean; error: unknown };
  button: string;
  busyButton: string;
  buttonClass?: string;
  /** Whether the fields are filled in enough to submit. */
  ready?: boolean;
  onSubmit: () => void;
  children: ComponentChildren;
}) {
  const submit = (e: Event) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <form class="action" onSubmit={submit} aria-labelledby={`${name}-heading`}>
      <h3 id={`${name}-heading`}>{title}</h3>
      <p class="small">{intro}</p>
      {children}
      <ErrorNote error={command.error} prefix="Failed:" />
      <button type="submit" class={buttonClass} disabled={command.busy || !ready}>
        {command.busy ? busyButton : button}
      </button>
    </form>
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
      button="Confirm transaction"
      busyButton="Confirming…"
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
  const [category, setCategory] = useState('');
  const [description, setDescription] = useState('');
  const command = useCommand(props);
  const submit = () => {
    const reason = { category: category as DeclineCategory, description: description.trim() };
    const body = { transactionRef: tx.transactionRef, reason };
    command.run(
      () => unwrap(client.POST('/v1/transactions/decline', { body })),
      'Declined. The originator is informed.',
    );
  };
  return (
    <ActionForm
      name="decline"
      title="Decline"
      intro="Declining closes the transaction for good; the originator is told the reason."
      command={command}
      button="Decline transaction"
      busyButton="Declining…"
      buttonClass="danger"
      ready={category !== '' && description.trim() !== ''}
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
        hint="Required; up to 2000 characters. The originator sees it."
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
      button="Share hash"
      busyButton="Sharing…"
      buttonClass="secondary"
      ready={txHash.trim() !== ''}
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

/**
 * Calls the transfer off for good, after a second question (in the page, so keyboard and
 * screen-reader users stay in place): the question takes the focus, "Keep the transfer" goes back.
 */
function CancelForm(props: FormProps) {
  const { tx } = props;
  const { client } = useOrg();
  const [reason, setReason] = useState('');
  const [asking, setAsking] = useState(false);
  const command = useCommand(props);
  const question = useRef<HTMLParagraphElement>(null);
  const start = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) question.current?.focus();
  }, [asking]);

  const cancel = () => {
    const body = { transactionRef: tx.transactionRef, ...(reason.trim() ? { reason: reason.trim() } : {}) };
    command.run(
      () => unwrap(client.POST('/v1/transactions/cancel', { body })),
      'Cancelled. The transaction is final.',
    );
  };
  const keep = () => {
    setAsking(false);
    window.setTimeout(() => start.current?.focus(), 0);
  };
  // In NEW the beneficiary has heard nothing yet, so there is nobody to tell.
  const notified = tx.status !== 'NEW';
  return (
    <form
      class="action"
      aria-labelledby="cancel-heading"
      onSubmit={(e) => {
        e.preventDefault();
        if (asking) cancel();
        else setAsking(true);
      }}
    >
      <h3 id="cancel-heading">Cancel the transfer</h3>
      <p class="small">
        Calls the transfer off for good, as long as you have not shared its transaction hash: messages not
        sent yet are withdrawn
        {!notified
          ? '.'
          : tx.protocol === 'NOTIFY' && !claimed(tx)
            ? ', the announced address gets a short cancellation e-mail and its claim link stops working.'
            : tx.protocol === 'TRP'
              ? ', and the beneficiary VASP is told over TRP.'
              : ', and the beneficiary is told (cancelled webhook).'}
      </p>
      <Field
        id="cancel-reason"
        label="Reason (optional)"
        hint="Up to 2000 characters. Goes to the beneficiary with the cancelled webhook, never by e-mail."
      >
        {(aria) => (
          <textarea
            {...aria}
            maxLength={2000}
            rows={2}
            value={reason}
            disabled={asking}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
        )}
      </Field>
      <ErrorNote error={command.error} prefix="Failed:" />
      {asking ? (
        <div class="confirm-row confirm-danger">
          <p ref={question} tabIndex={-1} id="cancel-question">
            <strong>Cancel this transfer for good?</strong> This cannot be undone.
          </p>
          <button type="submit" class="danger" disabled={command.busy} aria-describedby="cancel-question">
            {command.busy ? 'Cancelling…' : 'Yes, cancel the transfer'}
          </button>
          <button type="button" class="secondary" onClick={keep} disabled={command.busy}>
            Keep the transfer
          </button>
        </div>
      ) : (
        <button ref={start} type="submit" class="danger-outline">
          Cancel transfer…
        </button>
      )}
    </form>
  );
}
