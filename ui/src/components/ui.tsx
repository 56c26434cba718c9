/** Small shared pieces: page heads, status badges, times, errors, secrets shown once, list tables. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { formatTime, STATUS_LABELS } from '../format.js';
import { useFocusOnMount } from '../hooks.js';

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

/**
 * A secret the hub shows only once: readable, copyable, with a warning. It takes the focus when
 * it appears (the button that asked for it may be gone or disabled by then), so keyboard and
 * screen-reader users land on it and hear its label.
 */
export function OnceSecret({
  label,
  value,
  takeFocus = true,
  children,
}: {
  label: string;
  value: string;
  /** False for the second of two secrets shown together: the first one takes it. */
  takeFocus?: boolean;
  children?: ComponentChildren;
}) {
  const [copied, setCopied] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (takeFocus) input.current?.focus();
  }, [value]);
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
        <input
          ref={input}
          id={id}
          class="mono"
          readOnly
          value={value}
          spellcheck={false}
          autocomplete="off"
        />
        <button type="button" class="secondary" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p class="hint">Shown only this once: store it now. The hub keeps no readable copy.{children}</p>
    </div>
  );
}

/**
 * A page's heading and what stands under it. The heading takes the focus when the page opens
 * (as focusPolicy says) and again when `focusKey` changes, as when the inbox becomes the outbox.
 */
export function PageHead({
  id,
  title,
  focusKey,
  children,
}: {
  id: string;
  title: ComponentChildren;
  focusKey?: unknown;
  children?: ComponentChildren;
}) {
  const heading = useFocusOnMount<HTMLHeadingElement>(focusKey);
  return (
    <div class="page-head">
      <h1 id={id} ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children}
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

/** A column heading of a list table; a `hidden` one (an actions column) is for screen readers only. */
export type Column = string | { label: string; num?: boolean; hidden?: boolean };

/** A `table.list` in its scrolling wrapper: one header row of `columns`, the rows as children. */
export function ListTable({
  label,
  columns,
  children,
}: {
  label: string;
  columns: Column[];
  children: ComponentChildren;
}) {
  return (
    <TableWrap label={label}>
      <table class="list">
        <thead>
          <tr>
            {columns.map((c) => {
              const col = typeof c === 'string' ? { label: c } : c;
              return (
                <th key={col.label} scope="col" class={col.num ? 'num' : undefined}>
                  {col.hidden ? <span class="sr-only">{col.label}</span> : col.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
  );
}

/** The button under a paged list that fetches the next page. */
export function LoadMore({ onClick, busy = false }: { onClick: () => void; busy?: boolean }) {
  return (
    <p>
      <button type="button" class="secondary" onClick={onClick} disabled={busy}>
        {busy ? 'Loading…' : 'Load more'}
      </button>
    </p>
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
