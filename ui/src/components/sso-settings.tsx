/**
 * Single sign-on in Settings (SPEC §17; admins): the organization's OpenID Connect provider. The
 * hub checks the issuer's discovery before saving and seals the client secret (never shown again).
 * Once set, the panel shows the redirect URI to register with the provider and the sign-in link
 * to share with the team: it opens the dashboard's sign-in page with this organization's SSO button.
 */
import { useEffect, useState } from 'preact/hooks';
import { fieldErrors, HubProblem, type SsoSettings, unwrap } from '../api.js';
import { useAction } from '../hooks.js';
import { useAnnounce, useOrg } from '../session.js';
import { CopyButton } from './copy-button.js';
import { Field, FormError } from './forms.js';
import { ErrorNote, Fact, Loading } from './ui.js';

export function SingleSignOn() {
  const { client } = useOrg();
  const announce = useAnnounce();
  const [settings, setSettings] = useState<SsoSettings | null | undefined>(undefined);
  const [editing, setEditing] = useState(false);
  const [loadError, setLoadError] = useState<unknown>(null);
  const { busy, error, run } = useAction();

  useEffect(() => {
    unwrap(client.GET('/v1/organizations/me/oidc')).then(setSettings, (err) => {
      if (err instanceof HubProblem && err.status === 404) setSettings(null);
      else setLoadError(err);
    });
  }, []);

  const turnOff = () =>
    run(async () => {
      await unwrap(client.DELETE('/v1/organizations/me/oidc'));
      setSettings(null);
      announce('Single sign-on is off. Open sessions go on until they end.');
    });

  return (
    <section class="panel" aria-labelledby="sso-heading">
      <h2 id="sso-heading">Single sign-on</h2>
      <ErrorNote error={loadError} />
      {settings === undefined ? (
        loadError ? null : (
          <Loading what="single sign-on" />
        )
      ) : settings === null || editing ? (
        <SsoForm
          onSaved={(saved) => {
            setSettings(saved);
            setEditing(false);
            announce('Single sign-on is set.');
          }}
          onCancel={settings ? () => setEditing(false) : undefined}
        />
      ) : (
        <>
          <p class="small">
            People you invite sign in with your identity provider, matched by their verified e-mail address.
          </p>
          <dl class="facts">
            <Fact label="Issuer">
              <span class="break">{settings.issuer}</span>
            </Fact>
            <Fact label="Client id">
              <span class="break">{settings.clientId}</span>
            </Fact>
            <Fact label="Redirect URI to register">
              <span class="mono break">{settings.redirectUri}</span>
            </Fact>
            <Fact label="Sign-in link for your team">
              <span id="sso-sign-in-link" class="mono break">
                {settings.signInUrl}
              </span>{' '}
              <CopyButton
                value={settings.signInUrl}
                label="the sign-in link"
                selectId="sso-sign-in-link"
                what="The sign-in link"
              />
            </Fact>
          </dl>
          <p class="button-row">
            <button type="button" class="secondary" onClick={() => setEditing(true)}>
              Change the provider
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={turnOff}>
              Turn single sign-on off
            </button>
          </p>
          <FormError error={error} />
        </>
      )}
    </section>
  );
}

function SsoForm({ onSaved, onCancel }: { onSaved: (s: SsoSettings) => void; onCancel?: () => void }) {
  const { client } = useOrg();
  const [form, setForm] = useState({ issuer: '', clientId: '', clientSecret: '' });
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);
  const bind = (field: keyof typeof form) => ({
    value: form[field],
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
  });
  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => onSaved(await unwrap(client.PUT('/v1/organizations/me/oidc', { body: form }))));
  };
  return (
    <form onSubmit={submit} noValidate>
      <Field
        id="sso-issuer"
        label="Issuer URL"
        hint="Its /.well-known/openid-configuration must answer now."
        error={problems.issuer}
      >
        {(aria) => <input {...aria} type="url" required spellcheck={false} {...bind('issuer')} />}
      </Field>
      <Field id="sso-client-id" label="Client id" error={problems.clientId}>
        {(aria) => <input {...aria} type="text" required spellcheck={false} {...bind('clientId')} />}
      </Field>
      <Field
        id="sso-client-secret"
        label="Client secret"
        hint="Sealed at rest and never shown again."
        error={problems.clientSecret}
      >
        {(aria) => <input {...aria} type="password" required autocomplete="off" {...bind('clientSecret')} />}
      </Field>
      <FormError error={error} />
      <p class="button-row">
        <button
          type="submit"
          disabled={busy || form.issuer === '' || form.clientId === '' || form.clientSecret === ''}
        >
          {busy ? 'Checking the provider…' : 'Set the provider'}
        </button>
        {onCancel ? (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </p>
    </form>
  );
}
