/**
 * The caller's own review of a transaction (SPEC §17): its state, who it is assigned to, and the
 * notes, with a form to change them for those who may act (analysts, admins, full keys). Only the
 * caller's organization ever sees it; note text shows only to those allowed to read personal data
 * (the hub sends `text: null` to a viewer). The form keeps what is typed across the page's
 * refreshes: it starts from the review as loaded and takes the saved one after each save.
 */
import { useEffect, useState } from 'preact/hooks';
import { type ReviewAssignee as Assignee, type Transaction, unwrap } from '../api.js';
import { Field } from '../components/forms.js';
import { ErrorNote, Fact, Time } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useMay, useOrg } from '../session.js';

type Review = Transaction['review'];
type ReviewState = Review['state'];

export const REVIEW_LABELS: Record<ReviewState, string> = {
  open: 'Open',
  in_review: 'In review',
  cleared: 'Cleared',
  escalated: 'Escalated',
};

const NOTE_MAX = 2000;

export function ReviewPanel({ tx, onChanged }: { tx: Transaction; onChanged: () => void }) {
  const review = tx.review;
  const mayAct = useMay('act');
  return (
    <section class="panel review" aria-labelledby="review-heading">
      <h2 id="review-heading">Your review</h2>
      <p class="muted small">
        Only your organization sees this review and its notes; the counterparty never does.
      </p>
      <dl class="facts">
        <Fact label="State">
          <span class={`badge review-${review.state}`}>{REVIEW_LABELS[review.state]}</span>
        </Fact>
        <Fact label="Assigned to">
          {review.assignee ? review.assignee.name : <span class="muted">nobody</span>}
        </Fact>
        {review.updatedAt ? (
          <Fact label="Last change">
            <Time iso={review.updatedAt} />
          </Fact>
        ) : null}
      </dl>
      <Notes notes={review.notes} />
      {mayAct ? (
        <ReviewForm tx={tx} onChanged={onChanged} />
      ) : (
        <p class="muted small">Your access may only read reviews; an analyst or admin can change them.</p>
      )}
    </section>
  );
}

function Notes({ notes }: { notes: Review['notes'] }) {
  if (notes.length === 0) return <p class="muted small">No notes yet.</p>;
  const hidden = notes.some((n) => n.text === null);
  return (
    <>
      <h3 class="review-notes-heading">Notes</h3>
      {hidden ? (
        <p class="muted small">
          Notes may name people: their text is shown to roles that may read personal data.
        </p>
      ) : null}
      <ol class="review-notes">
        {notes.map((n, i) => (
          <li key={`${n.at}-${i}`}>
            <p class="small muted">
              <Time iso={n.at} /> · {n.by.name}
            </p>
            {n.text === null ? <p class="muted">(text hidden)</p> : <p class="review-note-text">{n.text}</p>}
          </li>
        ))}
      </ol>
    </>
  );
}

function ReviewForm({ tx, onChanged }: { tx: Transaction; onChanged: () => void }) {
  const { client } = useOrg();
  const announce = useAnnounce();
  const { busy, error, run } = useAction();
  const [state, setState] = useState<ReviewState>(tx.review.state);
  const [assignee, setAssignee] = useState(tx.review.assignee?.id ?? '');
  const [note, setNote] = useState('');
  const [people, setPeople] = useState<Assignee[] | null>(null);

  useEffect(() => {
    unwrap(client.GET('/v1/reviews/assignees')).then(
      (r) => setPeople(r.assignees),
      () => setPeople([]),
    );
  }, [client]);

  const before = tx.review.assignee?.id ?? '';
  const changed = state !== tx.review.state || assignee !== before || note.trim() !== '';
  const save = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const saved = await unwrap(
        client.POST('/v1/transactions/{transactionRef}/review', {
          params: { path: { transactionRef: tx.transactionRef } },
          body: {
            state,
            ...(assignee !== before ? { assigneeUserId: assignee === '' ? null : assignee } : {}),
            ...(note.trim() ? { note: note.trim() } : {}),
          },
        }),
      );
      setNote('');
      setState(saved.state);
      setAssignee(saved.assignee?.id ?? '');
      announce(`Review saved: ${REVIEW_LABELS[saved.state]}.`);
      onChanged();
    });
  };

  return (
    <form class="action review-form" onSubmit={save} aria-labelledby="review-form-heading">
      <h3 id="review-form-heading">Change the review</h3>
      <div class="review-fields">
        <Field id="review-state" label="State">
          {(aria) => (
            <select {...aria} value={state} onChange={(e) => setState(e.currentTarget.value as ReviewState)}>
              {Object.entries(REVIEW_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="review-assignee" label="Assigned to">
          {(aria) => (
            <select {...aria} value={assignee} onChange={(e) => setAssignee(e.currentTarget.value)}>
              <option value="">Nobody</option>
              {(people ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name} ({p.role})
                </option>
              ))}
              {/* A removed or re-roled assignee still shows as chosen. */}
              {before && people && !people.some((p) => p.id === before) ? (
                <option value={before}>{tx.review.assignee?.name}</option>
              ) : null}
            </select>
          )}
        </Field>
      </div>
      <Field
        id="review-note"
        label="Add a note (optional)"
        hint={`Up to ${NOTE_MAX} characters. Sealed at rest; only your organization reads it.`}
      >
        {(aria) => (
          <textarea
            {...aria}
            maxLength={NOTE_MAX}
            rows={3}
            value={note}
            onInput={(e) => setNote(e.currentTarget.value)}
          />
        )}
      </Field>
      <ErrorNote error={error} prefix="Not saved:" />
      <button type="submit" disabled={busy || !changed}>
        {busy ? 'Saving…' : 'Save review'}
      </button>
    </form>
  );
}
