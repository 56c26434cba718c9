/**
 * Applications to join the hub (SPEC §12): an exchange that got a NOTIFY e-mail applied through
 * its claim link, and the operator decides. Waiting ones come first, oldest first, each with what
 * the applicant said and the address the claim link went to, shown as the originator chose it (not
 * verified), with whether its domain matches the applicant's DID and contact or is the originator's.
 * Approving (after a second question) creates the organization, verified, e-mails a single-use
 * link to its credentials to that address, and makes the transfer its; rejecting needs a reason, which
 * is e-mailed to the applicant. Decided ones follow, with who decided and when.
 * The count of waiting ones is shared with the navigation's badge and the overview.
 */
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { type Application, HubProblem, unwrap } from '../api.js';
import { Field } from '../components/forms.js';
import { ErrorNote, Fact, ListTable, Loading, PageHead, Time } from '../components/ui.js';
import { useAction, usePoll } from '../hooks.js';
import { href } from '../router.js';
import { type Session, useAnnounce, useMay, useOperator } from '../session.js';
import { POLL_MS } from './transactions.js';

/** How often the navigation asks for the count of waiting applications. */
const COUNT_POLL_MS = 10_000;

interface PendingCount {
  /** Applications waiting for review; null until known. */
  count: number | null;
  /** Sets the count from an answer that carried it (every list does). */
  set: (count: number) => void;
}

export const PendingApplicationsContext = createContext<PendingCount>({ count: null, set: () => {} });
export const usePendingApplications = () => useContext(PendingApplicationsContext);

/** For the operator's shell: the count of waiting applications, kept fresh by polling. */
export function usePendingCount(session: Session): PendingCount {
  const [count, setCount] = useState<number | null>(null);
  const load = async () => {
    if (session.kind !== 'operator') return;
    const r = await unwrap(session.client.GET('/v1/admin/queue'));
    setCount(r.pendingApplications);
  };
  useEffect(() => {
    load().catch(() => {});
  }, [session]);
  usePoll(load, COUNT_POLL_MS, [session]);
  return { count, set: setCount };
}

/** `operator:<id>:alice` (or `operator:bootstrap`) → `alice`. */
const byWhom = (actor: string | null) => (actor ?? '—').replace(/^operator:(?:[0-9a-f-]{36}:)?/, '');

const oldestFirst = (a: Application, b: Application) => a.createdAt.localeCompare(b.createdAt);
const newestDecisionFirst = (a: Application, b: Application) =>
  (b.decidedAt ?? '').localeCompare(a.decidedAt ?? '');

