/**
 * Delivery health, both ways: the organization's own transfers whose message to the beneficiary
 * does not get through (its `received` webhook, NOTIFY e-mail or TRP inquiry retrying or failed: the
 * counterparty's side, which only the counterparty or the operator can fix), and the webhooks
 * to this organization that failed (with redeliver) or still wait, and (when there are any) the
 * TRP messages of its TRP transfers that failed, to redeliver once the peer is back. "All is
 * well" only when none of them is in trouble.
 */
import { useEffect, useState } from 'preact/hooks';
import { type Delivery, type TransactionSummary, unwrap } from '../api.js';
import { Counterparty } from '../components/counterparty.js';
import { DeliveryList } from '../components/deliveries.js';
import { DELIVERY_STATE_LABELS, ERROR_CLASS_LABELS } from '../components/delivery-summary.js';
import { ErrorNote, ListTable, Loading, LoadMore, PageHead, Time } from '../components/ui.js';
import { useOrgNames } from '../directory.js';
import { shortRef } from '../format.js';
import { usePoll } from '../hooks.js';
import { href } from '../router.js';
import { useOrg } from '../session.js';
import { protocolLabel } from '../trp.js';
import { POLL_MS } from './transactions.js';

export function DeliveryHealth() {
  const { client, me } = useOrg();
  const [failed, setFailed] = useState<Delivery[] | null>(null);
  // Past the first page of failed ones: where the next page starts (redelivery needs them all).
  const [failedNext, setFailedNext] = useState<string | null>(null);
  const [pending, setPending] = useState<Delivery[] | null>(null);
  // TRP messages to peers for the organization's TRP transfers that used up their retries.
  const [failedTrp, setFailedTrp] = useState<Delivery[] | null>(null);
  const [failedTrpNext, setFailedTrpNext] = useState<string | null>(null);
  const [morePending, setMorePending] = useState(false);
  const [outgoing, setOutgoing] = useState<TransactionSummary[] | null>(null);
  const [outgoingNext, setOutgoingNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const list = (status: 'FAILED' | 'PENDING' | 'HELD', cursor?: string, channel?: 'trp') =>
    unwrap(
      client.GET('/v1/webhooks/deliveries', {
        params: {
          query: { status, limit: '100', ...(channel ? { channel } : {}), ...(cursor ? { cursor } : {}) },
        },
      }),
    );
  const failing = (cursor?: string) =>
    unwrap(
      client.GET('/v1/transactions', {
        params: {
          query: { role: 'originator', delivery: 'failing', limit: '100', ...(cursor ? { cursor } : {}) },
        },
      }),
    );
  const load = async () => {
    const [o, f, p, h, t] = await Promise.all([
      failing(),
      list('FAILED'),
      list('PENDING'),
      list('HELD'),
      list('FAILED', undefined, 'trp'),
    ]);
    setOutgoing(o.transactions);
    setFailedTrp(t.deliveries);
    setFailedTrpNext(t.nextCursor);
    setOutgoingNext(o.nextCursor);
    setFailed(f.deliveries);
    setFailedNext(f.nextCursor);
    setPending([...p.deliveries, ...h.deliveries]);
    setMorePending(p.nextCursor !== null || h.nextCursor !== null);
    setError(null);
  };
  const reload = () => load().catch(setError);
  useEffect(() => {
    reload();
  }, []);
  // Only while each list fits one page: a reload would drop what "Load more" added.
  usePoll(
    async () => {
      if (!failedNext && !outgoingNext && !failedTrpNext) await load();
    },
    POLL_MS,
    [failedNext, outgoingNext, failedTrpNext],
  );
  const moreOutgoing = async () => {
    if (!outgoingNext || !outgoing) return;
    try {
      const r = await failing(outgoingNext);
      setOutgoing([...outgoing, ...r.transactions]);
      setOutgoingNext(r.nextCursor);
    } catch (err) {
      setError(err);
    }
  };
  const moreFailedTrp = async () => {
    if (!failedTrpNext || !failedTrp) return;
    try {
      const r = await list('FAILED', failedTrpNext, 'trp');
      setFailedTrp([...failedTrp, ...r.deliveries]);
      setFailedTrpNext(r.nextCursor);
    } catch (err) {
      setError(err);
    }
  };
  const moreFailed = async () => {
    if (!failedNext || !failed) return;
    try {
      const r = await list('FAILED', failedNext);
      setFailed([...failed, ...r.deliveries]);
      setFailedNext(r.nextCursor);
    } catch (err) {
      setError(err);
    }
  };

  const loaded = outgoing !== null && failed !== null && pending !== null && failedTrp !== null;
  // Queued messages on their first try are business as usual; retrying ones are not.
  const allWell =
    loaded &&
    outgoing.length === 0 &&
    failed.length === 0 &&
    failedTrp.length === 0 &&
    pending.every((d) => d.attempts === 0);
  const count = (items: unknown[] | null, more: boolean) =>
    items ? (more ? `${items.length}+` : items.length) : undefined;

  return (
    <section aria-labelledby="health-heading">
      <PageHead id="health-heading" title="Delivery health">
        <p class="muted small">
          Your transfers whose message to the beneficiary does not get through, and the webhooks the hub owes
          your endpoint{' '}
          {me.travelEndpoint ? <code class="break">{me.travelEndpoint}</code> : '(no travel endpoint set)'}.
        </p>
      </PageHead>
      <ErrorNote error={error} />
      <div class="counters">
        <Counter
          label="Your transfers not reaching the counterparty"
          value={count(outgoing, outgoingNext !== null)}
          tone={outgoing?.length ? 'bad' : 'ok'}
        />
        <Counter
          label="Failed webhooks to you"
          value={count(failed, failedNext !== null)}
          tone={failed?.length ? 'bad' : 'ok'}
        />
        <Counter
          label="Pending webhooks to you (retrying, queued or held)"
          value={count(pending, morePending)}
          tone={pending?.length ? 'warn' : 'ok'}
        />
        {failedTrp?.length ? (
          <Counter
            label="Failed TRP messages to peers"
            value={count(failedTrp, failedTrpNext !== null)}
            tone="bad"
          />
        ) : null}
      </div>
      {allWell ? (
        <p class="note note-ok">
          All is well: every message in both directions got through or is on its first try.
        </p>
      ) : null}

      <h2 id="outgoing-heading">Your transfers not reaching the counterparty</h2>
      <p class="muted small">
        The hub keeps trying to tell the beneficiary (its <code>received</code> webhook, or the NOTIFY
        e-mail). The fix is on the other side: the beneficiary’s endpoint, or for an e-mail the hub’s
        operator.
      </p>
      {outgoing === null ? (
        <Loading what="your failing transfers" />
      ) : outgoing.length === 0 ? (
        <p class="empty">None: every transfer you sent reached its beneficiary, or is on its first try.</p>
      ) : (
        <OutgoingFailing transactions={outgoing} />
      )}
      {outgoingNext ? <LoadMore onClick={moreOutgoing} /> : null}

      <h2>Failed webhooks to you</h2>
      <p class="muted small">
        They used up their retries: fix your endpoint, then redeliver. Held ones wait behind a failed message
        of the same transaction and go out after it.
      </p>
      {failed === null ? (
        <Loading what="failed deliveries" />
      ) : failed.length === 0 ? (
        <p class="empty">No failed webhook to you.</p>
      ) : (
        <DeliveryList deliveries={failed} onChange={reload} showTransaction />
      )}
      {failedNext ? <LoadMore onClick={moreFailed} /> : null}

      {failedTrp?.length ? (
        <>
          <h2>Failed TRP messages to peers</h2>
          <p class="muted small">
            Messages of your TRP transfers to the TRP VASPs outside the hub that used up their retries: once
            the peer is reachable again, redeliver them.
          </p>
          <DeliveryList deliveries={failedTrp} onChange={reload} showTransaction />
          {failedTrpNext ? <LoadMore onClick={moreFailedTrp} /> : null}
        </>
      ) : null}

      <h2>Pending webhooks to you</h2>
      {pending === null ? (
        <Loading what="pending deliveries" />
      ) : pending.length === 0 ? (
        <p class="empty">Nothing waiting.</p>
      ) : (
        <DeliveryList deliveries={pending} onChange={reload} showTransaction />
      )}
    </section>
  );
}

/** The originator's transfers whose message to the beneficiary is retrying or failed. */
function OutgoingFailing({ transactions }: { transactions: TransactionSummary[] }) {
  const names = useOrgNames();
  return (
    <ListTable
      label="Your transfers not reaching the counterparty"
      columns={[
        'Reference',
        'Created',
        'To (beneficiary)',
        'Protocol',
        'Delivery',
        'Last error',
        'Next attempt',
      ]}
    >
      {transactions.map((t) => (
        <tr key={t.transactionRef}>
          <td data-label="Reference">
            <a
              class="mono"
              href={href('tx', t.transactionRef)}
              aria-label={`Transaction ${t.transactionRef}`}
            >
              {shortRef(t.transactionRef)}
            </a>
          </td>
          <td data-label="Created">
            <Time iso={t.createdAt} />
          </td>
          <td data-label="To">
            <Counterparty
              t={t}
              side="originator"
              names={names}
              fallback={<span class="muted">outside the directory (NOTIFY e-mail)</span>}
            />
          </td>
          <td data-label="Protocol">{protocolLabel(t.protocol, 'originator')}</td>
          <td data-label="Delivery">
            <span class={`badge badge-delivery-${t.delivery.state}`}>
              {DELIVERY_STATE_LABELS[t.delivery.state]}
            </span>{' '}
            <span class="small">
              {t.delivery.attempts} attempt{t.delivery.attempts === 1 ? '' : 's'}
            </span>
          </td>
          <td data-label="Last error" class="small">
            {t.delivery.lastError ? ERROR_CLASS_LABELS[t.delivery.lastError] : '—'}
          </td>
          <td data-label="Next attempt">
            {t.delivery.nextAttemptAt ? (
              <Time iso={t.delivery.nextAttemptAt} />
            ) : (
              <span class="muted">none</span>
            )}
          </td>
        </tr>
      ))}
    </ListTable>
  );
}

export function Counter({
  label,
  value,
  tone = 'plain',
  detail,
}: {
  label: string;
  value: number | string | undefined;
  tone?: 'ok' | 'warn' | 'bad' | 'plain';
  detail?: string;
}) {
  return (
    <div class={`counter counter-${tone}`}>
      <span class="counter-value">{value ?? '…'}</span>
      <span class="counter-label">{label}</span>
      {detail ? <span class="counter-detail">{detail}</span> : null}
    </div>
  );
}
