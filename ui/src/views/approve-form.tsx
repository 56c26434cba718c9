/**
 * Approving an inbound TRP transfer (SPEC §16): the member gives the address its customer is to be
 * paid at, and the hub sends TRP's `approved` to the peer. The address is checked here as the hub
 * checks it (1–256 printable ASCII characters, no spaces) and its problem said at the field, as is
 * any problem the hub finds with it; approving cannot be undone, so the form asks once more.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { fieldErrors, unwrap } from '../api.js';
import { ActionForm, type FormProps, useCommand } from '../components/action-form.js';
import { Field } from '../components/forms.js';
import { useOrg } from '../session.js';
import { peerName } from '../trp.js';

const MAX_ADDRESS = 256;

/** Why the address cannot be sent as it is, or null: the hub's rule for it, in words. */
export function addressProblem(address: string): string | null {
  if (address === '') return 'Enter the address to be paid at.';
  if (address.length > MAX_ADDRESS) return `At most ${MAX_ADDRESS} characters; this has ${address.length}.`;
  if (!/^[\x21-\x7E]+$/.test(address)) {
    return 'Only printable ASCII characters (letters, digits, punctuation), without spaces.';
  }
  return null;
}

export function ApproveForm(props: FormProps) {
  const { tx } = props;
  const { client } = useOrg();
  const [address, setAddress] = useState('');
  // The form's own finding, until the address changes; else what the hub said of it, until then.
  const [problem, setProblem] = useState<string | null>(null);
  const [edited, setEdited] = useState(false);
  const command = useCommand(props);
  const input = useRef<HTMLInputElement>(null);
  const peer = tx.trp ? peerName(tx.trp.peer) : 'the TRP peer';
  const hubProblem = fieldErrors(command.error).address;
  const shown = problem ?? (edited ? undefined : hubProblem);
  useEffect(() => {
    setEdited(false);
    if (hubProblem) input.current?.focus();
  }, [command.error]);

  const check = () => {
    const found = addressProblem(address.trim());
    setProblem(found);
    if (found) input.current?.focus();
    return found === null;
  };
  const submit = () => {
    const body = { transactionRef: tx.transactionRef, address: address.trim() };
    command.run(
      () => unwrap(client.POST('/v1/transactions/approve', { body })),
      `Approved. The address is on its way to ${peer}.`,
    );
  };
  return (
    <ActionForm
      name="approve"
      title="Approve"
      intro={
        <>
          Approving tells {peer} over TRP that you accept the transfer for your customer, and gives it the
          address to pay. Screen the personal data first.
        </>
      }
      command={command}
      button="Approve transfer…"
      busyButton="Approving…"
      check={check}
      showsFieldErrors
      confirm={{
        question: (
          <>
            <strong>Approve this transfer and send the address to {peer}?</strong> This cannot be undone.
          </>
        ),
        yes: 'Yes, approve the transfer',
        back: 'Not yet',
      }}
      onSubmit={submit}
    >
      <Field
        id="approve-address"
        label="Address to be paid at"
        hint={`Your customer’s ${tx.transactionAsset} address: 1 to ${MAX_ADDRESS} printable characters, no spaces.`}
        error={shown}
      >
        {(aria) => (
          <input
            {...aria}
            ref={input}
            class="mono"
            required
            spellcheck={false}
            autocomplete="off"
            value={address}
            onInput={(e) => {
              setAddress(e.currentTarget.value);
              setProblem(null);
              setEdited(true);
            }}
          />
        )}
      </Field>
    </ActionForm>
  );
}
