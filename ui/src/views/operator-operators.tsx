/**
 * The hub's named operators (SPEC §13): who holds an operator key, created by whom, revoked or
 * not; creating one (its key shown once) and revoking one after a confirmation. Each acts in
 * the audit as `operator:<id>:<name>`. The bootstrap key (HUB_ADMIN_KEY) has no entry, and no
 * operator can revoke itself (the hub answers 409), so the session's own entry offers no revoke.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type CreatedOperator, fieldErrors, type Operator, unwrap } from '../api.js';
import { Field, FormError } from '../components/forms.js';
import { ErrorNote, ListTable, Loading, OnceSecret, PageHead, Time } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useMay, useOperator } from '../session.js';

const COLUMNS = ['Name', 'Key', 'Created by', 'Created', 'State', { label: 'Actions', hidden: true }];

/** `operator:<id>:alice` → `alice`: the table's column already says it is an operator. */
const byWhom = (actor: string) => actor.replace(/^operator:(?:[0-9a-f-]{36}:)?/, '');

export function OperatorOperators() {
  const { client, operator: me, person } = useOperator();
  const announce = useAnnounce();
  const mayChange = useMay('admin');
  const [operators, setOperators] = useState<Operator[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const { busy, error, run } = useAction();

  const load = () =>
    unwrap(client.GET('/v1/admin/operators')).then((r) => {
      setOperators(r.operators);
      setLoadError(null);
    }, setLoadError);
  useEffect(() => {
    load();
  }, []);

  const revoke = (o: Operator) => {
    if (!window.confirm(`Revoke the operator key of ${o.name} (${o.prefix}…)? It stops working at once.`)) {
      return;
    }
    run(async () => {
      await unwrap(client.DELETE('/v1/admin/operators/{id}', { params: { path: { id: o.id } } }));
      announce(`${o.name}’s operator key is revoked.`);
      await load();
    });
  };

  return (
    <section aria-labelledby="operators-heading">
      <PageHead id="operators-heading" title="Operators">
        <p class="muted small">
          Everyone who runs the hub, each with a key of their own: the audit names them (
          <code>operator:&lt;id&gt;:&lt;name&gt;</code>), and revoking a key ends that person’s access. The
          bootstrap key (<code>HUB_ADMIN_KEY</code>) is set in the hub’s configuration and is not listed.
          {person
            ? ` You are signed in as ${person.name}, an operator ${person.role} (People lists operator users).`
            : me
              ? ` You are signed in as ${me.name}.`
              : ' You are signed in with the bootstrap key.'}
        </p>
      </PageHead>
      <ErrorNote error={loadError} />
      <ErrorNote error={error} prefix="Could not revoke:" />
      {operators === null ? (
        loadError ? null : (
          <Loading what="operators" />
        )
      ) : operators.length === 0 ? (
        <p class="empty">
          No named operator yet: only the bootstrap key signs in. Create one per person below.
        </p>
      ) : (
        <ListTable label="Operators" columns={COLUMNS}>
          {operators.map((o) => {
            const mine = o.current;
            return (
              <tr key={o.id}>
                <td data-label="Name">{o.name}</td>
                <td data-label="Key" class="mono">
                  {o.prefix}…
                </td>
                <td data-label="Created by">{byWhom(o.createdBy)}</td>
                <td data-label="Created">
                  <Time iso={o.createdAt} />
                </td>
                <td data-label="State">
                  {o.revokedAt ? (
                    <span>
                      revoked <Time iso={o.revokedAt} />
                    </span>
                  ) : mine ? (
                    'active · this session'
                  ) : (
                    'active'
                  )}
                </td>
                <td data-label="Actions">
                  {mayChange && !o.revokedAt && !mine ? (
                    <button
                      type="button"
                      class="danger small-button"
                      disabled={busy}
                      onClick={() => revoke(o)}
                      aria-label={`Revoke operator ${o.name}`}
                    >
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </ListTable>
      )}
      {mayChange ? <CreateOperator onCreated={load} /> : null}
    </section>
  );
}

function CreateOperator({ onCreated }: { onCreated: () => void }) {
  const { client } = useOperator();
  const announce = useAnnounce();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedOperator | null>(null);
  const nameInput = useRef<HTMLInputElement>(null);
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);

  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const r = await unwrap(client.POST('/v1/admin/operators', { body: { name: name.trim() } }));
      setCreated(r);
      setName('');
      announce(`Operator ${r.operator.name} created. Copy the key now: it is shown only once.`);
      onCreated();
    });
  };
  const done = () => {
    setCreated(null);
    nameInput.current?.focus();
  };

  return (
    <section class="panel" aria-labelledby="new-operator-heading">
      <h2 id="new-operator-heading">Create an operator</h2>
      {created ? (
        <div class="note note-ok">
          <p>
            <strong>{created.operator.name}</strong> can now sign in with this key. Hand it over securely:
          </p>
          <OnceSecret label="New operator key" value={created.apiKey} />
          <button type="button" class="secondary" onClick={done}>
            Done, it is handed over
          </button>
        </div>
      ) : null}
      <form class="inline-form" onSubmit={submit} noValidate>
        <Field
          id="operator-name"
          label="Name"
          error={problems.name}
          hint="The person’s name, as the audit will show it. Unique among active operators."
        >
          {(aria) => (
            <input
              {...aria}
              ref={nameInput}
              required
              maxLength={100}
              autocomplete="off"
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={busy || name.trim() === ''}>
          {busy ? 'Creating…' : 'Create operator'}
        </button>
      </form>
      <FormError error={error} />
    </section>
  );
}
