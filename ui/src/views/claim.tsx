/**
 * The claim page (`/claim/<token>`, SPEC §12), opened from a NOTIFY e-mail by an exchange that is
 * not (or not known to be) in the hub's directory. No session and no stored key: the link's token
 * is read from the path and is the only credential. It shows the announcement (asset, amount,
 * destination, originator; never personal data) and the two ways in:
 * - Join: an application, reviewed by the hub's operator; the hub's field problems are shown at
 *   the fields; on success it says what happens next (review, then credentials by e-mail).
 * - Already a member: the member's own API key, typed in, sent once with the attach request and
 *   kept nowhere.
 * A link the hub no longer accepts (used, the transfer ended, unknown) is said to be not valid
 * any more, without saying why.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type Announcement,
  type ApplicationAccepted,
  type AttachResult,
  clientFor,
  describeError,
  fieldErrors,
  HubProblem,
  publicClient,
  unwrap,
} from '../api.js';
import { Field, FormError, textBinder } from '../components/forms.js';
import { InvalidLink, PublicPage } from '../components/public-page.js';
import { ErrorNote, Fact, Loading, Time } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { useAnnounce } from '../session.js';

type View =
  | { kind: 'loading' }
  | { kind: 'invalid' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'open'; announcement: Announcement }
  | { kind: 'applied'; announcement: Announcement; accepted: ApplicationAccepted; contactEmail: string }
  | { kind: 'attached'; announcement: Announcement; result: AttachResult };

const isNotFound = (err: unknown) => err instanceof HubProblem && err.status === 404;

export function ClaimPage({ token }: { token: string }) {
  const [view, setView] = useState<View>({ kind: 'loading' });
  const heading = useRef<HTMLHeadingElement>(null);

  const load = async () => {
    if (!token) return setView({ kind: 'invalid' });
    try {
      const announcement = await unwrap(
        publicClient().GET('/v1/claims/{token}', { params: { path: { token } } }),
      );
      setView({ kind: 'open', announcement });
    } catch (err) {
      setView(isNotFound(err) ? { kind: 'invalid' } : { kind: 'failed', error: err });
    }
  };
  useEffect(() => {
    load();
  }, [token]);

  /** A result replaces the forms: the focus goes to the page's heading, which now says it. */
  const finish = (next: View) => {
    setView(next);
    window.setTimeout(() => heading.current?.focus(), 0);
  };

  const title =
    view.kind === 'applied'
      ? 'Application sent'
      : view.kind === 'attached'
        ? 'The transfer is yours'
        : 'Travel rule data is waiting for you';

  return (
    <PublicPage title={view.kind === 'open' ? 'Claim a transfer' : title}>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {view.kind === 'loading' ? <Loading what="the announcement" /> : null}
      {view.kind === 'failed' ? (
        <>
          <ErrorNote error={view.error} prefix="Could not load the announcement:" />
          <button type="button" onClick={load}>
            Try again
          </button>
        </>
      ) : null}
      {view.kind === 'invalid' ? (
        <InvalidLink>
          <p>
            If you still need the travel rule data of this transfer, contact the exchange that sent it. If
            your exchange is a member of the hub, its transfers are in the compliance dashboard.
          </p>
        </InvalidLink>
      ) : null}
      {view.kind === 'open' ? (
        <>
          <p class="lead">
            <strong>{view.announcement.originator.name}</strong> is sending a transfer to an address of one of
            your customers and holds the travel rule data for it (who sends and who receives, as FATF
            Recommendation 16 requires). Receive it through Travel Rule Hub: join the hub, or, if your
            exchange is already a member, claim it with your API key.
          </p>
          <nav class="ways-nav" aria-label="Ways in">
            <a href="#join-heading">Join the hub</a>
            <a href="#member-heading">Already a member</a>
          </nav>
          <TransferFacts announcement={view.announcement} />
          <div class="ways">
            <JoinForm
              token={token}
              onInvalid={() => finish({ kind: 'invalid' })}
              onApplied={(accepted, contactEmail) =>
                finish({ kind: 'applied', announcement: view.announcement, accepted, contactEmail })
              }
            />
            <AttachForm
              token={token}
              onInvalid={() => finish({ kind: 'invalid' })}
              onAttached={(result) => finish({ kind: 'attached', announcement: view.announcement, result })}
            />
          </div>
        </>
      ) : null}
      {view.kind === 'applied' ? (
        <div class="note note-ok">
          <p>
            Thank you. The hub’s operator reviews the application of your exchange. Once it is approved, an
            e-mail to <strong class="break">{view.contactEmail}</strong> brings a link that shows your API key
            and webhook secret once (the link works for 24 hours); the announced transfer of{' '}
            {view.announcement.originator.name} then comes to your exchange. If the application is rejected,
            that e-mail says why.
          </p>
          <p class="small">
            Application <span class="mono break">{view.accepted.applicationId}</span>. This link is used up
            now.
          </p>
        </div>
      ) : null}
      {view.kind === 'attached' ? (
        <div class="note note-ok">
          <p>
            The transfer of {view.announcement.originator.name} now belongs to your exchange. The hub sends
            its <code>received</code> webhook to your travel endpoint, and the originator confirms it before
            the personal data follows, as for any transfer in the hub.
          </p>
          <p>
            <a href={`/ui/#/tx/${encodeURIComponent(view.result.transactionRef)}`}>
              Follow it in the compliance dashboard
            </a>{' '}
            (sign in there with your API key).
          </p>
        </div>
      ) : null}
      {view.kind === 'applied' || view.kind === 'attached' ? (
        <TransferFacts announcement={view.announcement} />
      ) : null}
    </PublicPage>
  );
}

