/**
 * The audit trail's filters, one per query parameter of the readers: action, actor, transaction,
 * organization (the operator's reader only), and a time window (from inclusive, to exclusive, in
 * the browser's time zone). A text field applies when it is committed (Enter or leaving it), not on
 * every keystroke; until then what was typed is kept here, so a page or a count arriving meanwhile
 * re-renders the form without wiping it.
 */
import { useState } from 'preact/hooks';
import type { AuditEvent, Organization } from '../api.js';

export interface Filters {
  action: string;
  actor: string;
  transactionRef: string;
  organizationId: string;
  /** `datetime-local` values: local time without a zone. */
  from: string;
  to: string;
}
export const NO_FILTERS: Filters = {
  action: '',
  actor: '',
  transactionRef: '',
  organizationId: '',
  from: '',
  to: '',
};

type Typed = Pick<Filters, 'action' | 'actor' | 'transactionRef'>;
const typedOf = (f: Filters): Typed => ({
  action: f.action,
  actor: f.actor,
  transactionRef: f.transactionRef,
});

export function AuditFilters({
  filters,
  onChange,
  organizations,
  actions,
}: {
  filters: Filters;
  onChange: (f: Filters) => void;
  /** The operator's list of organizations to filter by; null in an organization's view. */
  organizations: Organization[] | null;
  /** Events already shown, whose actions the action field suggests. */
  actions: AuditEvent[];
}) {
  const [typed, setTyped] = useState<Typed>(typedOf(filters));
  const value = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;
  const set = (field: keyof Filters) => (e: Event) => onChange({ ...filters, ...typed, [field]: value(e) });
  const type = (field: keyof Typed) => (e: Event) => setTyped({ ...typed, [field]: value(e) });
  const known = [...new Set(actions.map((e) => e.action))].sort();
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);

  return (
    <form class="filters" aria-label="Filter the audit events" onSubmit={(e) => e.preventDefault()}>
      <div class="field">
        <label for="a-action">Action</label>
        <input
          id="a-action"
          list="a-action-known"
          placeholder="e.g. api_key.created"
          value={typed.action}
          onInput={type('action')}
          onChange={set('action')}
          spellcheck={false}
          autocomplete="off"
        />
        <datalist id="a-action-known">
          {known.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </div>
      <div class="field">
        <label for="a-actor">Actor</label>
        <input
          id="a-actor"
          placeholder="e.g. org:<id>, operator:bootstrap"
          value={typed.actor}
          onInput={type('actor')}
          onChange={set('actor')}
          spellcheck={false}
          autocomplete="off"
        />
      </div>
      <div class="field">
        <label for="a-transaction">Transaction</label>
        <input
          id="a-transaction"
          class="mono"
          value={typed.transactionRef}
          onInput={type('transactionRef')}
          onChange={set('transactionRef')}
          spellcheck={false}
          autocomplete="off"
        />
      </div>
      {organizations ? (
        <div class="field">
          <label for="a-organization">Organization</label>
          <select id="a-organization" value={filters.organizationId} onChange={set('organizationId')}>
            <option value="">Any</option>
            {organizations.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div class="field">
        <label for="a-from">From</label>
        <input id="a-from" type="datetime-local" value={filters.from} onChange={set('from')} />
      </div>
      <div class="field">
        <label for="a-to">Before</label>
        <input id="a-to" type="datetime-local" value={filters.to} onChange={set('to')} />
      </div>
      <div class="field field-button">
        <button
          type="button"
          class="secondary"
          disabled={!filtered}
          onClick={() => {
            setTyped(typedOf(NO_FILTERS));
            onChange(NO_FILTERS);
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
