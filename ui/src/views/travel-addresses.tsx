/**
 * The member's travel addresses (SPEC §16): mint one (with an optional expiry), list them newest
 * first with their state (active, expired, revoked) and Load more, copy one, revoke one after a
 * second question. A TRP VASP outside the hub sends its inquiry to an address; the transfer then
 * arrives in the inbox as inbound TRP. A hub without a TRP bridge answers 404, said as such; a
 * member without a publicKey and a travelEndpoint cannot mint (the hub answers 403), and is
 * pointed to the settings where both are set. A read-only session sees the list only.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { fieldErrors, HubProblem, type TravelAddress, unwrap } from '../api.js';
import { CopyButton } from '../components/copy-button.js';
import { Field, FormError } from '../components/forms.js';
import { ErrorNote, ListTable, Loading, LoadMore, PageHead, Time } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { href } from '../router.js';
import { useAnnounce, useMay, useOrg } from '../session.js';

const PAGE_SIZE = 25;

type State = 'active' | 'expired' | 'revoked';

function stateOf(t: TravelAddress, now = Date.now()): State {
  if (t.revokedAt) return 'revoked';
  if (t.expiresAt && Date.parse(t.expiresAt) <= now) return 'expired';
  return 'active';
}

const STATE_LABELS: Record<State, string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

/**
 * `ta2W…ws9wv`: enough of an address to tell it apart in a button's name or a question. Its end,
 * since addresses on one hub share their beginning (the hub's URL) and differ in token and checksum.
 */
const shortAddress = (t: { travelAddress: string }) =>
  `${t.travelAddress.slice(0, 4)}…${t.travelAddress.slice(-8)}`;

const is = (err: unknown, status: number) => err instanceof HubProblem && err.status === status;

export function TravelAddresses() {
  const { client, me } = useOrg();
  const canWrite = useMay('admin');
  const announce = useAnnounce();
  const [items, setItems] = useState<TravelAddress[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [minted, setMinted] = useState<TravelAddress | null>(null);
  // The hub refused to mint with 403 (the entry changed since this session read it).
  const [refusedMint, setRefusedMint] = useState(false);
  const [revoking, setRevoking] = useState<TravelAddress | null>(null);

  const page = (cursor?: string) =>
    unwrap(
      client.GET('/v1/travel-addresses', {
        params: { query: { limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) } },
      }),
    );

  useEffect(() => {
    page().then((p) => {
      setItems(p.travelAddresses);
      setNext(p.nextCursor);
    }, setError);
  }, []);

  const more = async () => {
    if (!next || !items) return;
    setLoadingMore(true);
    try {
      const p = await page(next);
      const known = new Set(items.map((t) => t.id));
      setItems([...items, ...p.travelAddresses.filter((t) => !known.has(t.id))]);
      setNext(p.nextCursor);
    } catch (err) {
      setError(err);
    } finally {
      setLoadingMore(false);
    }
  };

  const onMinted = (t: TravelAddress) => {
    setMinted(t);
    setItems([t, ...(items ?? []).filter((x) => x.id !== t.id)]);
    announce('Travel address minted.');
  };
  const onRevoked = (t: TravelAddress) => {
    setItems((items ?? []).map((x) => (x.id === t.id ? t : x)));
    if (minted?.id === t.id) setMinted(null);
    announce(`Travel address ${shortAddress(t)} revoked.`);
  };

  const noBridge = is(error, 404);
  const needsSetup = refusedMint || !me.publicKey || !me.travelEndpoint;
  return (
    <section aria-labelledby="ta-heading">
      <PageHead id="ta-heading" title="Travel addresses">
        <p class="muted small">
          A travel address (<code>ta…</code>) is what your customer gives a VASP outside the hub that speaks
          TRP, so that VASP can send you the travel rule data of its transfer: it arrives in your inbox as an
          inbound TRP transfer for you to approve or decline.
        </p>
      </PageHead>

      {noBridge ? (
        <div class="note note-info" role="note" aria-labelledby="no-bridge-heading">
          <h2 id="no-bridge-heading" class="note-title">
            This hub does not bridge to TRP
          </h2>
          <p>
            Its operator has not turned on the TRP bridge, so there are no travel addresses here and VASPs
            outside the hub cannot reach you over TRP. Transfers between members of the hub work as before.
          </p>
        </div>
      ) : (
        <>
          {needsSetup && canWrite ? <SetupNeeded /> : null}
          {!canWrite ? (
            <p class="note note-info">
              This session’s key may only read: minting and revoking travel addresses needs a key with the
              full scope.
            </p>
          ) : null}
          {canWrite && !needsSetup ? (
            <MintForm onMinted={onMinted} onForbidden={() => setRefusedMint(true)} />
          ) : null}
          {minted ? <Minted t={minted} /> : null}
          <ErrorNote error={error} />
          {revoking ? (
            <RevokeQuestion
              t={revoking}
              onDone={(t) => {
                setRevoking(null);
                if (t) onRevoked(t);
              }}
            />
          ) : null}
          {items === null ? (
            error ? null : (
              <Loading what="travel addresses" />
            )
          ) : items.length === 0 ? (
            <p class="empty">No travel address yet.</p>
          ) : (
            <AddressTable items={items} onRevoke={canWrite ? setRevoking : undefined} revoking={revoking} />
          )}
          {next ? <LoadMore onClick={more} busy={loadingMore} /> : null}
        </>
      )}
    </section>
  );
}

