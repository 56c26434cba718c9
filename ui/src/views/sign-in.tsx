import { useState } from 'preact/hooks';
import { describeError } from '../api.js';

export function SignIn({
  onSignIn,
  notice,
}: {
  onSignIn: (key: string) => Promise<void>;
  notice: string | null;
}) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSignIn(key.trim());
      setKey('');
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <div class="card">
        <h1>Compliance dashboard</h1>
        <p>
          Travel Rule Hub: work your organization’s travel rule inbox, or manage the hub with an operator key.
        </p>
        {notice ? <p class="note note-info">{notice}</p> : null}
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
            Your organization’s key (<code>trh_…</code>, full or read-only) or an operator key. It stays in
            this browser tab (session storage) until you sign out, and is sent only in the{' '}
            <code>x-api-key</code> header.
          </p>
          {error ? (
            <p role="alert" class="note note-error">
              {error}
            </p>
          ) : null}
          <button type="submit" disabled={busy || key.trim() === ''}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}
