/**
 * People (SPEC §17): the team of the organization (its admins, or a full key) or of the hub's
 * operators (operator admins, or an operator key). Lists who has an account and which
 * invitations wait; invites by e-mail with a role; changes a role; removes a person after a
 * confirmation (their open sessions end at once); and, for an organization, requires a second
 * factor of everyone. Nobody changes or removes themselves here (the hub answers 409). A session
 * that may only read sees the list without controls.
 */
import { useEffect, useState } from 'preact/hooks';
import { fieldErrors, type Person, type PersonRole, type TeamList, unwrap } from '../api.js';
import { Field, FormError } from '../components/forms.js';
import { ErrorNote, ListTable, Loading, PageHead, Time } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { type Session, useAnnounce, useMay, useSession } from '../session.js';

const ORG_ROLES: PersonRole[] = ['viewer', 'analyst', 'admin'];
const OPERATOR_ROLES: PersonRole[] = ['viewer', 'admin'];

const ROLE_TEXT: Record<PersonRole, string> = {
  viewer: 'viewer: reads, without personal data',
  analyst: 'analyst: also personal data and every transaction action',
  admin: 'admin: also settings, keys, people and the webhook secret',
};

/** The team's routes: the organization's under /v1/users, the operators' under /v1/admin/users. */
function teamApi(session: Session) {
  const { client } = session;
  if (session.kind === 'operator') {
    return {
      roles: OPERATOR_ROLES,
      list: () => unwrap(client.GET('/v1/admin/users')),
      invite: (email: string, role: PersonRole) =>
        unwrap(
          client.POST('/v1/admin/users/invitations', { body: { email, role: role as 'viewer' | 'admin' } }),
        ),
      setRole: (id: string, role: PersonRole) =>
        unwrap(
          client.PATCH('/v1/admin/users/{id}', {
            params: { path: { id } },
            body: { role: role as 'viewer' | 'admin' },
          }),
        ),
      remove: (id: string) => unwrap(client.DELETE('/v1/admin/users/{id}', { params: { path: { id } } })),
      revoke: (id: string) =>
        unwrap(client.DELETE('/v1/admin/users/invitations/{id}', { params: { path: { id } } })),
    };
  }
  return {
    roles: ORG_ROLES,
    list: () => unwrap(client.GET('/v1/users')),
    invite: (email: string, role: PersonRole) =>
      unwrap(client.POST('/v1/users/invitations', { body: { email, role } })),
    setRole: (id: string, role: PersonRole) =>
      unwrap(client.PATCH('/v1/users/{id}', { params: { path: { id } }, body: { role } })),
    remove: (id: string) => unwrap(client.DELETE('/v1/users/{id}', { params: { path: { id } } })),
    revoke: (id: string) => unwrap(client.DELETE('/v1/users/invitations/{id}', { params: { path: { id } } })),
  };
}

const COLUMNS = ['Name', 'E-mail', 'Role', 'Second factor', 'Joined', { label: 'Actions', hidden: true }];

export function PeoplePage() {
  const session = useSession();
  const api = teamApi(session);
  const canChange = useMay('admin');
  const [team, setTeam] = useState<TeamList | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);

  const load = () =>
    api.list().then((r) => {
      setTeam(r);
      setLoadError(null);
    }, setLoadError);
  useEffect(() => {
    load();
  }, []);

  const operators = session.kind === 'operator';
  return (
    <section aria-labelledby="people-heading">
      <PageHead id="people-heading" title="People">
        <p class="muted small">
          {operators
            ? 'The hub’s operator users: viewers read the operator pages, admins may do what an operator key may.'
            : 'Everyone of your organization who signs in to this dashboard, each with a role. The audit names the person who acted.'}
        </p>
      </PageHead>
      <ErrorNote error={loadError} />
      {team === null ? (
        loadError ? null : (
          <Loading what="people" />
        )
      ) : (
        <>
          <TeamTable users={team.users} roles={api.roles} canChange={canChange} api={api} onChanged={load} />
          <Invitations invitations={team.invitations} canChange={canChange} api={api} onChanged={load} />
          {canChange ? <InviteForm roles={api.roles} api={api} onInvited={load} /> : null}
          {canChange && !operators ? <Policy /> : null}
        </>
      )}
    </section>
  );
}

type TeamApi = ReturnType<typeof teamApi>;

