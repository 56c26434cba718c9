/**
 * Form pieces. A field's label, hint and error message are tied to its control by ids derived
 * from the control's id (`<id>-hint`, `<id>-error`), so every form states them the same way.
 */
import type { ComponentChildren } from 'preact';
import { fieldErrors } from '../api.js';
import { PROTOCOLS, STATUS_LABELS, TRANSACTION_STATES } from '../format.js';
import { ErrorNote } from './ui.js';

/** What a field hands its control: its id and the ARIA state pointing at the hint and error. */
export interface ControlAria {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** A labelled control (given as a function of its ARIA attributes), its hint and its error. */
export function Field({
  id,
  label,
  hint,
  error,
  wide = false,
  children,
}: {
  id: string;
  label: string;
  hint?: ComponentChildren;
  error?: string;
  wide?: boolean;
  children: (aria: ControlAria) => ComponentChildren;
}) {
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={wide ? 'field wide' : 'field'}>
      <label for={id}>{label}</label>
      {children({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy || undefined,
      })}
      {hint ? (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A form's failure, unless it is about fields: those are shown at the fields. */
export function FormError({ error }: { error: unknown }) {
  return Object.keys(fieldErrors(error)).length === 0 ? <ErrorNote error={error} /> : null;
}

type TextKeys<F> = { [K in keyof F]: F[K] extends string ? K : never }[keyof F];

/** `value` and `onInput` binding a text control to one field of a form held in state. */
export function textBinder<F extends object>(form: F, setForm: (next: F) => void) {
  return (field: TextKeys<F>) => ({
    value: form[field] as string,
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
  });
}

/** A list filter's select: "Any", then each value under its label. */
export function FilterSelect<V extends string>({
  id,
  label,
  value,
  values,
  labelOf = (v) => v,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  values: readonly V[];
  labelOf?: (v: V) => string | undefined;
  onChange: (e: Event) => void;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={onChange}>
        <option value="">Any</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {labelOf(v) ?? v}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The Status and Protocol filters of a transaction list (`<idPrefix>-status`, `<idPrefix>-protocol`). */
export function StatusProtocolFilters({
  idPrefix,
  status,
  protocol,
  onChange,
}: {
  idPrefix: string;
  status: string;
  protocol: string;
  onChange: (field: 'status' | 'protocol') => (e: Event) => void;
}) {
  return (
    <>
      <FilterSelect
        id={`${idPrefix}-status`}
        label="Status"
        value={status}
        values={TRANSACTION_STATES}
        labelOf={(s) => STATUS_LABELS[s]}
        onChange={onChange('status')}
      />
      <FilterSelect
        id={`${idPrefix}-protocol`}
        label="Protocol"
        value={protocol}
        values={PROTOCOLS}
        onChange={onChange('protocol')}
      />
    </>
  );
}
