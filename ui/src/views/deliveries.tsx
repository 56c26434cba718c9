/** Delivery health: webhooks to this organization that failed (with redeliver) or still wait. */
import { useEffect, useState } from 'preact/hooks';
import { type Delivery, unwrap } from '../api.js';
import { DeliveryList } from '../components/deliveries.js';
import { ErrorNote, Loading, LoadMore, PageHead } from '../components/ui.js';
import { usePoll } from '../hooks.js';
import { useOrg } from '../session.js';
import { POLL_MS } from './transactions.js';

export function DeliveryHealth() {
  const { client, me } = useOrg();
  const [failed, setFailed] = useState<Delivery[] | null>(null);
  // Past the first page of failed ones: where the next page starts (redelivery needs them all).
  const [failedNext, setFailedNext] = useState<string | null>(null);
  const [pending, setPending] = useState<Delivery[] | null>(null);
  const [morePending, setMorePending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const list = (status: 'FAILED' | 'PENDING' | 'HELD', cursor?: string) =>
    unwrap(
      client.GET('/v1/webhooks/deliveries', {
        params: { query: { status, limit: '100', ...(cursor ? { cursor } : {}) } },
      }),
    );
  const load = async () => {
    const [f, p, h] = await Promise.all([list('FAILED'), list('PENDING'), list('HELD')]);
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
  // Only while the failed ones fit one page: a reload would drop what "Load more" added.
  usePoll(
    async () => {
      if (!failedNext) await load();
    },
    POLL_MS,
    [failedNext],
  );
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

  return (
    <section aria-labelledby="health-heading">
      <PageHead id="health-heading" title="Delivery health">
        <p class="muted small">
          Webhooks the hub owes your endpoint{' '}
          {me.travelEndpoint ? <code class="break">{me.travelEndpoint}</code> : '(no travel endpoint set)'}.
          Failed ones used up their retries: fix the endpoint, then redeliver. Held ones wait behind a failed
          message of the same transaction and go out after it.
        </p>
      </PageHead>
      <ErrorNote error={error} />
      <div class="counters">
        <Counter
          label="Failed"
          value={failed ? (failedNext ? `${failed.length}+` : failed.length) : undefined}
          tone={failed?.length ? 'bad' : 'ok'}
        />
        <Counter
          label="Pending (retrying, queued or held)"
          value={pending ? (morePending ? `${pending.length}+` : pending.length) : undefined}
          tone={pending?.length ? 'warn' : 'ok'}
        />
      </div>

      <h2>Failed deliveries</h2>
      {failed === null ? (
        <Loading what="failed deliveries" />
      ) : failed.length === 0 ? (
        <p class="empty">No failed delivery. All is well.</p>
      ) : (
        <DeliveryList deliveries={failed} onChange={reload} showTransaction />
      )}
      {failedNext ? <LoadMore onClick={moreFailed} /> : null}

      <h2>Pending deliveries</h2>
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
