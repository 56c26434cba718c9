/**
 * An organization's API keys: listed by prefix, issued (the new key shown once) and revoked.
 * The operator's organization page and the organization's own settings differ only in the
 * endpoints behind `list`, `issue` and `revoke`, and in the key the organization signed in with,
 * which its settings mark `current` and never offer to revoke.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../hooks.js';
import { useAnnounce } from '../session.js';
import { ErrorNote, ListTable, Loading, OnceSecret, Time } from './ui.js';

export interface ApiKeyRow {
  keyId: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  /** The key of this session. */
  current?: boolean;
}

const COLUMNS = ['Key', 'Issued', 'State', { label: 'Actions', hidden: true }];

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
  /** Issues a key and resolves to its secret. */
  issue: () => Promise<string>;
  revoke: (keyId: string) => Promise<unknown>;
  children?: ComponentChildren;
}) {
  const announce = useAnnounce();
  const [keys, setKeys] = useState<ApiKeyRow[] | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const { error, setError, run } = useAction();
  const load = () => list().then(setKeys, setError);
  useEffect(() => {
    load();
  }, []);

  const onIssue = () =>
    run(async () => {
      setCreated(await issue());
      announce('A new API key was issued.');
      await load();
    });
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
      {created ? <OnceSecret label="New API key" value={created} /> : null}
      <ErrorNote error={error} />
      {keys === null ? (
        <Loading what="keys" />
      ) : (
        <ApiKeysTable label={tableLabel} keys={keys} onRevoke={onRevoke} />
      )}
      <button type="button" class="secondary" onClick={onIssue}>
        {issueLabel}
      </button>
    </section>
  );
}

/** The keys with their state; a revoke button on each active key but the session's own. */
export function ApiKeysTable({
  label,
  keys,
  onRevoke,
}: {
  label: string;
  keys: ApiKeyRow[];
  onRevoke: (key: ApiKeyRow) => void;
}) {
  return (
    <ListTable label={label} columns={COLUMNS}>
      {keys.map((k) => (
        <tr key={k.keyId}>
          <td data-label="Key" class="mono">
            {k.prefix}…
          </td>
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
        </tr>
      ))}
    </ListTable>
  );
}
