/**
 * The audit trail (SPEC §14, docs/records.md): the operator sees every row (`/v1/admin/audit`), an
 * organization the rows about itself and its transactions (`/v1/audit`). Newest first, filtered by
 * the readers' own query parameters, keyset "Load more". The download fetches the export (CSV or
 * JSON Lines, with the filters shown) through the typed client, so the key travels in its header
 * and never in a URL, and saves it from a Blob. The hub writes no personal data into audit rows;
 * their details are shown shortened, in full in the download. Above the table: whether the chain
 * checks out (components/chain-state.tsx).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type AuditEvent, type Organization, unwrap } from '../api.js';
import { ChainState } from '../components/chain-state.js';
import { ErrorNote, ListTable, Loading, LoadMore, PageHead, Time } from '../components/ui.js';
import { saveBlob } from '../download.js';
import { shortRef } from '../format.js';
import { useAction } from '../hooks.js';
import { href } from '../router.js';
import { type Session, useAnnounce, useSession } from '../session.js';
import { AuditFilters, type Filters, NO_FILTERS } from './audit-filters.js';

const PAGE_SIZE = '50';
/** How much of an event's details the table shows before cutting it short. */
const DETAILS_SHOWN = 120;

export type ExportFormat = 'csv' | 'jsonl';

/** The filters as the readers' query parameters (the organization's reader has no `organizationId`). */
function filterQuery(f: Filters) {
  const at = (local: string) => new Date(local).toISOString();
  return {
    ...(f.action.trim() ? { action: f.action.trim() } : {}),
    ...(f.actor.trim() ? { actor: f.actor.trim() } : {}),
    ...(f.transactionRef.trim() ? { transactionRef: f.transactionRef.trim().toLowerCase() } : {}),
    ...(f.from ? { from: at(f.from) } : {}),
    ...(f.to ? { to: at(f.to) } : {}),
  };
}

/** One page of the session's reader. */
function readPage(session: Session, f: Filters, cursor?: string) {
  const query = { ...filterQuery(f), limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) };
  return session.kind === 'operator'
    ? unwrap(
        session.client.GET('/v1/admin/audit', {
          params: { query: { ...query, ...(f.organizationId ? { organizationId: f.organizationId } : {}) } },
        }),
      )
    : unwrap(session.client.GET('/v1/audit', { params: { query } }));
}

/** The session's export with these filters, as the file the hub streams. */
function readExport(session: Session, f: Filters, format: ExportFormat): Promise<Blob> {
  const query = { ...filterQuery(f), format };
  return session.kind === 'operator'
    ? unwrap(
        session.client.GET('/v1/admin/audit', {
          params: { query: { ...query, ...(f.organizationId ? { organizationId: f.organizationId } : {}) } },
          parseAs: 'blob',
        }),
      )
    : unwrap(session.client.GET('/v1/audit', { params: { query }, parseAs: 'blob' }));
}

