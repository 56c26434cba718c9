/**
 * The operator's transaction list (issue 35): every transaction's metadata, never personal data,
 * newest first, keyset-paged. Its filters live in the address (`#/transactions/status=CANCELLED&orgId=…`),
 * so that each card of the overview links to its filtered list and a reload keeps it. Download CSV
 * saves every transaction the filters select (`format=csv`).
 */
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../api.js';
import { StatusProtocolFilters } from '../components/forms.js';
import { ErrorNote, ListTable, Loading, LoadMore, PageHead, StatusBadge, Time } from '../components/ui.js';
import { saveBlob } from '../download.js';
import { PROTOCOLS, STATUS_LABELS, shortRef, TRANSACTION_STATES } from '../format.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useSession } from '../session.js';

const PAGE_SIZE = '50';

type Status = (typeof TRANSACTION_STATES)[number];
type Protocol = (typeof PROTOCOLS)[number];

interface Filter {
  status?: Status;
  protocol?: Protocol;
  orgId?: string;
}

interface Row {
  transactionRef: string;
  status: string;
  protocol: string;
  transactionAsset: string;
  transactionAmount: string;
  originatorVASPid: string | null;
  originatorVASPdid: string;
  beneficiaryVASPid: string | null;
  beneficiaryVASPdid: string | null;
  createdAt: string;
}

/** `status=CANCELLED&orgId=…` → the filter; values the hub would refuse are dropped. */
export function parseFilter(text: string): Filter {
  const p = new URLSearchParams(text);
  const status = p.get('status');
  const protocol = p.get('protocol');
  const orgId = p.get('orgId');
  return {
    ...(status && (TRANSACTION_STATES as readonly string[]).includes(status)
      ? { status: status as Status }
      : {}),
    ...(protocol && (PROTOCOLS as readonly string[]).includes(protocol)
      ? { protocol: protocol as Protocol }
      : {}),
    ...(orgId && /^[0-9a-f-]{36}$/i.test(orgId) ? { orgId } : {}),
  };
}

/** The address of the list with this filter. */
export function transactionsHref(f: Filter): string {
  const p = new URLSearchParams();
  if (f.status) p.set('status', f.status);
  if (f.protocol) p.set('protocol', f.protocol);
  if (f.orgId) p.set('orgId', f.orgId);
  const q = p.toString();
  return q ? `#/transactions/${q}` : '#/transactions';
}

export function OperatorTransactions({ filter: text }: { filter: string }) {
  const { client } = useSession();
  const filter = parseFilter(text);
  const [items, setItems] = useState<Row[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [names, setNames] = useState<Map<string, string>>(new Map());
  const download = useAction();
  const announce = useAnnounce();
  const key = transactionsHref(filter);

  const page = (cursor?: string) =>
    unwrap(
      client.GET('/v1/admin/transactions', {
        params: { query: { ...filter, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
      }),
    );

  useEffect(() => {
    setItems(null);
    page().then((p) => {
      setItems(p.transactions);
      setNext(p.nextCursor);
      setError(null);
    }, setError);
  }, [key]);

  useEffect(() => {
    unwrap(client.GET('/v1/admin/organizations')).then(
      (list) => setNames(new Map(list.organizations.map((o) => [o.id, o.name]))),
      () => {},
    );
  }, []);

  const more = async () => {
    if (!next || !items) return;
    setBusy(true);
    try {
      const p = await page(next);
      setItems([...items, ...p.transactions]);
      setNext(p.nextCursor);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const downloadCsv = () =>
    download.run(async () => {
      const blob = await unwrap(
        client.GET('/v1/admin/transactions', {
          params: { query: { ...filter, format: 'csv' } },
          parseAs: 'blob',
        }),
      );
      saveBlob(blob as unknown as Blob, `hub-transactions-${new Date().toISOString().slice(0, 10)}.csv`);
      announce('Downloaded the transactions as CSV.');
    });

  const change = (field: 'status' | 'protocol') => (e: Event) => {
    const value = (e.currentTarget as HTMLSelectElement).value;
    window.location.hash = transactionsHref({ ...filter, [field]: value || undefined });
  };
  const party = (id: string | null, did: string | null) => (
    <>
      {id && names.get(id) ? <span>{names.get(id)}</span> : null}
      <span class="did small">{did ?? '—'}</span>
    </>
  );
  const orgName = filter.orgId ? (names.get(filter.orgId) ?? 'one organization') : null;
  const title = filter.status ? `${STATUS_LABELS[filter.status]} transactions` : 'Transactions';

  return (
    <section aria-labelledby="op-tx-heading">
      <PageHead id="op-tx-heading" title={title} focusKey={key}>
        <p class="muted small">
          Every transaction in the hub{orgName ? ` where ${orgName} is a party` : ''}: metadata only, never
          personal data.{' '}
          {orgName ? <a href={transactionsHref({ ...filter, orgId: undefined })}>All organizations</a> : null}
        </p>
      </PageHead>
      <form class="filters" aria-label="Filter the transactions" onSubmit={(e) => e.preventDefault()}>
        <StatusProtocolFilters
          idPrefix="op-f"
          status={filter.status ?? ''}
          protocol={filter.protocol ?? ''}
          onChange={change}
        />
      </form>
      <div class="export">
        <button type="button" class="secondary" onClick={downloadCsv} disabled={download.busy}>
          {download.busy ? 'Preparing CSV…' : 'Download CSV'}
        </button>
        <span class="muted small">Every transaction these filters select, metadata only.</span>
      </div>
      <ErrorNote error={download.error} prefix="Export failed:" />
      <ErrorNote error={error} />
      {items === null ? (
        error ? null : (
          <Loading what="transactions" />
        )
      ) : items.length === 0 ? (
        <p class="empty">No transaction matches these filters.</p>
      ) : (
        <ListTable
          label="Transactions"
          columns={[
            'Reference',
            'Created',
            'Originator',
            'Beneficiary',
            'Asset',
            { label: 'Amount', num: true },
            'Protocol',
            'Status',
          ]}
        >
          {items.map((t) => (
            <tr key={t.transactionRef}>
              <td data-label="Reference">
                <span class="mono" title={t.transactionRef}>
                  {shortRef(t.transactionRef)}
                </span>
              </td>
              <td data-label="Created">
                <Time iso={t.createdAt} />
              </td>
              <td data-label="Originator">
                <span class="two-lines">{party(t.originatorVASPid, t.originatorVASPdid)}</span>
              </td>
              <td data-label="Beneficiary">
                <span class="two-lines">{party(t.beneficiaryVASPid, t.beneficiaryVASPdid)}</span>
              </td>
              <td data-label="Asset">{t.transactionAsset}</td>
              <td data-label="Amount" class="num mono">
                {t.transactionAmount}
              </td>
              <td data-label="Protocol">{t.protocol}</td>
              <td data-label="Status">
                <StatusBadge status={t.status} />
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      {next ? <LoadMore onClick={more} busy={busy} /> : null}
    </section>
  );
}