/** Why minting is not offered, and where to put it right. */
function SetupNeeded() {
  return (
    <div class="note note-info" role="note" aria-label="Before minting">
      <strong>Your organization needs a public key and a travel endpoint to mint travel addresses.</strong>
      <p>
        The personal data of an inbound TRP transfer reaches you encrypted for the public key, and the
        transfer is announced to the travel endpoint (<code>received</code> webhook). Set both in{' '}
        <a href={href('settings')}>Settings</a>.
      </p>
    </div>
  );
}

function MintForm({
  onMinted,
  onForbidden,
}: {
  onMinted: (t: TravelAddress) => void;
  onForbidden: () => void;
}) {
  const { client } = useOrg();
  const [expires, setExpires] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const shown = problem ?? fieldErrors(error).expiresAt;

  const submit = (e: Event) => {
    e.preventDefault();
    setProblem(null);
    // `datetime-local` is the browser's local time; the hub takes an instant.
    const at = expires ? new Date(expires) : null;
    if (at && Number.isNaN(at.getTime())) {
      setProblem('Enter a date and a time, or leave it empty.');
      return;
    }
    run(async () => {
      try {
        const body = at ? { expiresAt: at.toISOString() } : {};
        onMinted(await unwrap(client.POST('/v1/travel-addresses', { body })));
        setExpires('');
      } catch (err) {
        if (is(err, 403)) onForbidden();
        throw err;
      }
    });
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="mint-heading" noValidate>
      <h2 id="mint-heading">Mint a travel address</h2>
      <p class="small">Mint one per customer (or per deposit), as you hand them out.</p>
      <div class="inline-form">
        <Field
          id="ta-expires"
          label="Expires (optional)"
          hint="Your local time. Leave empty for an address that does not expire."
          error={shown}
        >
          {(aria) => (
            <input
              {...aria}
              type="datetime-local"
              value={expires}
              onInput={(e) => {
                setExpires(e.currentTarget.value);
                setProblem(null);
              }}
            />
          )}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Minting…' : 'Mint travel address'}
        </button>
      </div>
      <FormError error={error} />
    </form>
  );
}