function TransferFacts({ announcement: a }: { announcement: Announcement }) {
  return (
    <section class="panel" aria-labelledby="transfer-heading">
      <h2 id="transfer-heading">The transfer</h2>
      <dl class="facts">
        <Fact label="Amount">
          <span class="mono">{a.transactionAmount}</span> {a.transactionAsset}
        </Fact>
        <Fact label="To address">
          <span class="mono break">{a.destination}</span>
        </Fact>
        <Fact label="From">
          {a.originator.name} <span class="did">{a.originator.vaspDid}</span>
        </Fact>
        <Fact label="Announced">
          <Time iso={a.announcedAt} />
        </Fact>
        <Fact label="Reference">
          <span class="mono break">{a.transactionRef}</span>
        </Fact>
      </dl>
      <p class="small muted">
        No personal data is shown here: it goes only to a member of the hub, once the originator confirms the
        transfer.
      </p>
    </section>
  );
}

const EMPTY = { name: '', vaspDid: '', contactEmail: '', travelEndpoint: '', publicKey: '' };
type JoinFields = typeof EMPTY;
const FIELD_ORDER: (keyof JoinFields)[] = ['name', 'vaspDid', 'contactEmail', 'travelEndpoint', 'publicKey'];

function JoinForm({
  token,
  onApplied,
  onInvalid,
}: {
  token: string;
  onApplied: (accepted: ApplicationAccepted, contactEmail: string) => void;
  onInvalid: () => void;
}) {
  const announce = useAnnounce();
  const [form, setForm] = useState(EMPTY);
  const [member, setMember] = useState(false);
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);
  const text = textBinder(form, setForm);

  const submit = (e: Event) => {
    e.preventDefault();
    setMember(false);
    run(async () => {
      const optional = (v: string) => (v.trim() ? v.trim() : undefined);
      const body = {
        name: form.name.trim(),
        vaspDid: form.vaspDid.trim(),
        contactEmail: form.contactEmail.trim(),
        ...(optional(form.travelEndpoint) ? { travelEndpoint: optional(form.travelEndpoint) } : {}),
        ...(optional(form.publicKey) ? { publicKey: optional(form.publicKey) } : {}),
      };
      try {
        const accepted = await unwrap(
          publicClient().POST('/v1/claims/{token}/application', { params: { path: { token } }, body }),
        );
        announce('Application sent.');
        onApplied(accepted, body.contactEmail);
      } catch (err) {
        if (isNotFound(err)) return onInvalid();
        if (err instanceof HubProblem && err.status === 409) setMember(true);
        // Keyboard and screen-reader users land on the first field the hub found fault with.
        const bad = FIELD_ORDER.find((f) => fieldErrors(err)[f]);
        if (bad) window.setTimeout(() => document.getElementById(`join-${bad}`)?.focus(), 0);
        throw err;
      }
    });
  };

  const count = Object.keys(problems).length;
  return (
    <section class="panel way" aria-labelledby="join-heading">
      <h2 id="join-heading" tabIndex={-1}>
        Join the hub
      </h2>
      <p class="small">
        Apply for your exchange. The hub’s operator reviews the application; once approved, your exchange is a
        member and this transfer comes to it.
      </p>
      <form onSubmit={submit} noValidate>
        <Field id="join-name" label="Name of your exchange" error={problems.name}>
          {(aria) => (
            <input {...aria} {...text('name')} required maxLength={200} autocomplete="organization" />
          )}
        </Field>
        <Field
          id="join-vaspDid"
          label="DID"
          hint="Your exchange’s decentralized identifier, e.g. did:web:your-exchange.example."
          error={problems.vaspDid}
        >
          {(aria) => (
            <input
              {...aria}
              {...text('vaspDid')}
              required
              class="mono"
              spellcheck={false}
              autocapitalize="off"
              autocomplete="off"
            />
          )}
        </Field>
        <Field
          id="join-contactEmail"
          label="Contact e-mail"
          hint="The operator’s answer and, once approved, the link to your credentials go here."
          error={problems.contactEmail}
        >
          {(aria) => (
            <input
              {...aria}
              {...text('contactEmail')}
              type="email"
              required
              autocomplete="email"
              spellcheck={false}
            />
          )}
        </Field>
        <Field
          id="join-travelEndpoint"
          label="Travel endpoint (optional)"
          hint="The HTTPS address where the hub posts signed webhooks to your exchange. You can set it later."
          error={problems.travelEndpoint}
        >
          {(aria) => (
            <input
              {...aria}
              {...text('travelEndpoint')}
              type="url"
              class="mono"
              spellcheck={false}
              autocapitalize="off"
              placeholder="https://"
            />
          )}
        </Field>
        <Field
          id="join-publicKey"
          label="Public key, PEM (optional)"
          hint="X25519, P-256 or RSA, for transfers that carry the personal data encrypted to you. You can add it later."
          error={problems.publicKey}
        >
          {(aria) => <textarea {...aria} {...text('publicKey')} rows={3} class="mono" spellcheck={false} />}
        </Field>
        {count > 0 ? (
          <p role="alert" class="note note-error">
            The hub could not accept the application:{' '}
            {count === 1 ? 'one field needs' : `${count} fields need`} attention.
          </p>
        ) : (
          <FormError error={error} />
        )}
        {member ? (
          <p class="note note-info">
            An organization with this DID is already a member of the hub:{' '}
            <a href="#member-heading">claim the transfer with its API key</a> instead.
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Sending…' : 'Send application'}
        </button>
      </form>
    </section>
  );
}

function AttachForm({
  token,
  onAttached,
  onInvalid,
}: {
  token: string;
  onAttached: (result: AttachResult) => void;
  onInvalid: () => void;
}) {
  const announce = useAnnounce();
  const [key, setKey] = useState('');
  const [problem, setProblemText] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const { busy, run } = useAction();
  /** A problem with the key is said at the field, which takes the focus so it is heard. */
  const setProblem = (text: string | null) => {
    setProblemText(text);
    if (text) window.setTimeout(() => input.current?.focus(), 0);
  };

  const submit = (e: Event) => {
    e.preventDefault();
    setProblem(null);
    if (!key.trim()) {
      setProblem('Enter your organization’s API key.');
      return;
    }
    run(async () => {
      try {
        // The key goes in this one request's header and is not kept anywhere.
        const result = await unwrap(
          clientFor(key.trim()).POST('/v1/claims/{token}/attach', { params: { path: { token } } }),
        );
        setKey('');
        announce('The transfer is yours.');
        onAttached(result);
      } catch (err) {
        if (err instanceof HubProblem && err.status === 401) {
          setProblem('The hub does not accept this key: it is unknown or has been revoked.');
        } else if (err instanceof HubProblem && err.status === 403) {
          setProblem(
            `The hub refused this key: ${describeError(err)} Use a full-scope key of your organization.`,
          );
        } else if (isNotFound(err)) {
          // Either the link is no longer valid, or this organization may not have the transfer
          // (its originator, or not the member the transfer named): the link tells which.
          const still = await publicClient().GET('/v1/claims/{token}', { params: { path: { token } } });
          if (still.response.status === 404) return onInvalid();
          setProblem('The hub does not attach this transfer to the organization of this key.');
        } else {
          setProblem(describeError(err));
        }
      }
    });
  };

  return (
    <section class="panel way" aria-labelledby="member-heading">
      <h2 id="member-heading" tabIndex={-1}>
        Already a member
      </h2>
      <p class="small">
        If your exchange is already in the hub’s directory, claim the transfer with your organization’s API
        key.
      </p>
      <form onSubmit={submit} noValidate autocomplete="off">
        <Field
          id="member-key"
          label="API key"
          hint="A full-scope key (trh_…). It is sent once, to the hub only, and this page keeps no copy."
          error={problem ?? undefined}
        >
          {(aria) => (
            <input
              {...aria}
              ref={input}
              type="password"
              class="mono"
              required
              autocomplete="off"
              spellcheck={false}
              value={key}
              onInput={(e) => setKey(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Claiming…' : 'Claim the transfer'}
        </button>
      </form>
    </section>
  );
}