export function OperatorApplications() {
  const { client } = useOperator();
  const pending = usePendingApplications();
  const [apps, setApps] = useState<Application[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Shown here, not on its card: the card is gone once the list shows the other operator's decision.
  const [conflict, setConflict] = useState<unknown>(null);
  const waitingHeading = useRef<HTMLHeadingElement>(null);

  const load = async () => {
    const r = await unwrap(client.GET('/v1/admin/applications'));
    setApps(r.applications);
    pending.set(r.pending);
    setError(null);
  };
  const reload = () => load().catch(setError);
  useEffect(() => {
    reload();
  }, []);
  usePoll(load, POLL_MS, []);

  /** After a decision its card leaves the list: the focus goes to the list's heading. */
  const decided = async (err: unknown = null) => {
    setConflict(err);
    await reload();
    waitingHeading.current?.focus();
  };

  const waiting = (apps ?? []).filter((a) => a.status === 'pending').sort(oldestFirst);
  const done = (apps ?? []).filter((a) => a.status !== 'pending').sort(newestDecisionFirst);

  return (
    <section aria-labelledby="applications-heading">
      <PageHead id="applications-heading" title="Applications">
        <p class="muted small">
          Exchanges outside the directory that received a NOTIFY e-mail and applied to join through its claim
          link. Approving creates the organization (verified), e-mails a single-use link to its API key and
          webhook secret to the address the claim link went to, and makes the announced transfer its.
          Rejecting e-mails your reason.
        </p>
      </PageHead>
      <ErrorNote error={error} />
      <ErrorNote error={conflict} prefix="Not possible now:" />
      <h2 id="waiting-heading" ref={waitingHeading} tabIndex={-1}>
        Waiting for review{apps ? ` (${waiting.length})` : ''}
      </h2>
      {apps === null ? (
        error ? null : (
          <Loading what="applications" />
        )
      ) : waiting.length === 0 ? (
        <p class="empty">No application is waiting.</p>
      ) : (
        <>
          <p class="muted small">Oldest first.</p>
          <ul class="applications">
            {waiting.map((a) => (
              <li key={a.id}>
                <PendingApplication application={a} onDecided={decided} />
              </li>
            ))}
          </ul>
        </>
      )}

      <h2>Decided</h2>
      {apps === null ? null : done.length === 0 ? (
        <p class="empty">No application decided yet.</p>
      ) : (
        <ListTable
          label="Decided applications"
          columns={['Name', 'DID', 'Decision', 'By', 'When', 'Details']}
        >
          {done.map((a) => (
            <tr key={a.id}>
              <td data-label="Name">{a.name}</td>
              <td data-label="DID" class="did">
                {a.vaspDid}
              </td>
              <td data-label="Decision">
                <span class={`badge badge-${a.status}`}>
                  {a.status === 'approved' ? 'Approved' : 'Rejected'}
                </span>
              </td>
              <td data-label="By">{byWhom(a.decidedBy)}</td>
              <td data-label="When">
                <Time iso={a.decidedAt} />
              </td>
              <td data-label="Details" class="small">
                {a.status === 'approved' && a.organizationId ? (
                  <a href={href('organizations', a.organizationId)}>Organization {a.name}</a>
                ) : a.rejectReason ? (
                  <span class="pre-wrap">{a.rejectReason}</span>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </section>
  );
}

type Mode = 'idle' | 'approve' | 'reject';

/** One check of the claim address's domain: yes, no, or unknown (a DID that names no domain). */
function domainCheck(match: boolean | null, yes: string, no: string) {
  if (match === null) return <span class="muted">{`${yes.replace(/^is /, 'whether it is ')}: unknown`}</span>;
  return match ? yes : <strong>{no}</strong>;
}

function PendingApplication({
  application: a,
  onDecided,
}: {
  application: Application;
  /** After a decision, or with the hub's 409 when another operator decided first. */
  onDecided: (conflict?: unknown) => Promise<void>;
}) {
  const { client } = useOperator();
  const announce = useAnnounce();
  const mayDecide = useMay('admin');
  const [mode, setMode] = useState<Mode>('idle');
  const [reason, setReason] = useState('');
  const { busy, error, run } = useAction();
  const question = useRef<HTMLParagraphElement>(null);
  const reasonInput = useRef<HTMLTextAreaElement>(null);
  const headingId = `application-${a.id}`;
  useEffect(() => {
    if (mode === 'approve') question.current?.focus();
    if (mode === 'reject') reasonInput.current?.focus();
  }, [mode]);

  const path = { params: { path: { id: a.id } } };
  /** A 409: another operator decided first. The list then shows how. */
  const decide = (command: () => Promise<unknown>, done: string) =>
    run(async () => {
      try {
        await command();
      } catch (err) {
        if (!(err instanceof HubProblem && err.status === 409)) throw err;
        await onDecided(err);
        return;
      }
      announce(done);
      await onDecided();
    });
  const approve = () =>
    decide(
      () => unwrap(client.POST('/v1/admin/applications/{id}/approve', path)),
      `${a.name} approved: the organization is created and its credentials link is e-mailed to ${a.notificationEmail}.`,
    );
  const reject = (e: Event) => {
    e.preventDefault();
    decide(
      () =>
        unwrap(
          client.POST('/v1/admin/applications/{id}/reject', { ...path, body: { reason: reason.trim() } }),
        ),
      `${a.name} rejected; the reason is e-mailed to ${a.contactEmail}.`,
    );
  };

  return (
    <article class="application" aria-labelledby={headingId}>
      <header class="application-head">
        <h3 id={headingId}>{a.name}</h3>
        <span class="badge badge-pending">Waiting</span>
      </header>
      <dl class="facts">
        <Fact label="DID">
          <span class="did">{a.vaspDid}</span>
        </Fact>
        <Fact label="Contact e-mail">
          <span class="break">{a.contactEmail}</span>
        </Fact>
        <Fact label="Claim link sent to">
          <span class="break">{a.notificationEmail}</span>{' '}
          <span class="small muted">
            (chosen by the originator
            {a.claimAddress.chosenBy ? `, ${a.claimAddress.chosenBy.name}` : ''}; not verified)
          </span>
          <ul class="small claim-checks" aria-label="The claim address’s domain">
            <li>
              {domainCheck(a.claimAddress.matchesDid, 'is the DID’s domain', 'is not the DID’s domain')}
            </li>
            <li>
              {domainCheck(
                a.claimAddress.matchesContact,
                'is the contact’s domain',
                'is not the contact’s domain',
              )}
            </li>
            {a.claimAddress.originatorDomain ? (
              <li>
                <strong>is the originator’s own domain</strong>
              </li>
            ) : null}
          </ul>
        </Fact>
        <Fact label="Travel endpoint">
          {a.travelEndpoint ? (
            <span class="mono small break">{a.travelEndpoint}</span>
          ) : (
            <span class="muted">none yet</span>
          )}
        </Fact>
        <Fact label="Public key">
          {a.publicKey ? (
            <details>
              <summary>provided</summary>
              <pre class="pem">{a.publicKey}</pre>
            </details>
          ) : (
            <span class="muted">none yet</span>
          )}
        </Fact>
        <Fact label="For transfer">
          <span class="mono break">{a.transactionRef}</span>
        </Fact>
        <Fact label="Applied">
          <Time iso={a.createdAt} />
        </Fact>
      </dl>
      <ErrorNote error={error} prefix="Not possible:" />
      {!mayDecide ? (
        <p class="muted small">An operator viewer reads only: an operator admin approves or rejects.</p>
      ) : mode === 'idle' ? (
        <div class="button-row">
          <button type="button" onClick={() => setMode('approve')}>
            Approve<span class="sr-only"> {a.name}</span>
          </button>
          <button type="button" class="danger-outline" onClick={() => setMode('reject')}>
            Reject<span class="sr-only"> {a.name}</span>
          </button>
        </div>
      ) : mode === 'approve' ? (
        <div class="confirm-row">
          <p ref={question} tabIndex={-1} id={`${headingId}-question`}>
            <strong>Approve {a.name}?</strong> The hub creates the organization, verified, and e-mails its
            credentials link to {a.notificationEmail}.
          </p>
          <button type="button" onClick={approve} disabled={busy} aria-describedby={`${headingId}-question`}>
            {busy ? 'Approving…' : 'Yes, approve'}
          </button>
          <button type="button" class="secondary" onClick={() => setMode('idle')} disabled={busy}>
            Back
          </button>
        </div>
      ) : (
        <form class="reject-form" onSubmit={reject}>
          <Field
            id={`${headingId}-reason`}
            label="Reason for the rejection"
            hint="Required; up to 2000 characters. It is e-mailed to the applicant."
          >
            {(aria) => (
              <textarea
                {...aria}
                ref={reasonInput}
                required
                maxLength={2000}
                rows={3}
                value={reason}
                onInput={(e) => setReason(e.currentTarget.value)}
              />
            )}
          </Field>
          <div class="button-row">
            <button type="submit" class="danger" disabled={busy || reason.trim() === ''}>
              {busy ? 'Rejecting…' : 'Reject application'}
            </button>
            <button type="button" class="secondary" onClick={() => setMode('idle')} disabled={busy}>
              Back
            </button>
          </div>
        </form>
      )}
    </article>
  );
}
