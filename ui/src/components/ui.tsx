/** Small shared pieces: status badges, times, errors, secrets shown once. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { formatTime, STATUS_LABELS } from '../format.js';

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status.toLowerCase()}`}>{STATUS_LABELS[status] ?? status}</span>;
}

export function Time({ iso }: { iso: string | null | undefined }) {
  return iso ? <time dateTime={iso}>{formatTime(iso)}</time> : <span>—</span>;
}

export function ErrorNote({ error, prefix }: { error: unknown; prefix?: string }) {
  if (error === null || error === undefined) return null;
  return (
    <p role="alert" class="note note-error">
      {prefix ? <strong>{prefix} </strong> : null}
      {describeError(error)}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" aria-busy="true">
      Loading {what}…
    </p>
  );
}

/** A secret the hub shows only once: readable, copyable, with a warning. */
export function OnceSecret({
  label,
  value,
  children,
}: {
  label: string;
  value: string;
  children?: ComponentChildren;
}) {
  const [copied, setCopied] = useState(false);
  const id = `secret-${label.replace(/\W+/g, '-').toLowerCase()}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
    }
  };
  return (
    <div class="secret">
      <label id={`${id}-label`} for={id}>
        {label}
      </label>
      <div class="secret-row">
        <input id={id} class="mono" readOnly value={value} spellcheck={false} autocomplete="off" />
        <button type="button" class="secondary" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p class="hint">Shown only this once: store it now. The hub keeps no readable copy.{children}</p>
    </div>
  );
}

/** A table that scrolls sideways on its own on narrow screens instead of the whole page. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section class="table-wrap" aria-label={`${label} (table)`} tabIndex={0}>
      {children}
    </section>
  );
}

/** One term and its description in a `<dl class="facts">`. */
export function Fact({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="fact">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
