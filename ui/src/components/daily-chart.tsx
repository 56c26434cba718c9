/**
 * Transfers per UTC day, by status or by protocol (issue 35): a stacked bar chart drawn with
 * Chart.js (only the bar chart's parts, loaded on demand: chart-setup.ts), and the same
 * numbers as a table for screen readers and keyboard users (the canvas is an image with a summary
 * as its label). A member sees its own transfers (`/v1/transactions/stats/daily`), the operator
 * the hub's (`/v1/admin/transactions/stats/daily`).
 */
import type { ChartDataset, Chart as ChartType } from 'chart.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { unwrap } from '../api.js';
import { PROTOCOLS, STATUS_LABELS, TRANSACTION_STATES } from '../format.js';
import { useSession } from '../session.js';
import { ErrorNote, Loading, TableWrap } from './ui.js';

let chartModule: Promise<typeof import('./chart-setup.js')> | undefined;
const loadChart = () => {
  chartModule ??= import('./chart-setup.js');
  return chartModule;
};

interface DailyStats {
  from: string;
  to: string;
  days: {
    date: string;
    total: number;
    byStatus: Record<string, number>;
    byProtocol: Record<string, number>;
  }[];
}

/** Colours with a contrast of at least 3:1 against white, one per series. */
const STATUS_COLOURS: Record<string, string> = {
  NEW: '#4b6584',
  RECEIVER_NOTIFIED: '#b8860b',
  CONFIRMED: '#2e7d32',
  DECLINED: '#c62828',
  CANCELLED: '#6d4c41',
  EXPIRED: '#757575',
};
const PROTOCOL_COLOURS: Record<string, string> = {
  MAIN: '#1565c0',
  BASIC: '#00838f',
  NOTIFY: '#8e24aa',
  TRP: '#ef6c00',
};

const dayLabel = (date: string) =>
  new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(
    new Date(`${date}T00:00:00Z`),
  );

export function DailyChart({
  scope,
  orgId,
  refreshKey,
}: {
  scope: 'member' | 'operator';
  orgId?: string;
  /** Changes when the page around it saw transfers arrive or change: the numbers are read again. */
  refreshKey?: unknown;
}) {
  const { client } = useSession();
  const [days, setDays] = useState('30');
  const [by, setBy] = useState<'status' | 'protocol'>('status');
  const [stats, setStats] = useState<DailyStats | null>(null);
  const [error, setError] = useState<unknown>(null);
  const canvas = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    const load =
      scope === 'member'
        ? client.GET('/v1/transactions/stats/daily', { params: { query: { days } } })
        : client.GET('/v1/admin/transactions/stats/daily', {
            params: { query: { days, ...(orgId ? { orgId } : {}) } },
          });
    unwrap(load).then((s) => {
      setStats(s as DailyStats);
      setError(null);
    }, setError);
  }, [days, scope, orgId, refreshKey]);

  const keys: readonly string[] = by === 'status' ? TRANSACTION_STATES : PROTOCOLS;
  const labelOf = (k: string) => (by === 'status' ? (STATUS_LABELS[k] ?? k) : k);

  useEffect(() => {
    if (!stats || !canvas.current) return;
    const datasets: ChartDataset<'bar'>[] = keys.map((k) => ({
      label: labelOf(k),
      data: stats.days.map((d) => (by === 'status' ? d.byStatus[k] : d.byProtocol[k]) ?? 0),
      backgroundColor: (by === 'status' ? STATUS_COLOURS : PROTOCOL_COLOURS)[k],
      stack: 'all',
    }));
    const target = canvas.current;
    let chart: ChartType | undefined;
    let gone = false;
    void loadChart().then(({ Chart }) => {
      if (gone) return;
      chart = new Chart(target, {
        type: 'bar',
        data: { labels: stats.days.map((d) => dayLabel(d.date)), datasets },
        options: {
          animation: false,
          maintainAspectRatio: false,
          responsive: true,
          scales: {
            x: { stacked: true, ticks: { autoSkip: true, maxRotation: 0 } },
            y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } },
          },
          plugins: { legend: { position: 'bottom' } },
        },
      });
    });
    return () => {
      gone = true;
      chart?.destroy();
    };
  }, [stats, by]);

  const total = stats?.days.reduce((n, d) => n + d.total, 0) ?? 0;
  const busiest = stats?.days.reduce((a, d) => (d.total > a.total ? d : a), stats.days[0]!);
  const summary = stats
    ? `Transfers per day (UTC) from ${dayLabel(stats.from)} to ${dayLabel(stats.to)}: ${total} in total` +
      (busiest && busiest.total > 0 ? `, the most on ${dayLabel(busiest.date)} (${busiest.total}).` : '.')
    : '';

  return (
    <section class="panel daily-chart" aria-labelledby="daily-chart-heading">
      <div class="daily-chart-head">
        <h2 id="daily-chart-heading">Transfers per day</h2>
        <div class="daily-chart-controls">
          <label>
            Days{' '}
            <select value={days} onChange={(e) => setDays(e.currentTarget.value)}>
              <option value="7">7</option>
              <option value="30">30</option>
              <option value="90">90</option>
            </select>
          </label>
          <label>
            By{' '}
            <select value={by} onChange={(e) => setBy(e.currentTarget.value as 'status' | 'protocol')}>
              <option value="status">status</option>
              <option value="protocol">protocol</option>
            </select>
          </label>
        </div>
      </div>
      <ErrorNote error={error} />
      {!stats ? (
        error ? null : (
          <Loading what="the chart" />
        )
      ) : (
        <>
          <p class="muted small">
            {summary} Days are UTC days; each transfer counts under its current status.
          </p>
          <div class="daily-chart-canvas">
            <canvas ref={canvas} role="img" aria-label={summary} />
          </div>
          <details class="daily-chart-table">
            <summary>The numbers as a table</summary>
            <TableWrap label="Transfers per UTC day">
              <table>
                <caption class="sr-only">Transfers per UTC day by {by}</caption>
                <thead>
                  <tr>
                    <th scope="col">Day (UTC)</th>
                    {keys.map((k) => (
                      <th key={k} scope="col" class="num">
                        {labelOf(k)}
                      </th>
                    ))}
                    <th scope="col" class="num">
                      Total
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {[...stats.days].reverse().map((d) => (
                    <tr key={d.date}>
                      <th scope="row">
                        <time dateTime={d.date}>{dayLabel(d.date)}</time>
                      </th>
                      {keys.map((k) => (
                        <td key={k} class="num">
                          {(by === 'status' ? d.byStatus[k] : d.byProtocol[k]) ?? 0}
                        </td>
                      ))}
                      <td class="num">{d.total}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          </details>
        </>
      )}
    </section>
  );
}
