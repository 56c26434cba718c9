/**
 * The e-mails the hub sends and their delivery state, for the operator: NOTIFY announcements and
 * cancellations (to exchanges outside the directory), the answers to applications to join
 * (approval with the credentials link, rejection with the reason) and notices of a changed
 * travel endpoint or public key (to the organization's contact address).
 */
import { useEffect, useState } from 'preact/hooks';
import { type Email, unwrap } from '../api.js';
import { ErrorNote, ListTable, Loading, LoadMore, PageHead, StatusBadge, Time } from '../components/ui.js';
import { STATUS_LABELS, shortRef } from '../format.js';
import { useAction, usePoll } from '../hooks.js';
import { useAnnounce, useMay, useSession } from '../session.js';
import { POLL_MS } from './transactions.js';

type Status = Email['status'];

const EMAIL_EVENT_LABELS: Partial<Record<Email['event'], string>> = {
  notify: 'Announcement',
  'notify-cancelled': 'Cancellation',
  'application-received': 'Application received',
  'application-approved': 'Approval',
  'application-approved-contact': 'Approval notice',
  'application-rejected': 'Rejection',
  'endpoint-changed': 'Endpoint changed',
  'endpoint-down': 'Endpoint down',
};

/** `endpoint-changed` → `Endpoint changed`; a kind without a label of its own reads as its name. */
export function emailEventLabel(event: Email['event']): string {
  const label = EMAIL_EVENT_LABELS[event];
  if (label) return label;
  const spaced = event.replaceAll('-', ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

const COLUMNS = [
  'Event',
  'To',
  'Transaction',
  'Queued',
  'Status',
  { label: 'Attempts', num: true },
  'Last answer',
  'Action',
];

export function OperatorEmails() {
  const { client } = useSession();
  const [status, setStatus] = useState<Status | ''>('');
  const [emails, setEmails] = useState<Email[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [smtp, setSmtp] = useState<boolean | null>(null);
  const [error, setError] = useState<unknown>(null);

  const page = (cursor?: string) =>
    unwrap(
      client.GET('/v1/admin/emails', {
        params: { query: { limit: '50', ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) } },
      }),
    );
  const load = async () => {
    const r = await page();
    setEmails(r.emails);
    setNext(r.nextCursor);
    setSmtp(r.smtpConfigured);
    setError(null);
  };
  useEffect(() => {
    setEmails(null);
    load().catch(setError);
  }, [status]);
  usePoll(
    async () => {
      if (!next) await load(); // only while everything fits one page: don't drop what "more" loaded
    },
    POLL_MS,
    [status, next],
  );

  const more = async () => {
    if (!next || !emails) return;
    try {
      const r = await page(next);
      setEmails([...emails, ...r.emails]);
      setNext(r.nextCursor);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="emails-heading">
      <PageHead id="emails-heading" title="E-mails">
        <p class="muted small">
          Announcements of NOTIFY transfers to exchanges outside the directory (and their cancellations), the
          answers to applications to join (an approval carries the credentials link), and notices to an
          organization’s contact address when its travel endpoint or public key changes.
        </p>
      </PageHead>
      {smtp === false ? (
        <p class="note note-info">
          No SMTP server is configured (<code>SMTP_URL</code>): e-mails wait in the outbox until one is.
        </p>
      ) : null}
      <form class="filters" aria-label="Filter e-mails" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="email-status">Status</label>
          <select
            id="email-status"
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as Status | '')}
          >
            <option value="">Any</option>
            {(['PENDING', 'DELIVERED', 'FAILED', 'HELD', 'CANCELLED'] as const).map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
      </form>
      <ErrorNote error={error} />
      {emails === null ? (
        <Loading what="e-mails" />
      ) : emails.length === 0 ? (
        <p class="empty">No e-mail{status ? ' in this state' : ' yet'}.</p>
      ) : (
        <ListTable label="E-mails" columns={COLUMNS}>
          {emails.map((m) => {
            const last = m.attemptLog[m.attemptLog.length - 1];
            return (
              <tr key={m.id}>
                <td data-label="Event">{emailEventLabel(m.event)}</td>
                <td data-label="To" class="break">
                  {m.to}
                </td>
                <td data-label="Transaction" class="mono">
                  {m.transactionRef ? shortRef(m.transactionRef) : '—'}
                </td>
                <td data-label="Queued">
                  <Time iso={m.createdAt} />
                </td>
                <td data-label="Status">
                  <StatusBadge status={m.status} />
                </td>
                <td data-label="Attempts" class="num">
                  {m.attempts}
                </td>
                <td data-label="Last answer" class="small">
                  {last
                    ? `${last.statusCode ?? 'no answer'}${last.error ? ` · ${last.error}` : ''}`
                    : m.status === 'DELIVERED'
                      ? 'accepted'
                      : 'not tried yet'}
                </td>
                <td data-label="Action">
                  {m.status === 'FAILED' ? (
                    <RedeliverEmail email={m} onDone={() => load().catch(setError)} />
                  ) : null}
                </td>
              </tr>
            );
          })}
        </ListTable>
      )}
      {next ? <LoadMore onClick={more} /> : null}
    </section>
  );
}

/** A FAILED e-mail used up its retries (an SMTP outage, say): queue it again, same Message-ID. */
function RedeliverEmail({ email, onDone }: { email: Email; onDone: () => void }) {
  const { client } = useSession();
  const announce = useAnnounce();
  const { busy, error, run } = useAction();
  const mayRedeliver = useMay('admin');
  const redeliver = () =>
    run(async () => {
      await unwrap(client.POST('/v1/admin/emails/{id}/redeliver', { params: { path: { id: email.id } } }));
      announce(`The e-mail to ${email.to} is queued again.`);
      onDone();
    });
  if (!mayRedeliver) return null;
  return (
    <>
      <button type="button" onClick={redeliver} disabled={busy}>
        {busy ? 'Queuing…' : 'Redeliver'}
      </button>
      <ErrorNote error={error} prefix="Could not redeliver:" />
    </>
  );
}
