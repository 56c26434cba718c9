/**
 * The credentials page (`/credentials/<token>`, SPEC §12), opened from the e-mail that tells an
 * applicant its application was approved. The hub shows the new organization's API key and
 * webhook secret once, to the first POST. Mail scanners follow links, so opening the page asks
 * for nothing: only the "Show my credentials" button does. Both secrets are then shown with copy
 * buttons and the advice to store them, until "Done" (or leaving the page) puts them away for
 * good. A link the hub no longer accepts is said to be not valid any more, without saying why.
 */
import { useRef, useState } from 'preact/hooks';
import { type Credentials, HubProblem, publicClient, unwrap } from '../api.js';
import { InvalidLink, PublicPage } from '../components/public-page.js';
import { ErrorNote, OnceSecret } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { useAnnounce } from '../session.js';

type View =
  | { kind: 'ready' }
  | { kind: 'shown'; credentials: Credentials }
  | { kind: 'stored'; organization: Credentials['organization'] }
  | { kind: 'invalid' };

export function CredentialsPage({ token }: { token: string }) {
  const announce = useAnnounce();
  const [view, setView] = useState<View>(token ? { kind: 'ready' } : { kind: 'invalid' });
  const { busy, error, run } = useAction();
  const heading = useRef<HTMLHeadingElement>(null);

  const show = () =>
    run(async () => {
      try {
        const credentials = await unwrap(
          publicClient().POST('/v1/credentials/{token}', { params: { path: { token } } }),
        );
        setView({ kind: 'shown', credentials });
        announce('Your API key and webhook secret are shown below. Store them now.');
      } catch (err) {
        if (!(err instanceof HubProblem && err.status === 404)) throw err;
        setView({ kind: 'invalid' });
        window.setTimeout(() => heading.current?.focus(), 0);
      }
    });
  const stored = (organization: Credentials['organization']) => {
    setView({ kind: 'stored', organization });
    window.setTimeout(() => heading.current?.focus(), 0);
  };

  return (
    <PublicPage title="Your credentials">
      <h1 ref={heading} tabIndex={-1}>
        Your hub credentials
      </h1>
      {view.kind === 'ready' ? (
        <>
          <p class="lead">
            Your application to join Travel Rule Hub was approved. This link shows your organization’s API key
            and webhook signing secret, <strong>once</strong>.
          </p>
          <ul class="advice">
            <li>Have a safe place ready first: a password manager or your secrets store.</li>
            <li>
              They cannot be shown again: the hub keeps no readable copy, and this link then stops working.
            </li>
          </ul>
          <ErrorNote error={error} prefix="Could not show them:" />
          <button type="button" onClick={show} disabled={busy}>
            {busy ? 'Loading…' : 'Show my credentials'}
          </button>
        </>
      ) : null}
      {view.kind === 'shown' ? (
        <>
          <p class="note note-ok">
            <strong>{view.credentials.organization.name}</strong>{' '}
            <span class="did">{view.credentials.organization.vaspDid}</span> is a member of the hub.
          </p>
          <section class="panel" aria-labelledby="secrets-heading">
            <h2 id="secrets-heading">Store these now</h2>
            <OnceSecret label="API key" value={view.credentials.apiKey}>
              {' '}
              Your systems send it in the <code>x-api-key</code> header; it also signs you in to the
              dashboard.
            </OnceSecret>
            <OnceSecret label="Webhook secret" value={view.credentials.webhookSecret} takeFocus={false}>
              {' '}
              Verify every webhook from the hub with it (Standard Webhooks signatures).
            </OnceSecret>
          </section>
          <NextSteps />
          <button type="button" class="secondary" onClick={() => stored(view.credentials.organization)}>
            Done, I have stored them
          </button>
        </>
      ) : null}
      {view.kind === 'stored' ? (
        <>
          <p class="note note-ok">
            The credentials of <strong>{view.organization.name}</strong> are no longer shown here, and this
            link does not work any more.
          </p>
          <NextSteps />
        </>
      ) : null}
      {view.kind === 'invalid' ? (
        <InvalidLink>
          <p>
            If nobody at your organization stored the credentials, ask the hub’s operator for a new API key
            and webhook secret.
          </p>
        </InvalidLink>
      ) : null}
    </PublicPage>
  );
}

function NextSteps() {
  return (
    <section class="panel" aria-labelledby="next-heading">
      <h2 id="next-heading">Next steps</h2>
      <ol class="steps">
        <li>
          Sign in to the <a href="/ui/">compliance dashboard</a> with the API key.
        </li>
        <li>
          In its settings, set your travel endpoint (where the hub posts webhooks) and your public key, if you
          did not give them with the application.
        </li>
        <li>The transfer that brought you here is in the dashboard’s inbox, unless it ended meanwhile.</li>
      </ol>
    </section>
  );
}
