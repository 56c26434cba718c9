/** Delivery health: webhooks to this organization that failed (with redeliver) or still wait. */
import { useEffect, useState } from 'preact/hooks';
import { type Delivery, unwrap } from '../api.js';
import { DeliveryList } from '../components/deliveries.js';
import { ErrorNote, Loading, PageHead } from '../components/ui.js';
import { usePoll } from '../hooks.js';
import { useOrg } from '../session.js';
import { POLL_MS } from './transactions.js';

export function DeliveryHealth() {
  const { client, me } = useOrg();
  const [failed, setFailed] = useState<Delivery[] | null>(null);
  const [pending, setPending] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = async () => {
    const list = (status: 'FAILED' | 'PENDING' | 'HELD') =>
      unwrap(client.GET('/v1/webhooks/deliveries', { params: { query: { status, limit: '100' } } }));
    const [f, p, h] = await Promise.all([list('FAILED'), list('PENDING'), list('HELD')]);
    setFailed(f.deliveries);
    setPending([...p.deliveries, ...h.deliveries]);
    setError(null);
  };
  const reload = () => load().catch(setError);
  useEffect(() => {
    reload();
  }, []);
  usePoll(load, POLL_MS, []);

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
        <Counter label="Failed" value={failed?.length} tone={failed?.length ? 'bad' : 'ok'} />
        <Counter
          label="Pending (retrying, queued or held)"
          value={pending?.length}
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
