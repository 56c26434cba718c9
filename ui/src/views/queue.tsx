/**
 * "Needs my action" in the navigation (SPEC §17): how many transfers wait for the caller to
 * confirm, to review, and how many have a failing message, each a link to the list that shows
 * exactly those rows (`#/queue?…`, the same filters the hub counts by: GET /v1/queue). Refreshed
 * by polling and whenever the page changes, so acting on one shows in its count.
 */
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../api.js';
import { usePoll } from '../hooks.js';
import type { Session } from '../session.js';

const QUEUE_POLL_MS = 10_000;

type Counts = { toConfirm: number; toReview: number; failingDeliveries: number };

const ENTRIES: { key: keyof Counts; label: string; query: string; counts: string }[] = [
  { key: 'toConfirm', label: 'To confirm', query: 'needs=confirm', counts: 'waiting for your confirmation' },
  { key: 'toReview', label: 'To review', query: 'needs=review', counts: 'waiting for your review' },
  { key: 'failingDeliveries', label: 'Failing', query: 'delivery=failing', counts: 'with failing messages' },
];

/** The counts for an organization's session (null until loaded, and for other sessions). */
function useQueueCounts(session: Session): Counts | null {
  const [counts, setCounts] = useState<Counts | null>(null);
  const load = async () => {
    if (session.kind !== 'org') return;
    setCounts(await unwrap(session.client.GET('/v1/queue')));
  };
  useEffect(() => {
    load().catch(() => {});
    const onChange = () => load().catch(() => {});
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, [session]);
  usePoll(load, QUEUE_POLL_MS, [session]);
  return counts;
}

export function QueueNav({ session }: { session: Session }) {
  const counts = useQueueCounts(session);
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  if (session.kind !== 'org') return null;
  return (
    <div class="queue-nav">
      <span class="queue-nav-title" id="queue-nav-title">
        Needs my action
      </span>
      <ul aria-labelledby="queue-nav-title">
        {ENTRIES.map((e) => {
          const target = `#/queue?${e.query}`;
          const n = counts?.[e.key];
          return (
            <li key={e.key}>
              <a href={target} aria-current={hash === target ? 'page' : undefined}>
                {e.label}
                <span class={n ? 'queue-count queue-count-some' : 'queue-count'} aria-hidden="true">
                  {n ?? '…'}
                </span>
                <span class="sr-only">
                  {n === undefined
                    ? ' (counting)'
                    : ` (${n} ${n === 1 ? 'transfer' : 'transfers'} ${e.counts})`}
                </span>
              </a>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