export function AuditTrail() {
  const session = useSession();
  const announce = useAnnounce();
  const download = useAction();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [events, setEvents] = useState<AuditEvent[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [orgs, setOrgs] = useState<Organization[]>([]);
  const filterKey = JSON.stringify(filters);
  // The filters a page that is on its way was asked for: one that arrives after they changed is dropped.
  const shownKey = useRef(filterKey);
  shownKey.current = filterKey;
  const operator = session.kind === 'operator';

  useEffect(() => {
    if (!operator) return;
    unwrap(session.client.GET('/v1/admin/organizations')).then((r) => setOrgs(r.organizations), setError);
  }, [session]);

  useEffect(() => {
    let live = true;
    setEvents(null);
    setError(null);
    readPage(session, filters).then(
      (p) => {
        if (!live) return;
        setEvents(p.events);
        setNext(p.nextCursor);
      },
      (err) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [session, filterKey]);

  const more = async () => {
    if (!next || !events) return;
    setLoadingMore(true);
    try {
      const asked = filterKey;
      const p = await readPage(session, filters, next);
      if (shownKey.current !== asked) return;
      const known = new Set(events.map((e) => e.seq));
      setEvents([...events, ...p.events.filter((e) => !known.has(e.seq))]);
      setNext(p.nextCursor);
    } catch (err) {
      setError(err);
    } finally {
      setLoadingMore(false);
    }
  };

  const downloadAs = (format: ExportFormat) =>
    download.run(async () => {
      const blob = await readExport(session, filters, format);
      const name = `audit-trail-${new Date().toISOString().slice(0, 10)}.${format}`;
      saveBlob(blob, name);
      announce(`Downloaded ${name}.`);
    });

  const names = new Map(orgs.map((o) => [o.id, o.name]));
  if (session.kind === 'org') names.set(session.me.id, session.me.name);
  const filtered = filterKey !== JSON.stringify(NO_FILTERS);

  return (
    <section aria-labelledby="audit-heading">
      <PageHead id="audit-heading" title="Audit trail">
        <p class="muted small">
          {operator
            ? 'Every change to the directory, every operator action and every read of personal data on the hub, newest first.'
            : 'What happened to your organization, its keys and its transactions (the counterparty’s reads of them included), newest first.'}{' '}
          Rows hold who acted, what they did and on what, never personal data.
        </p>
      </PageHead>
      <ChainState />

      <h2 id="events-heading">Events</h2>
      <AuditFilters
        filters={filters}
        onChange={setFilters}
        organizations={operator ? orgs : null}
        actions={events ?? []}
      />
      <fieldset class="plain downloads">
        <legend class="sr-only">Download the events these filters select</legend>
        <div class="button-row">
          <button type="button" class="secondary" disabled={download.busy} onClick={() => downloadAs('csv')}>
            Download CSV
          </button>
          <button
            type="button"
            class="secondary"
            disabled={download.busy}
            onClick={() => downloadAs('jsonl')}
          >
            Download JSON Lines
          </button>
          <span class="muted small">
            {download.busy
              ? 'Preparing the file…'
              : 'Every matching row, oldest first, ending with a checkpoint signed by the hub.'}
          </span>
        </div>
      </fieldset>
      <ErrorNote error={download.error} prefix="Download failed." />

      <ErrorNote error={error} />
      {events === null ? (
        error ? null : (
          <Loading what="audit events" />
        )
      ) : events.length === 0 ? (
        <p class="empty">{filtered ? 'No event matches these filters.' : 'No events yet.'}</p>
      ) : (
        <ListTable label="Audit events" columns={['Row', 'Time', 'Actor', 'Action', 'Subject', 'Details']}>
          {events.map((e) => (
            <tr key={e.seq}>
              <td data-label="Row" class="mono">
                {e.seq}
              </td>
              <td data-label="Time">
                <Time iso={e.at} />
              </td>
              <td data-label="Actor" class="break">
                <Actor actor={e.actor} names={names} />
              </td>
              <td data-label="Action" class="mono">
                {e.action}
              </td>
              <td data-label="Subject" class="break">
                <Subject event={e} names={names} operator={operator} />
              </td>
              <td data-label="Details" class="small break">
                {shortDetails(e.details)}
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      {next ? <LoadMore onClick={more} busy={loadingMore} /> : null}
    </section>
  );
}

/** `org:<id>` with the organization's name when it is known; anything else as written. */
function Actor({ actor, names }: { actor: string; names: Map<string, string> }) {
  const name = actor.startsWith('org:') ? names.get(actor.slice(4)) : undefined;
  return name ? (
    <span>
      {name} <span class="did">{actor}</span>
    </span>
  ) : (
    <span class="mono">{actor}</span>
  );
}

function Subject({
  event,
  names,
  operator,
}: {
  event: AuditEvent;
  names: Map<string, string>;
  operator: boolean;
}) {
  const { subjectType: type, subjectId: id } = event;
  if (type === 'transaction' && !operator) {
    return (
      <span>
        transaction{' '}
        <a class="mono" href={href('tx', id)} aria-label={`Transaction ${id}`}>
          {shortRef(id)}
        </a>
      </span>
    );
  }
  if (type === 'organization' && names.has(id)) {
    return (
      <span>
        {operator ? <a href={href('organizations', id)}>{names.get(id)}</a> : names.get(id)}{' '}
        <span class="did">{id}</span>
      </span>
    );
  }
  return (
    <span>
      {type} <span class="mono">{id}</span>
    </span>
  );
}

/** `key: value; …` of an event's details, cut short after DETAILS_SHOWN characters. */
export function shortDetails(details: AuditEvent['details']): string {
  if (details === null || Object.keys(details).length === 0) return '—';
  const text = Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');
  return text.length > DETAILS_SHOWN ? `${text.slice(0, DETAILS_SHOWN - 1)}…` : text;
}
