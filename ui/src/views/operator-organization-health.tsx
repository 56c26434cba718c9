/**
 * An organization's activity for the operator (issue 35): its transfers by status on either side
 * (each a link to the filtered list), the webhooks the hub owes it by state, and its endpoint's
 * circuit with the last error class. Refreshes with the other live views.
 */
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../api.js';
import { LinkCounter } from '../components/link-counter.js';
import { ErrorNote, Fact, Loading, Time } from '../components/ui.js';
import { STATUS_LABELS, TRANSACTION_STATES } from '../format.js';
import { usePoll } from '../hooks.js';
import { useSession } from '../session.js';
import { Counter } from './deliveries.js';
import { transactionsHref } from './operator-transactions.js';
import { POLL_MS } from './transactions.js';

const ERROR_WORDS: Record<string, string> = {
  timeout: 'Timeout (no answer in time)',
  connection: 'Connection (refused, reset or unresolvable)',
  'http-5xx': 'HTTP 5xx (server error)',
  'http-4xx': 'HTTP 4xx (refused)',
  'refused-target': 'Refused target (private or reserved address)',
  'invalid-answer': 'Invalid answer',
  smtp: 'SMTP',
};

interface Health {
  messages: { delivered: number; pending: number; retrying: number; failed: number };
  endpoint: {
    host: string | null;
    circuit: 'closed' | 'open';
    failuresInARow: number;
    failingSince: string | null;
    openSince: string | null;
    lastError: string | null;
    lastAttemptAt: string | null;
  };
  endpointDownNoticeSentAt: string | null;
}

interface Counts {
  asOriginator: number;
  asBeneficiary: number;
  byStatus: Record<string, { asOriginator: number; asBeneficiary: number }>;
}

export function OrganizationActivity({ id }: { id: string }) {
  const { client } = useSession();
  const [health, setHealth] = useState<Health | null>(null);
  const [counts, setCounts] = useState<Counts | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = async () => {
    const [h, c] = await Promise.all([
      unwrap(client.GET('/v1/admin/organizations/{id}/delivery-health', { params: { path: { id } } })),
      unwrap(client.GET('/v1/admin/transactions/counts', { params: { query: { orgId: id } } })),
    ]);
    setHealth(h as Health);
    setCounts(c as Counts);
    setError(null);
  };
  useEffect(() => {
    load().catch(setError);
  }, [id]);
  usePoll(() => load().catch(setError), POLL_MS, [id]);

  if (!health || !counts) return error ? <ErrorNote error={error} /> : <Loading what="its activity" />;
  const e = health.endpoint;
  const m = health.messages;
  return (
    <>
      <ErrorNote error={error} />
      <h2>Transfers</h2>
      <p class="muted small">
        {counts.asOriginator} sent, {counts.asBeneficiary} received.{' '}
        <a href={transactionsHref({ orgId: id })}>List them</a>
      </p>
      <div class="counters">
        {TRANSACTION_STATES.map((s) => {
          const n = counts.byStatus[s] ?? { asOriginator: 0, asBeneficiary: 0 };
          return (
            <LinkCounter
              key={s}
              label={STATUS_LABELS[s] ?? s}
              value={n.asOriginator + n.asBeneficiary}
              href={transactionsHref({ status: s, orgId: id })}
            />
          );
        })}
      </div>
      <h2>Delivery health</h2>
      <p class="muted small">Webhooks the hub owes this organization, and how its endpoint answers.</p>
      <div class="counters">
        <Counter label="Delivered" value={m.delivered} tone="ok" />
        <Counter label="Waiting (not tried yet)" value={m.pending} tone={m.pending > 0 ? 'warn' : 'plain'} />
        <Counter label="Retrying" value={m.retrying} tone={m.retrying > 0 ? 'warn' : 'plain'} />
        <Counter label="Failed" value={m.failed} tone={m.failed > 0 ? 'bad' : 'plain'} />
      </div>
      <dl class="facts panel org-health">
        <Fact label="Endpoint host">
          <span class="mono break">{e.host ?? 'none set'}</span>
        </Fact>
        <Fact label="Circuit">
          {e.circuit === 'open' ? (
            <span class="badge badge-delivery-failed">Open: sending paused</span>
          ) : (
            <span class="badge badge-delivery-delivered">Closed: sending</span>
          )}
        </Fact>
        <Fact label="Failed attempts in a row">{e.failuresInARow}</Fact>
        <Fact label="Failing since">
          <Time iso={e.failingSince} />
        </Fact>
        <Fact label="Last error">{e.lastError ? (ERROR_WORDS[e.lastError] ?? e.lastError) : '—'}</Fact>
        <Fact label="Last attempt">
          <Time iso={e.lastAttemptAt} />
        </Fact>
        <Fact label="Contact told it is down">
          <Time iso={health.endpointDownNoticeSentAt} />
        </Fact>
      </dl>
    </>
  );
}
