/**
 * `#/tx/<ref>` with a full reference shows the transaction; with a short one (its first 8 or more
 * characters, as the lists and e-mails show them) the hub is asked (`q`) and the one match is
 * shown under its full reference. No match, several, or something that is no reference at all get
 * a page that says so, rather than the hub's "must match format uuid".
 */
import { useEffect, useState } from 'preact/hooks';
import { type TransactionSummary, unwrap } from '../api.js';
import { ErrorNote, Loading } from '../components/ui.js';
import { shortRef } from '../format.js';
import { href } from '../router.js';
import { useOrg } from '../session.js';
import { TransactionPage } from './transaction.js';

const FULL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHORT = /^[0-9a-f]{8}[0-9a-f-]{0,28}$/i;

export function TransactionRoute({ transactionRef }: { transactionRef: string }) {
  if (FULL.test(transactionRef)) return <TransactionPage transactionRef={transactionRef} />;
  if (!SHORT.test(transactionRef)) return <NoSuchTransfer what={transactionRef} />;
  return <ShortRef prefix={transactionRef.toLowerCase()} />;
}

function ShortRef({ prefix }: { prefix: string }) {
  const { client } = useOrg();
  const [matches, setMatches] = useState<TransactionSummary[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    unwrap(client.GET('/v1/transactions', { params: { query: { q: prefix, limit: '20' } } })).then(
      // `q` also matches addresses and names: keep the references that start so.
      (p) => setMatches(p.transactions.filter((t) => t.transactionRef.startsWith(prefix))),
      setError,
    );
  }, [prefix]);

  if (error) {
    return (
      <section>
        <h1>Transaction {prefix}</h1>
        <ErrorNote error={error} />
      </section>
    );
  }
  if (matches === null) return <Loading what="the transaction" />;
  if (matches.length === 1) {
    const ref = matches[0]!.transactionRef;
    // The full reference in the address too, so it can be copied as it is.
    window.history.replaceState(window.history.state, '', href('tx', ref));
    return <TransactionPage transactionRef={ref} />;
  }
  if (matches.length === 0) return <NoSuchTransfer what={prefix} />;
  return (
    <section aria-labelledby="several-heading">
      <h1 id="several-heading" tabIndex={-1}>
        Several transfers start with <span class="mono">{prefix}</span>
      </h1>
      <p>Type more of the reference, or pick one:</p>
      <ul>
        {matches.map((t) => (
          <li key={t.transactionRef}>
            <a class="mono" href={href('tx', t.transactionRef)}>
              {t.transactionRef}
            </a>{' '}
            — {t.transactionAsset} {t.transactionAmount}, {t.status}
          </li>
        ))}
      </ul>
    </section>
  );
}

function NoSuchTransfer({ what }: { what: string }) {
  return (
    <section aria-labelledby="none-heading">
      <h1 id="none-heading" tabIndex={-1}>
        No such transfer
      </h1>
      <p>
        No transfer of yours has the reference <span class="mono">{shortRef(what)}</span>
        {/* An ellipsis ends the sentence by itself. */}
        {what.length > 8 ? '…' : '.'} A reference, or its first 8 characters, finds it; the search box of the{' '}
        <a href="#/inbox">Inbox</a> and <a href="#/outbox">Outbox</a> also finds addresses and names.
      </p>
    </section>
  );
}
