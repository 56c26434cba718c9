/**
 * The commands open to the caller, by role and state (SPEC §6–7), and nothing else:
 * confirm (originator, MAIN, RECEIVER_NOTIFIED), decline (beneficiary, CONFIRMED), share the
 * hash (originator, not DECLINED, not yet shared). If the counterparty acted first, the hub's
 * 409 is shown as it is and the page reloads the current state.
 */
import { useState } from 'preact/hooks';
import { DECLINE_CATEGORIES } from '../../../src/transactions/decline.js';
import { HubProblem, type Transaction, unwrap } from '../api.js';
import { ErrorNote } from '../components/ui.js';
import { words } from '../format.js';
import { useAnnounce, useOrg } from '../session.js';
import type { Role } from './transaction.js';

const TX_HASH_PATTERN = '[A-Za-z0-9._:\\-]+';

export function allowedActions(tx: Transaction, role: Role) {
  return {
    confirm: role === 'originator' && tx.protocol === 'MAIN' && tx.status === 'RECEIVER_NOTIFIED',
    decline: role === 'beneficiary' && tx.status === 'CONFIRMED',
    shareHash: role === 'originator' && tx.status !== 'DECLINED' && !tx.transactionBlockchainInfo.txHash,
  };
}

function waitingFor(tx: Transaction, role: Role): string {
  if (tx.status === 'DECLINED') return 'The transaction is declined; nothing more can happen to it.';
  if (tx.status === 'NEW') {
    return tx.protocol === 'NOTIFY'
      ? 'Waiting for the NOTIFY e-mail to be accepted.'
      : 'Waiting for the beneficiary to acknowledge the received webhook.';
  }
  if (tx.status === 'RECEIVER_NOTIFIED') {
    return role === 'beneficiary' && tx.protocol === 'MAIN'
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
  const allowed = allowedActions(tx, role);
  const any = allowed.confirm || allowed.decline || allowed.shareHash;
  const props = { tx, onChanged, onConflict: setConflict };
  return (
    <section class="panel" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      <ErrorNote error={conflict} prefix="Not possible now:" />
      {!any ? <p class="muted">{waitingFor(tx, role)}</p> : null}
      {allowed.confirm ? <ConfirmForm {...props} /> : null}
      {allowed.decline ? <DeclineForm {...props} /> : null}
      {allowed.shareHash && !allowed.confirm ? <TxHashForm {...props} /> : null}
    </section>
  );
}

/**
 * Runs a command. A 409 means the state moved on (the counterparty acted first, or a hash is
 * already set): it is reported in the hub's own words and the page reloads the state.
 */
function useCommand({ onChanged, onConflict }: FormProps) {
  const announce = useAnnounce();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (command: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setError(null);
    onConflict(null);
    try {
      await command();
      announce(done);
      onChanged();
    } catch (err) {
      if (err instanceof HubProblem && err.status === 409) {
        onConflict(err);
        onChanged();
      } else {
        setError(err);
      }
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

function ConfirmForm(props: FormProps) {
  const { tx } = props;
  const { client } = useOrg();
  const [txHash, setTxHash] = useState('');
  const { busy, error, run } = useCommand(props);
  const submit = (e: Event) => {
    e.preventDefault();
    const body = { transactionRef: tx.transactionRef, ...(txHash.trim() ? { txHash: txHash.trim() } : {}) };
    run(
      () => unwrap(client.POST('/v1/transactions/confirm', { body })),
      'Confirmed. The personal data is on its way to the beneficiary.',
    );
  };
  return (
    <form class="action" onSubmit={submit} aria-labelledby="confirm-heading">
      <h3 id="confirm-heading">Confirm</h3>
      <p class="small">
        The beneficiary acknowledged the transfer. Confirming sends it your customer’s personal data (
        <code>confirmed-data</code> webhook).
      </p>
      <div class="field">
        <label for="confirm-hash">Transaction hash (optional)</label>
        <input
          id="confirm-hash"
          class="mono"
          value={txHash}
          pattern={TX_HASH_PATTERN}
          maxLength={256}
          spellcheck={false}
          onInput={(e) => setTxHash(e.currentTarget.value)}
        />
      </div>
      <ErrorNote error={error} prefix="Failed:" />
      <button type="submit" disabled={busy}>
        {busy ? 'Confirming…' : 'Confirm transaction'}
      </button>
    </form>
  );
}

function DeclineForm(props: FormProps) {
  const { tx } = props;
  const { client } = useOrg();
  const [category, setCategory] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, run } = useCommand(props);
  const submit = (e: Event) => {
    e.preventDefault();
    const body = { transactionRef: tx.transactionRef, reason: { category, description: description.trim() } };
    run(
      () => unwrap(client.POST('/v1/transactions/decline', { body })),
      'Declined. The originator is informed.',
    );
  };
  return (
    <form class="action" onSubmit={submit} aria-labelledby="decline-heading">
      <h3 id="decline-heading">Decline</h3>
      <p class="small">Declining closes the transaction for good; the originator is told the reason.</p>
      <div class="field">
        <label for="decline-category">Reason</label>
        <select
          id="decline-category"
          required
          value={category}
          onChange={(e) => setCategory(e.currentTarget.value)}
        >
          <option value="" disabled>
            Choose a category…
          </option>
          {DECLINE_CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {words(c)}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="decline-description">Description</label>
        <textarea
          id="decline-description"
          required
          maxLength={2000}
          rows={3}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
          aria-describedby="decline-description-hint"
        />
        <p id="decline-description-hint" class="hint">
          Required; up to 2000 characters. The originator sees it.
        </p>
      </div>
      <ErrorNote error={error} prefix="Failed:" />
      <button type="submit" class="danger" disabled={busy || !category || !description.trim()}>
        {busy ? 'Declining…' : 'Decline transaction'}
      </button>
    </form>
  );
}

function TxHashForm(props: FormProps) {
  const { tx } = props;
  const { client } = useOrg();
  const [txHash, setTxHash] = useState('');
  const { busy, error, run } = useCommand(props);
  const submit = (e: Event) => {
    e.preventDefault();
    const body = { transactionRef: tx.transactionRef, txHash: txHash.trim() };
    run(
      () => unwrap(client.POST('/v1/transactions/tx-hash', { body })),
      'Transaction hash shared with the beneficiary.',
    );
  };
  return (
    <form class="action" onSubmit={submit} aria-labelledby="hash-heading">
      <h3 id="hash-heading">Share the transaction hash</h3>
      <p class="small">After broadcasting the transfer, tell the beneficiary its hash (once).</p>
      <div class="field">
        <label for="share-hash">Transaction hash</label>
        <input
          id="share-hash"
          class="mono"
          required
          value={txHash}
          pattern={TX_HASH_PATTERN}
          maxLength={256}
          spellcheck={false}
          onInput={(e) => setTxHash(e.currentTarget.value)}
        />
      </div>
      <ErrorNote error={error} prefix="Failed:" />
      <button type="submit" class="secondary" disabled={busy || !txHash.trim()}>
        {busy ? 'Sharing…' : 'Share hash'}
      </button>
    </form>
  );
}
