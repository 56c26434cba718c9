/**
 * The claim page (`/claim/<token>`, SPEC §12), opened from a NOTIFY e-mail by an exchange that is
 * not (or not known to be) in the hub's directory. No stored key: the link's token
 * is read from the path and is the only credential. It shows the announcement (asset, amount,
 * destination, originator; never personal data) and the two ways in:
 * - Join: an application, reviewed by the hub's operator; the hub's field problems are shown at
 *   the fields; on success it says what happens next (review, then credentials by e-mail).
 * - Already a member: the member's dashboard session, when a person of it is signed in in this
 *   browser (analyst or admin), or the member's own API key, typed in, sent once with the attach
 *   request and kept nowhere.
 * An application made through the link is shown by its state whenever the link is reopened
 * (waiting, rejected with the operator's reason, approved): the forms are offered only when the
 * link takes an application (none yet, or the last was rejected), so a rejected applicant applies
 * again here. A link the hub no longer accepts (attached, the transfer ended, unknown) is said to
 * be not valid any more, without saying why.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type Announcement,
  type ApplicationAccepted,
  type AttachResult,
  publicClient,
  unwrap,
} from '../api.js';
import { InvalidLink, PublicPage } from '../components/public-page.js';
import { ErrorNote, Fact, Loading, Time } from '../components/ui.js';
import { AttachForm, isNotFound, JoinForm } from './claim-forms.js';

type View =
  | { kind: 'loading' }
  | { kind: 'invalid' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'open'; announcement: Announcement }
  | { kind: 'applied'; announcement: Announcement; accepted: ApplicationAccepted; contactEmail: string }
  | { kind: 'attached'; announcement: Announcement; result: AttachResult };

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

  const latest = view.kind === 'open' ? view.announcement.application : null;
  const title =
    view.kind === 'applied'
      ? 'Application sent'
      : view.kind === 'attached'
        ? 'The transfer is yours'
        : latest
          ? APPLICATION_TITLES[latest.status]
          : 'Travel rule data is waiting for you';
  const offersForms = view.kind === 'open' && (latest === null || latest.status === 'rejected');

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
      {view.kind === 'open' && latest ? (
        <ApplicationState application={latest} originator={view.announcement.originator.name} />
      ) : null}
      {view.kind === 'open' && !offersForms ? <TransferFacts announcement={view.announcement} /> : null}
      {view.kind === 'open' && offersForms ? (
        <>
          <p class="lead">
            <strong>{view.announcement.originator.name}</strong> is sending a transfer to an address of one of
            your customers and holds the travel rule data for it (who sends and who receives, as FATF
            Recommendation 16 requires). Receive it through Travel Rule Hub: join the hub, or, if your
            exchange is already a member, claim it with your API key.
          </p>
          <nav class="ways-nav" aria-label="Ways in">
            {view.announcement.canApply ? <a href="#join-heading">Join the hub</a> : null}
            <a href="#member-heading">Already a member</a>
          </nav>
          <TransferFacts announcement={view.announcement} />
          <div class="ways">
            {view.announcement.canApply ? (
              <JoinForm
                token={token}
                onInvalid={() => finish({ kind: 'invalid' })}
                onApplied={(accepted, contactEmail) =>
                  finish({ kind: 'applied', announcement: view.announcement, accepted, contactEmail })
                }
              />
            ) : null}
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
            Application <span class="mono break">{view.accepted.applicationId}</span>. Open this link again to
            see the state of the application; an acknowledgement went to that address as well.
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
            (sign in there with your account or your API key).
          </p>
        </div>
      ) : null}
      {view.kind === 'applied' || view.kind === 'attached' ? (
        <TransferFacts announcement={view.announcement} />
      ) : null}
    </PublicPage>
  );
}

const APPLICATION_TITLES: Record<NonNullable<Announcement['application']>['status'], string> = {
  pending: 'Your application is waiting for review',
  rejected: 'Your application was not approved',
  approved: 'Your application was approved',
};

/**
 * The latest application through this link: its state, dates and the operator's reason. Whoever
 * holds the link sees this, so it says nothing the applicant gave (name, DID, contact).
 */
function ApplicationState({
  application: a,
  originator,
}: {
  application: NonNullable<Announcement['application']>;
  originator: string;
}) {
  if (a.status === 'pending') {
    return (
      <div class="note" role="status" data-testid="application-state">
        <p>
          An application to join the hub was made through this link on <Time iso={a.appliedAt} />. The hub’s
          operator reviews it; the answer comes by e-mail to the contact address it gave. No other application
          can be made through this link meanwhile.
        </p>
      </div>
    );
  }
  if (a.status === 'approved') {
    return (
      <div class="note note-ok" role="status" data-testid="application-state">
        <p>
          The application made through this link on <Time iso={a.appliedAt} /> was approved on{' '}
          <Time iso={a.decidedAt} />. The single-use link to your API key and webhook secret went by e-mail to
          the address this claim link was sent to; the transfer of {originator} comes to your exchange.
        </p>
      </div>
    );
  }
  return (
    <div class="note note-error" role="status" data-testid="application-state">
      <p>
        The hub’s operator did not approve the application made through this link on{' '}
        <Time iso={a.appliedAt} /> (decided <Time iso={a.decidedAt} />
        ).
      </p>
      {a.rejectReason ? (
        <p>
          <strong>The operator’s reason:</strong> <span class="break">{a.rejectReason}</span>
        </p>
      ) : null}
      <p>You may apply again below, for instance with what the reason asks for.</p>
    </div>
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
