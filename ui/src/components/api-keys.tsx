/**
 * An organization's API keys: listed by prefix and scope, issued (with a chosen scope, the new
 * key shown once) and revoked. The operator's organization page and the organization's own
 * settings differ only in the endpoints behind `list`, `issue` and `revoke`, and in the key the
 * organization signed in with, which its settings mark `current` and never offer to revoke.
 * A read-only session sees the list and nothing to issue or revoke.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { KeyScope } from '../api.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useMay } from '../session.js';
import { Field } from './forms.js';
import { ErrorNote, ListTable, Loading, OnceSecret, Time } from './ui.js';

export interface ApiKeyRow {
  keyId: string;
  prefix: string;
  scope: KeyScope;
  createdAt: string;
  revokedAt: string | null;
  /** The key of this session. */
  current?: boolean;
}

export const SCOPE_LABELS: Record<KeyScope, string> = { full: 'Full', read: 'Read only' };

export function ApiKeysPanel({
  headingId,
  tableLabel,
  issueLabel,
  revokeWarning,
  list,
  issue,
  revoke,
  children,
}: {
  headingId: string;
  tableLabel: string;
  issueLabel: string;
  /** Said after "Revoke the key …?" in the confirmation. */
  revokeWarning: string;
  list: () => Promise<ApiKeyRow[]>;
  /** Issues a key of this scope and resolves to its secret. */
  issue: (scope: KeyScope) => Promise<string>;
  revoke: (keyId: string) => Promise<unknown>;
  children?: ComponentChildren;
}) {
  const announce = useAnnounce();
  const canWrite = useMay('admin');
  const [keys, setKeys] = useState<ApiKeyRow[] | null>(null);
  const [scope, setScope] = useState<KeyScope>('full');
  const [created, setCreated] = useState<{ key: string; scope: KeyScope } | null>(null);
  const { busy, error, setError, run } = useAction();
  const load = () => list().then(setKeys, setError);
  useEffect(() => {
    load();
  }, []);

  const onIssue = (e: Event) => {
    e.preventDefault();
    run(async () => {
      setCreated({ key: await issue(scope), scope });
      announce(`A new ${scope === 'read' ? 'read-only' : 'full'} API key was issued.`);
      await load();
    });
  };
  const onRevoke = (k: ApiKeyRow) => {
    if (!window.confirm(`Revoke the key ${k.prefix}…? ${revokeWarning}`)) return;
    run(async () => {
      await revoke(k.keyId);
      announce(`Key ${k.prefix}… revoked.`);
      await load();
    });
  };

  return (
    <section class="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>API keys</h2>
      {children}
      {created ? (
        <OnceSecret label="New API key" value={created.key}>
          {created.scope === 'read' ? ' It may only read (GET requests).' : ''}
        </OnceSecret>
      ) : null}
      <ErrorNote error={error} />
      {keys === null ? (
        <Loading what="keys" />
      ) : (
        <ApiKeysTable label={tableLabel} keys={keys} onRevoke={canWrite ? onRevoke : undefined} />
      )}
      {canWrite ? (
        <form class="inline-form" onSubmit={onIssue} aria-label={issueLabel}>
          <Field id={`${headingId}-scope`} label="Scope of the new key">
            {(aria) => (
              <select {...aria} value={scope} onChange={(e) => setScope(e.currentTarget.value as KeyScope)}>
                <option value="full">Full: reads and acts</option>
                <option value="read">Read only: GET requests</option>
              </select>
            )}
          </Field>
          <button type="submit" class="secondary" disabled={busy}>
            {issueLabel}
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** The keys with their scope and state; without `onRevoke` (read-only) no actions column. */
export function ApiKeysTable({
  label,
  keys,
  onRevoke,
}: {
  label: string;
  keys: ApiKeyRow[];
  /** Offered on each active key but the session's own. */
  onRevoke?: (key: ApiKeyRow) => void;
}) {
  const columns = [
    'Key',
    'Scope',
    'Issued',
    'State',
    ...(onRevoke ? [{ label: 'Actions', hidden: true }] : []),
  ];
  return (
    <ListTable label={label} columns={columns}>
      {keys.map((k) => (
        <tr key={k.keyId}>
          <td data-label="Key" class="mono">
            {k.prefix}…
          </td>
          <td data-label="Scope">{SCOPE_LABELS[k.scope]}</td>
          <td data-label="Issued">
            <Time iso={k.createdAt} />
          </td>
          <td data-label="State">
            {k.revokedAt ? (
              <span>
                revoked <Time iso={k.revokedAt} />
              </span>
            ) : k.current ? (
              'active · this session'
            ) : (
              'active'
            )}
          </td>
          {onRevoke ? (
            <td data-label="Actions">
              {!k.revokedAt && !k.current ? (
                <button
                  type="button"
                  class="danger small-button"
                  onClick={() => onRevoke(k)}
                  aria-label={`Revoke key ${k.prefix}`}
                >
                  Revoke
                </button>
              ) : null}
            </td>
          ) : null}
        </tr>
      ))}
    </ListTable>
  );
}