function TeamTable({
  users,
  roles,
  canChange,
  api,
  onChanged,
}: {
  users: Person[];
  roles: PersonRole[];
  canChange: boolean;
  api: TeamApi;
  onChanged: () => Promise<void>;
}) {
  const session = useSession();
  const announce = useAnnounce();
  const { busy, error, run } = useAction();
  const [chosen, setChosen] = useState<Record<string, PersonRole>>({});
  const myId = session.person?.id;

  const saveRole = (u: Person) => {
    const role = chosen[u.id];
    if (!role || role === u.role) return;
    run(async () => {
      await api.setRole(u.id, role);
      announce(`${u.name} is now ${role}.`);
      await onChanged();
    });
  };
  const remove = (u: Person) => {
    if (!window.confirm(`Remove ${u.name} (${u.email})? Their account and open sessions end at once.`))
      return;
    run(async () => {
      await api.remove(u.id);
      announce(`${u.name} is removed.`);
      await onChanged();
    });
  };

  if (users.length === 0)
    return <p class="empty">Nobody has an account yet: invite the first person below.</p>;
  return (
    <>
      <ErrorNote error={error} prefix="Not done:" />
      <ListTable label="People" columns={COLUMNS}>
        {users.map((u) => {
          const self = u.id === myId;
          return (
            <tr key={u.id}>
              <td data-label="Name">
                {u.name}
                {self ? <span class="muted"> (you)</span> : null}
              </td>
              <td data-label="E-mail" class="break">
                {u.email}
              </td>
              <td data-label="Role">
                {canChange && !self ? (
                  <span class="inline-form">
                    <label class="sr-only" for={`role-${u.id}`}>
                      Role of {u.name}
                    </label>
                    <select
                      id={`role-${u.id}`}
                      value={chosen[u.id] ?? u.role}
                      onChange={(e) => setChosen({ ...chosen, [u.id]: e.currentTarget.value as PersonRole })}
                    >
                      {roles.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>{' '}
                    <button
                      type="button"
                      class="secondary"
                      disabled={busy || (chosen[u.id] ?? u.role) === u.role}
                      onClick={() => saveRole(u)}
                    >
                      Change role<span class="sr-only"> of {u.name}</span>
                    </button>
                  </span>
                ) : (
                  u.role
                )}
              </td>
              <td data-label="Second factor">{u.totpEnabled ? 'on' : 'off'}</td>
              <td data-label="Joined">
                <Time iso={u.createdAt} />
              </td>
              <td data-label="Actions">
                {canChange && !self ? (
                  <button type="button" class="danger" disabled={busy} onClick={() => remove(u)}>
                    Remove<span class="sr-only"> {u.name}</span>
                  </button>
                ) : null}
              </td>
            </tr>
          );
        })}
      </ListTable>
    </>
  );
}

/** Invitations not yet accepted; an admin cancels one (its link stops working at once). */
function Invitations({
  invitations,
  canChange,
  api,
  onChanged,
}: {
  invitations: TeamList['invitations'];
  canChange: boolean;
  api: TeamApi;
  onChanged: () => Promise<void>;
}) {
  const announce = useAnnounce();
  const { busy, error, run } = useAction();
  if (invitations.length === 0) return null;
  const cancel = (i: TeamList['invitations'][number]) =>
    run(async () => {
      await api.revoke(i.id);
      announce(`The invitation of ${i.email} is cancelled.`);
      await onChanged();
    });
  return (
    <section class="panel" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations waiting</h2>
      <ul class="invitations">
        {invitations.map((i) => (
          <li key={i.id}>
            <span class="break">{i.email}</span> as {i.role}, valid until <Time iso={i.expiresAt} />{' '}
            {canChange ? (
              <button type="button" class="secondary small-button" disabled={busy} onClick={() => cancel(i)}>
                Cancel<span class="sr-only"> the invitation of {i.email}</span>
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <FormError error={error} />
    </section>
  );
}

function InviteForm({
  roles,
  api,
  onInvited,
}: {
  roles: PersonRole[];
  api: TeamApi;
  onInvited: () => Promise<void>;
}) {
  const announce = useAnnounce();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<PersonRole>('viewer');
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);

  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const invited = await api.invite(email.trim(), role);
      setEmail('');
      announce(`Invitation sent to ${invited.email}.`);
      await onInvited();
    });
  };

  return (
    <section class="panel" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite a person</h2>
      <p class="muted small">
        The hub e-mails a link that works once, for 7 days; the person chooses a name and a password there.
      </p>
      <form onSubmit={submit}>
        <Field id="invite-email" label="E-mail address" error={problems.email}>
          {(aria) => (
            <input
              {...aria}
              type="email"
              required
              spellcheck={false}
              autocomplete="off"
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="invite-role" label="Role" hint={ROLE_TEXT[role]} error={problems.role}>
          {(aria) => (
            <select {...aria} value={role} onChange={(e) => setRole(e.currentTarget.value as PersonRole)}>
              {roles.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          )}
        </Field>
        <FormError error={error} />
        <button type="submit" disabled={busy || email.trim() === ''}>
          {busy ? 'Sending…' : 'Send the invitation'}
        </button>
      </form>
    </section>
  );
}

/** The organization's rule that everyone signs in with a second factor. */
function Policy() {
  const { client } = useSession();
  const announce = useAnnounce();
  const [required, setRequired] = useState<boolean | null>(null);
  const [wanted, setWanted] = useState(false);
  const { busy, error, setError, run } = useAction();
  useEffect(() => {
    unwrap(client.GET('/v1/users/policy')).then((p) => {
      setRequired(p.requireTotp);
      setWanted(p.requireTotp);
    }, setError);
  }, []);

  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const p = await unwrap(client.PUT('/v1/users/policy', { body: { requireTotp: wanted } }));
      setRequired(p.requireTotp);
      announce(
        p.requireTotp ? 'A second factor is now required of everyone.' : 'A second factor is now optional.',
      );
    });
  };

  return (
    <section class="panel" aria-labelledby="policy-heading">
      <h2 id="policy-heading">Second factor</h2>
      {required === null ? (
        error ? null : (
          <Loading what="the policy" />
        )
      ) : (
        <form onSubmit={submit}>
          <div class="field check">
            <input
              id="require-totp"
              type="checkbox"
              checked={wanted}
              onChange={(e) => setWanted(e.currentTarget.checked)}
              aria-describedby="require-totp-hint"
            />
            <label for="require-totp">Require two factors for everyone</label>
          </div>
          <p id="require-totp-hint" class="hint">
            A person without a second factor can then sign in only to set one up (in My account).{' '}
            {required ? 'Now required.' : 'Now optional.'}
          </p>
          <button type="submit" class="secondary" disabled={busy || wanted === required}>
            Save
          </button>
        </form>
      )}
      <ErrorNote error={error} />
    </section>
  );
}
