/**
 * The invitation page (`/invitation/<token>`, SPEC §17), opened from the e-mail an admin's
 * invitation sent. No session: the link's token is the credential, read from the path and sent
 * once with the accept request. The person chooses the name others see and a password of at
 * least 12 characters (typed twice); the hub then uses the link up, and the page offers the
 * dashboard's sign-in. A link the hub no longer accepts (used, expired, unknown) is said to be not
 * valid any more, without saying why.
 */
import { useRef, useState } from 'preact/hooks';
import { fieldErrors, type Person, publicClient, unwrap } from '../api.js';
import { Field, FormError } from '../components/forms.js';
import { InvalidLink, PublicPage } from '../components/public-page.js';
import { useAction } from '../hooks.js';
import { useAnnounce } from '../session.js';
import { isNotFound } from './claim-forms.js';

/** SPEC §17: at least 12 characters (the hub says so too). */
const PASSWORD_MIN = 12;

export function InvitationPage({ token }: { token: string }) {
  const [outcome, setOutcome] = useState<'open' | 'invalid' | Person>('open');
  const heading = useRef<HTMLHeadingElement>(null);
  const finish = (next: 'invalid' | Person) => {
    setOutcome(next);
    window.setTimeout(() => heading.current?.focus(), 0);
  };
  const title =
    outcome === 'open' ? 'Join your team' : outcome === 'invalid' ? 'Invitation' : 'Your account is ready';

  return (
    <PublicPage title={title}>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {!token || outcome === 'invalid' ? (
        <InvalidLink>
          <p>Ask an admin of your organization to invite you again.</p>
        </InvalidLink>
      ) : outcome === 'open' ? (
        <AcceptForm token={token} onAccepted={finish} onInvalid={() => finish('invalid')} />
      ) : (
        <div class="note note-ok">
          <p>
            Welcome, {outcome.name}. Sign in with <strong class="break">{outcome.email}</strong> and your new
            password.
          </p>
          <p>
            <a href="/ui/">Sign in to the dashboard</a>
          </p>
        </div>
      )}
    </PublicPage>
  );
}

function AcceptForm({
  token,
  onAccepted,
  onInvalid,
}: {
  token: string;
  onAccepted: (person: Person) => void;
  onInvalid: () => void;
}) {
  const announce = useAnnounce();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [local, setLocal] = useState<Record<string, string>>({});
  const { busy, error, run } = useAction();
  const problems = { ...fieldErrors(error), ...local };

  const submit = (e: Event) => {
    e.preventDefault();
    const mine: Record<string, string> = {};
    if (!name.trim()) mine.name = 'Enter your name.';
    if (password.length < PASSWORD_MIN) mine.password = `Choose at least ${PASSWORD_MIN} characters.`;
    else if (again !== password) mine.again = 'The two passwords differ.';
    setLocal(mine);
    const first = Object.keys(mine)[0];
    if (first) {
      document.getElementById(`invite-${first}`)?.focus();
      return;
    }
    run(async () => {
      try {
        const { user } = await unwrap(
          publicClient().POST('/v1/invitations/{token}/accept', {
            params: { path: { token } },
            body: { name: name.trim(), password },
          }),
        );
        setPassword('');
        setAgain('');
        announce('Your account is ready.');
        onAccepted(user);
      } catch (err) {
        if (isNotFound(err)) return onInvalid();
        throw err;
      }
    });
  };

  return (
    <>
      <p>
        You were invited to your organization’s team on the hub’s compliance dashboard. Choose how your name
        is shown to the team, and a password.
      </p>
      <form onSubmit={submit} noValidate>
        <Field id="invite-name" label="Your name" error={problems.name}>
          {(aria) => (
            <input
              {...aria}
              type="text"
              required
              maxLength={100}
              autocomplete="name"
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          id="invite-password"
          label="Password"
          hint={`At least ${PASSWORD_MIN} characters; a few unrelated words make a good one.`}
          error={problems.password}
        >
          {(aria) => (
            <input
              {...aria}
              type="password"
              required
              minLength={PASSWORD_MIN}
              maxLength={256}
              autocomplete="new-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="invite-again" label="The password again" error={problems.again}>
          {(aria) => (
            <input
              {...aria}
              type="password"
              required
              autocomplete="new-password"
              value={again}
              onInput={(e) => setAgain(e.currentTarget.value)}
            />
          )}
        </Field>
        <FormError error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Creating your account…' : 'Create my account'}
        </button>
      </form>
    </>
  );
}
