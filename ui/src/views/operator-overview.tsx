/**
 * The operator's hub-wide counters: transactions by status (each a link to the filtered list), the
 * transfers per day, the delivery queue, organizations, and applications waiting for review (the
 * count the navigation's badge shows).
 */
import { useEffect, useState } from 'preact/hooks';
import { type HubStats, unwrap } from '../api.js';
import { DailyChart } from '../components/daily-chart.js';
import { LinkCounter } from '../components/link-counter.js';
import { ErrorNote, Loading, PageHead } from '../components/ui.js';
import { duration, formatClock, STATUS_LABELS, TRANSACTION_STATES } from '../format.js';
import { usePoll } from '../hooks.js';
import { href } from '../router.js';
import { useSession } from '../session.js';
import { Counter } from './deliveries.js';
import { usePendingApplications } from './operator-applications.js';
import { transactionsHref } from './operator-transactions.js';
import { POLL_MS } from './transactions.js';

export function OperatorOverview() {
  const { client } = useSession();
  const [stats, setStats] = useState<HubStats | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  const applications = usePendingApplications();

  const load = async () => {
    setStats(await unwrap(client.GET('/v1/admin/stats')));
    setUpdatedAt(new Date());
    setError(null);
  };
  useEffect(() => {
    load().catch(setError);
  }, []);
  usePoll(() => load().catch(setError), POLL_MS, []);

  const age = stats?.deliveries.oldestPendingAgeSeconds ?? null;
  return (
    <section aria-labelledby="overview-heading">
      <PageHead id="overview-heading" title="Hub overview">
        <p class="muted small">
          {updatedAt ? `Updated ${formatClock(updatedAt)}; refreshes by itself.` : ''}
        </p>
      </PageHead>
      <ErrorNote error={error} />
      {!stats ? (
        error ? null : (
          <Loading what="counters" />
        )
      ) : (
        <>
          <h2>Transactions by status</h2>
          <div class="counters">
            {TRANSACTION_STATES.map((s) => (
              <LinkCounter
                key={s}
                label={STATUS_LABELS[s] ?? s}
                value={stats.transactionsByStatus[s]}
                href={transactionsHref({ status: s })}
              />
            ))}
          </div>
          <p>
            <a href={transactionsHref({})}>Every transaction</a>
          </p>
          <DailyChart scope="operator" />
          <h2>Delivery queue</h2>
          <div class="counters">
            <Counter
              label="Pending (queue depth)"
              value={stats.deliveries.pending}
              tone={stats.deliveries.pending > 0 ? 'warn' : 'ok'}
            />
            <Counter
              label="Failed"
              value={stats.deliveries.failed}
              tone={stats.deliveries.failed > 0 ? 'bad' : 'ok'}
            />
            <Counter
              label="Oldest pending"
              value={age === null ? 'none' : duration(age)}
              tone={age !== null && age > 600 ? 'bad' : 'plain'}
            />
          </div>
          <h2>Directory</h2>
          <div class="counters">
            <Counter label="Organizations" value={stats.organizations.total} />
            <Counter label="Verified" value={stats.organizations.verified} />
            <Counter
              label="Applications waiting"
              value={applications.count ?? undefined}
              tone={applications.count ? 'warn' : 'ok'}
            />
          </div>
          <p>
            <a href={href('applications')}>
              {applications.count
                ? `Review the ${applications.count === 1 ? 'waiting application' : `${applications.count} waiting applications`}`
                : 'Applications to join'}
            </a>
          </p>
        </>
      )}
    </section>
  );
}