/** The address just minted, ready to hand to the customer; it takes the focus. */
function Minted({ t }: { t: TravelAddress }) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), [t.id]);
  return (
    <div class="secret minted">
      <label for="minted-address">New travel address</label>
      <div class="secret-row">
        <input
          ref={input}
          id="minted-address"
          class="mono"
          readOnly
          value={t.travelAddress}
          spellcheck={false}
          autocomplete="off"
        />
        <CopyButton
          value={t.travelAddress}
          label="the new travel address"
          selectId="minted-address"
          what="Travel address"
        />
      </div>
      <p class="hint">
        {t.expiresAt ? (
          <>
            Takes inquiries until <Time iso={t.expiresAt} />.
          </>
        ) : (
          'Takes inquiries until you revoke it.'
        )}{' '}
        It is listed below.
      </p>
    </div>
  );
}

/** Revoking cannot be undone: asked once more, above the list; the question takes the focus. */
function RevokeQuestion({
  t,
  onDone,
}: {
  t: TravelAddress;
  onDone: (revoked: TravelAddress | null) => void;
}) {
  const { client } = useOrg();
  const { busy, error, run } = useAction();
  const question = useRef<HTMLParagraphElement>(null);
  useEffect(() => question.current?.focus(), [t.id]);
  const back = () => {
    onDone(null);
    window.setTimeout(() => document.getElementById(`revoke-${t.id}`)?.focus(), 0);
  };
  const revoke = () =>
    run(async () => {
      onDone(await unwrap(client.DELETE('/v1/travel-addresses/{id}', { params: { path: { id: t.id } } })));
    });
  return (
    <div class="confirm-row confirm-danger revoke-question">
      <p ref={question} tabIndex={-1} id="revoke-question">
        <strong>
          Revoke the travel address <span class="mono">{shortAddress(t)}</span>?
        </strong>{' '}
        Inquiries to it are refused from then on; transfers that came through it go on. This cannot be undone.
      </p>
      <button
        type="button"
        class="danger"
        onClick={revoke}
        disabled={busy}
        aria-describedby="revoke-question"
      >
        {busy ? 'Revoking…' : 'Yes, revoke it'}
      </button>
      <button type="button" class="secondary" onClick={back} disabled={busy}>
        Keep it
      </button>
      <ErrorNote error={error} prefix="Failed:" />
    </div>
  );
}

function AddressTable({
  items,
  onRevoke,
  revoking,
}: {
  items: TravelAddress[];
  /** Offered on active addresses; none in a read-only session. */
  onRevoke?: (t: TravelAddress) => void;
  revoking: TravelAddress | null;
}) {
  const now = Date.now();
  return (
    <ListTable
      label="Travel addresses"
      columns={['Travel address', 'Created', 'State', { label: 'Actions', hidden: true }]}
    >
      {items.map((t) => {
        const state = stateOf(t, now);
        return (
          <tr key={t.id}>
            <td data-label="Travel address">
              <span id={`ta-${t.id}`} class="mono break">
                {t.travelAddress}
              </span>
              <span class="did">{t.url}</span>
            </td>
            <td data-label="Created">
              <Time iso={t.createdAt} />
            </td>
            <td data-label="State">
              <span>
                <span class={`badge badge-ta-${state}`}>{STATE_LABELS[state]}</span>{' '}
                <span class="small">
                  {state === 'revoked' ? (
                    <Time iso={t.revokedAt} />
                  ) : t.expiresAt ? (
                    <>
                      {state === 'expired' ? '' : 'until '}
                      <Time iso={t.expiresAt} />
                    </>
                  ) : (
                    'no expiry'
                  )}
                </span>
              </span>
            </td>
            <td data-label="Actions">
              <span class="button-row">
                <CopyButton
                  value={t.travelAddress}
                  label={`travel address ${shortAddress(t)}`}
                  selectId={`ta-${t.id}`}
                  what="Travel address"
                />
                {onRevoke && state === 'active' ? (
                  <button
                    type="button"
                    id={`revoke-${t.id}`}
                    class="danger-outline small-button"
                    onClick={() => onRevoke(t)}
                    disabled={revoking?.id === t.id}
                    aria-label={`Revoke travel address ${shortAddress(t)}`}
                  >
                    Revoke…
                  </button>
                ) : null}
              </span>
            </td>
          </tr>
        );
      })}
    </ListTable>
  );
}
