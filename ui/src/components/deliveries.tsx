/**
 * Deliveries with every attempt (status code, latency, error) and, when FAILED, redelivery (not
 * for a read-only session): webhooks to the organization, and the TRP messages the hub owes a TRP
 * peer for the organization's TRP transfers (SPEC §16), each said as what it is.
 */
import { type Delivery, unwrap } from '../api.js';
import { shortRef } from '../format.js';
import { useAction } from '../hooks.js';
import { href } from '../router.js';
import { useAnnounce, useMay, useOrg } from '../session.js';
import { ErrorNote, StatusBadge, TableWrap, Time } from './ui.js';

export function DeliveryList({
  deliveries,
  onChange,
  showTransaction = false,
}: {
  deliveries: Delivery[];
  onChange: () => void;
  showTransaction?: boolean;
}) {
  return (
    <ul class="deliveries">
      {deliveries.map((d) => (
        <li key={d.id}>
          <DeliveryItem delivery={d} onChange={onChange} showTransaction={showTransaction} />
        </li>
      ))}
    </ul>
  );
}

/** What each TRP message is, in words (the API names it by its event). */
const TRP_MESSAGE_LABELS: Record<string, string> = {
  'trp-inquiry': 'The inquiry, with the personal data, to the beneficiary VASP’s travel address.',
  'trp-resolution':
    'Your answer to the peer’s inquiry (approved with the address, or rejected), to its callback.',
  'trp-confirmation': 'The transaction hash, or the cancellation, to the callback the peer approved with.',
  'trp-identity': 'The hub reading the peer’s /identity, for its name and LEI.',
};

function DeliveryItem({
  delivery: d,
  onChange,
  showTransaction,
}: {
  delivery: Delivery;
  onChange: () => void;
  showTransaction: boolean;
}) {
  const { client } = useOrg();
  const announce = useAnnounce();
  const canWrite = useMay('act');
  const { busy, error, run } = useAction();
  const kind = d.channel === 'trp' ? 'TRP message' : 'webhook';

  const redeliver = () =>
    run(async () => {
      await unwrap(client.POST('/v1/webhooks/deliveries/{id}/redeliver', { params: { path: { id: d.id } } }));
      announce(`The ${d.event} ${kind} is queued again.`);
      onChange();
    });

  return (
    <article class="delivery" aria-label={`${d.event} ${kind}, ${d.status.toLowerCase()}`}>
      <header class="delivery-head">
        <h3>
          <code>{d.event}</code> {kind}
        </h3>
        <StatusBadge status={d.status} />
        {showTransaction && d.transactionRef ? (
          <a class="mono" href={href('tx', d.transactionRef)}>
            transaction {shortRef(d.transactionRef)}
          </a>
        ) : null}
        {d.status === 'FAILED' && canWrite ? (
          <button type="button" onClick={redeliver} disabled={busy}>
            {busy ? 'Queuing…' : 'Redeliver'}
          </button>
        ) : null}
      </header>
      <p class="small muted">
        Queued <Time iso={d.createdAt} />
        {d.deliveredAt ? (
          <>
            {' '}
            · delivered <Time iso={d.deliveredAt} />
          </>
        ) : null}
        {d.status === 'PENDING' && d.nextAttemptAt ? (
          <>
            {' '}
            · next attempt <Time iso={d.nextAttemptAt} />
          </>
        ) : null}{' '}
        · {d.channel === 'trp' ? 'message id' : 'webhook-id'} <code>{d.messageId}</code>
      </p>
      {d.channel === 'trp' && TRP_MESSAGE_LABELS[d.event] ? (
        <p class="small">{TRP_MESSAGE_LABELS[d.event]}</p>
      ) : null}
      {d.lastError && d.status !== 'DELIVERED' ? <p class="small">Last error: {d.lastError}</p> : null}
      <ErrorNote error={error} prefix="Could not redeliver:" />
      {d.attemptLog.length === 0 ? (
        <p class="small muted">No attempt yet.</p>
      ) : (
        <TableWrap label={`Attempts of the ${d.event} ${kind}`}>
          <table class="attempts">
            <caption class="sr-only">Attempts, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">When</th>
                <th scope="col">Answer</th>
                <th scope="col" class="num">
                  Latency
                </th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {d.attemptLog.map((a, i) => (
                <tr key={a.at}>
                  <td>{i + 1}</td>
                  <td>
                    <Time iso={a.at} />
                  </td>
                  <td>
                    {a.statusCode === null ? (
                      <span class="muted">none</span>
                    ) : (
                      <span class={a.statusCode < 300 ? 'ok' : 'bad'}>HTTP {a.statusCode}</span>
                    )}
                  </td>
                  <td class="num">{a.latencyMs} ms</td>
                  <td>{a.error ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </article>
  );
}
