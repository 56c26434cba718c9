/**
 * The sign-in page. People sign in with e-mail and password, and the code of their authenticator
 * app (or a recovery code) when their account has a second factor: the field is always there,
 * since the hub answers every kind of failure with the same 401 and the page cannot know. The hub
 * keeps the session in an HttpOnly cookie; nothing is stored here.
 * An API key still signs in (the first admin, before there are people; automation), behind a
 * disclosure that says so: the key stays in this tab's session storage until sign-out. Opened from
 * an organization's sign-in link, the page also offers that organization's single sign-on.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, HubProblem } from '../api.js';

export type SignInRequest =
  | { kind: 'person'; credentials: { email: string; password: string; totp?: string } }
  | { kind: 'key'; key: string };

export function SignIn({
  onSignIn,
  notice,
}: {
  onSignIn: (how: SignInRequest) => Promise<void>;
  notice: string | null;
}) {
  return (
    <main class="sign-in" id="main">
      <div class="card">
        <h1>Compliance dashboard</h1>
        <p>Travel Rule Hub: work your organization’s travel rule inbox, or manage the hub as its operator.</p>
        {notice ? <p class="note note-info">{notice}</p> : null}
        <SingleSignOn />
        <PersonForm onSignIn={onSignIn} />
        <details class="key-sign-in">
          <summary>Sign in with an API key</summary>
          <p class="hint">
            For the first admin, before anyone is invited, and for automation. People should sign in with
            their own account above: an API key acts for the whole organization.
          </p>
          <KeyForm onSignIn={onSignIn} />
        </details>
      </div>
    </main>
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The organization's SSO button, when the page was opened from its sign-in link (`?sso=<id>`, shown
 * to its admins in Settings): the hub names the organization, and the button starts the sign-in at
 * its identity provider. The password form stays below it.
 */
/** Why single sign-on did not sign a person in (the hub's `sso_refused` reasons), in their words. */
const SSO_REFUSED: Record<string, string> = {
  state: 'The sign-in took too long or was already used. Start it again.',
  provider: 'Your identity provider did not confirm the sign-in.',
  unverified: 'Your identity provider does not confirm your e-mail address.',
  'not-invited':
    'Nobody of this organization has your e-mail address, and no invitation is open for it. Ask an admin to invite you.',
  'email-in-use': 'Another account uses your e-mail address.',
  'not-configured': 'Single sign-on is not set up for this organization.',
};

function SingleSignOn() {
  const params = new URLSearchParams(location.search);
  const id = params.get('sso') ?? '';
  const refused = params.get('sso_refused');
  const [state, setState] = useState<{ name: string } | 'none' | null>(null);
  useEffect(() => {
    if (!UUID.test(id)) return;
    fetch(`/v1/sso/${id}`, { headers: { accept: 'application/json' } })
      .then(async (res) =>
        res.ok ? setState({ name: (await res.json()).organizationName }) : setState('none'),
      )
      .catch(() => setState('none'));
  }, [id]);
  const refusal = refused ? (
    <p role="alert" class="note note-error">
      Single sign-on did not sign you in. {SSO_REFUSED[refused] ?? 'Try again, or ask your admin.'}
    </p>
  ) : null;
  if (!UUID.test(id) || state === null) return refusal;
  if (state === 'none') {
    return (
      <p class="note note-info">
        This single sign-on link does not work: the organization has no single sign-on (any more). Sign in
        with your e-mail address and password, or ask your admin.
      </p>
    );
  }
  return (
    <div class="sso">
      {refusal}
      <a class="button" href={`/v1/sso/${id}/start`}>
        Sign in to {state.name} with single sign-on
      </a>
      <p class="hint">Or with your e-mail address and password:</p>
    </div>
  );
}

function PersonForm({ onSignIn }: { onSignIn: (how: SignInRequest) => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const emailInput = useRef<HTMLInputElement>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const totp = code.trim();
      await onSignIn({
        kind: 'person',
        credentials: { email: email.trim(), password, ...(totp ? { totp } : {}) },
      });
    } catch (err) {
      setError(
        err instanceof HubProblem && err.status === 401
          ? 'The e-mail address, the password or the code is not right.'
          : describeError(err),
      );
      setPassword('');
      setCode('');
      emailInput.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} aria-labelledby="person-sign-in">
      <h2 id="person-sign-in" class="sr-only">
        Sign in with your account
      </h2>
      <label for="email">E-mail address</label>
      <input
        id="email"
        ref={emailInput}
        name="email"
        type="email"
        required
        autocomplete="username"
        spellcheck={false}
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
      />
      <label for="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        required
        autocomplete="current-password"
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
      />
      <label for="totp">Code (if your account has a second factor)</label>
      <input
        id="totp"
        name="totp"
        type="text"
        autocomplete="one-time-code"
        spellcheck={false}
        maxLength={32}
        value={code}
        onInput={(e) => setCode(e.currentTarget.value)}
        aria-describedby="totp-hint"
      />
      <p id="totp-hint" class="hint">
        The 6-digit code of your authenticator app, or one of your recovery codes. Leave it empty if you have
        not set up a second factor.
      </p>
      {error ? (
        <p role="alert" class="note note-error">
          {error}
        </p>
      ) : null}
      <button type="submit" disabled={busy || email.trim() === '' || password === ''}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

function KeyForm({ onSignIn }: { onSignIn: (how: SignInRequest) => Promise<void> }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSignIn({ kind: 'key', key: key.trim() });
      setKey('');
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} autocomplete="off">
      <label for="api-key">API key</label>
      <input
        id="api-key"
        name="api-key"
        type="password"
        required
        autocomplete="off"
        spellcheck={false}
        value={key}
        onInput={(e) => setKey(e.currentTarget.value)}
        aria-describedby="api-key-hint"
        aria-invalid={error ? true : undefined}
      />
      <p id="api-key-hint" class="hint">
        Your organization’s key (<code>trh_…</code>, full or read-only) or an operator key. It stays in this
        browser tab (session storage) until you sign out, and is sent only in the <code>x-api-key</code>{' '}
        header.
      </p>
      {error ? (
        <p role="alert" class="note note-error">
          {error}
        </p>
      ) : null}
      <button type="submit" class="secondary" disabled={busy || key.trim() === ''}>
        {busy ? 'Signing in…' : 'Sign in with the key'}
      </button>
    </form>
  );
}
