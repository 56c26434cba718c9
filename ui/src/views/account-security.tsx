/**
 * My account's password and sessions (SPEC §17). Changing the password asks for the current one
 * (the hub throttles wrong guesses like sign-ins) and ends every other session of the person; the
 * list of open sessions names each by when and from where it signed in, marks this one, and ends
 * any other (a lost laptop, a session nobody recognises).
 */
import { useEffect, useState } from 'preact/hooks';
import { fieldErrors, type OwnSession, unwrap } from '../api.js';
import { Field, FormError } from '../components/forms.js';
import { ErrorNote, ListTable, Loading, Time } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useSession } from '../session.js';

export function PasswordPanel({ onChanged }: { onChanged: () => void }) {
  const { client } = useSession();
  const announce = useAnnounce();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);

  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const { otherSessionsEnded } = await unwrap(
        client.POST('/v1/users/me/password', { body: { currentPassword: current, newPassword: next } }),
      );
      setCurrent('');
      setNext('');
      announce(
        otherSessionsEnded === 0
          ? 'Your password is changed.'
          : `Your password is changed; ${otherSessionsEnded} other ${otherSessionsEnded === 1 ? 'session' : 'sessions'} ended.`,
      );
      onChanged();
    });
  };

  return (
    <section class="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form onSubmit={submit} noValidate>
        <Field id="current-password" label="Current password" error={problems.currentPassword}>
          {(aria) => (
            <input
              {...aria}
              type="password"
              autocomplete="current-password"
              required
              value={current}
              onInput={(e) => setCurrent(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          id="new-password"
          label="New password"
          hint="At least 12 characters. Your other sessions end when it changes."
          error={problems.newPassword}
        >
          {(aria) => (
            <input
              {...aria}
              type="password"
              autocomplete="new-password"
              minLength={12}
              required
              value={next}
              onInput={(e) => setNext(e.currentTarget.value)}
            />
          )}
        </Field>
        <FormError error={error} />
        <button type="submit" disabled={busy || current === '' || next.length < 12}>
          {busy ? 'Changing…' : 'Change the password'}
        </button>
      </form>
    </section>
  );
}

/** A browser's user agent, shortened to what a person recognises. */
export function browserOf(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : userAgent.split(/[ /]/)[0] || 'Unknown browser';
  const system = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad/.test(userAgent)
      ? 'iOS'
      : /Windows/.test(userAgent)
        ? 'Windows'
        : /Mac OS X/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : '';
  return system ? `${browser} on ${system}` : browser;
}

export function SessionsPanel({ version }: { version: number }) {
  const { client } = useSession();
  const announce = useAnnounce();
  const [sessions, setSessions] = useState<OwnSession[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const { busy, error, run } = useAction();

  const load = () =>
    unwrap(client.GET('/v1/users/me/sessions')).then((r) => {
      setSessions(r.sessions);
      setLoadError(null);
    }, setLoadError);
  useEffect(() => {
    load();
  }, [version]);

  const end = (s: OwnSession) =>
    run(async () => {
      await unwrap(client.DELETE('/v1/users/me/sessions/{id}', { params: { path: { id: s.id } } }));
      announce(`The session of ${browserOf(s.userAgent)} has ended.`);
      await load();
    });

  return (
    <section class="panel" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Where you are signed in</h2>
      <ErrorNote error={loadError} />
      {sessions === null ? (
        loadError ? null : (
          <Loading what="your sessions" />
        )
      ) : (
        <ListTable
          label="Your open sessions"
          columns={['Browser', 'From', 'Signed in', 'Last used', { label: 'Actions', hidden: true }]}
        >
          {sessions.map((s) => (
            <tr key={s.id}>
              <td>
                {browserOf(s.userAgent)}
                {s.current ? <span class="muted small"> (this session)</span> : null}
              </td>
              <td class="mono">{s.clientAddress ?? '—'}</td>
              <td>
                <Time iso={s.createdAt} />
              </td>
              <td>
                <Time iso={s.lastSeenAt} />
              </td>
              <td>
                {s.current ? null : (
                  <button type="button" class="secondary small-button" disabled={busy} onClick={() => end(s)}>
                    End<span class="sr-only"> the session of {browserOf(s.userAgent)}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      <FormError error={error} />
    </section>
  );
}
