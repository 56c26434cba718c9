/**
 * The CSV download of a list's current filters (GET /v1/transactions?format=csv). Personal data
 * only on request and only for sessions that may read it; the hub audits such an export.
 * Fetched through the session's client (an API-key session sends its key in a header, which a
 * plain link could not), then handed to the browser as a file.
 */
import { useState } from 'preact/hooks';
import { HubProblem } from '../api.js';
import { ErrorNote } from '../components/ui.js';
import { attachmentName, saveBlob } from '../download.js';
import { useMay, useOrg } from '../session.js';
import { type Filters, hubQuery, type ListParty } from './transaction-filters.js';

export function CsvExport({ role, filters }: { role: ListParty; filters: Filters }) {
  const { client } = useOrg();
  const mayPii = useMay('pii');
  const [withPii, setWithPii] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      const query = {
        ...hubQuery(role, filters),
        format: 'csv' as const,
        ...(withPii ? { includePii: 'true' as const } : {}),
      };
      const { data, response } = await client.GET('/v1/transactions', { params: { query }, parseAs: 'blob' });
      if (!response.ok) {
        const text = await (data as unknown as Blob | undefined)?.text?.().catch(() => '');
        let problem: unknown;
        try {
          problem = JSON.parse(text ?? '');
        } catch {
          problem = {
            status: response.status,
            title: response.statusText,
            detail: `HTTP ${response.status}`,
          };
        }
        throw new HubProblem(response.status, problem as never);
      }
      saveBlob(data as unknown as Blob, attachmentName(response, 'transactions.csv'));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="export">
      <button type="button" class="secondary" onClick={download} disabled={busy}>
        {busy ? 'Preparing CSV…' : 'Download CSV'}
      </button>
      {mayPii ? (
        <span class="field check">
          <input
            id="csv-pii"
            type="checkbox"
            checked={withPii}
            onChange={(e) => setWithPii(e.currentTarget.checked)}
          />
          <label for="csv-pii">Include customers’ names (the export is audited)</label>
        </span>
      ) : null}
      <ErrorNote error={error} prefix="Export failed:" />
    </div>
  );
}
