/**
 * Whether the audit chain checks out (docs/records.md). Everyone sees the hub's most recent walk
 * (`GET /v1/audit/status`, which walks again at most every few minutes, so opening this page
 * never makes the hub read the whole chain); the operator can also walk it now ("Verify chain",
 * `GET /v1/admin/audit/verify`), whose result is then what organizations see too.
 */
import { useEffect, useState } from 'preact/hooks';
import { type ChainStatus, unwrap, type VerifyResult } from '../api.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useSession } from '../session.js';
import { ErrorNote, Loading, Time } from './ui.js';

/** What one walk found, and when it began (the status's time, or when the operator asked). */
type Shown = { result: VerifyResult | ChainStatus; checkedAt: string; now: boolean };

export function ChainState() {
  const session = useSession();
  const announce = useAnnounce();
  const verify = useAction();
  const [shown, setShown] = useState<Shown | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    unwrap(session.client.GET('/v1/audit/status')).then(
      (s) => live && setShown({ result: s, checkedAt: s.checkedAt, now: false }),
      (err) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [session]);

  const verifyNow = () =>
    verify.run(async () => {
      const checkedAt = new Date().toISOString();
      const result = await unwrap(session.client.GET('/v1/admin/audit/verify'));
      setShown({ result, checkedAt, now: true });
      setError(null);
      announce(
        result.ok ? 'The audit chain is intact.' : `The audit chain is broken at row ${result.broken?.seq}.`,
      );
    });

  return (
    <section class="panel" aria-labelledby="chain-heading">
      <h2 id="chain-heading">Chain verification</h2>
      <ErrorNote error={error ?? verify.error} />
      {shown ? (
        <Verdict shown={shown} operator={session.kind === 'operator'} />
      ) : error ? null : (
        <Loading what="the chain’s state" />
      )}
      {session.kind === 'operator' ? (
        <p>
          <button type="button" onClick={verifyNow} disabled={verify.busy}>
            {verify.busy ? 'Verifying…' : 'Verify chain'}
          </button>{' '}
          <span class="muted small">Walks every row now; on a long chain this takes a while.</span>
        </p>
      ) : (
        <p class="muted small">
          The result of the hub’s latest walk of the whole chain; it walks again at most every five minutes.
          Every download ends with a checkpoint signed by the hub’s audit key: keep it, and check the file
          later with <code>travel-rule-hub audit verify --file … --partial</code>.
        </p>
      )}
    </section>
  );
}

function Verdict({ shown, operator }: { shown: Shown; operator: boolean }) {
  const { result, checkedAt, now } = shown;
  const when = (
    <>
      {now ? 'Verified just now' : 'Last verified'} (<Time iso={checkedAt} />)
    </>
  );
  if (result.ok) {
    return (
      <div class="note note-ok">
        <p class="note-title">
          <strong>Intact.</strong> {when}: {result.rows} {result.rows === 1 ? 'row' : 'rows'} checked, every
          link holds.
        </p>
        <p class="small">
          Head: row {result.head.seq}, hash <code class="break">{result.head.hash}</code>
        </p>
      </div>
    );
  }
  return (
    <div class="note note-error">
      <p class="note-title">
        <strong>Broken at row {result.broken?.seq}.</strong> {when}: {result.broken?.reason}
      </p>
      <p class="small">
        {intactUpTo(result.head.seq)} A row was changed, removed or moved behind the database’s back
        {operator ? '' : ': tell the hub’s operator'}. Compare with a checkpoint kept outside the hub (
        <code>travel-rule-hub audit verify --checkpoint</code>).
      </p>
    </div>
  );
}

function intactUpTo(seq: number): string {
  if (seq === 0) return 'No row before it checks out.';
  return seq === 1 ? 'Row 1 checks out.' : `Rows 1 to ${seq} check out.`;
}
