/**
 * My account (SPEC §17): who is signed in, with which role, the second factor, the password and
 * the open sessions (account-security.tsx). Enrolling
 * asks the hub for a new TOTP secret (shown once: as a QR code for an authenticator app, as text,
 * and as its otpauth link), then for a current code, which turns it on and answers ten recovery
 * codes, shown once. A person whose organization requires a second factor is brought here after
 * signing in, and the rest of the dashboard opens once they are done.
 * The QR code is drawn as inline SVG from the secret's otpauth URL in this page (the `qrcode`
 * package's matrix): no image request, no data: URL, so the dashboard's CSP stays as strict.
 */

import { useEffect, useRef, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { type TotpEnrolment, unwrap } from '../api.js';
import { Field, FormError } from '../components/forms.js';
import { Fact, OnceSecret, PageHead, Time } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { accessLabel, useAnnounce, useRefreshSession, useSession } from '../session.js';
import { PasswordPanel, SessionsPanel } from './account-security.js';

export function MyAccount() {
  const session = useSession();
  const person = session.person;
  if (!person) {
    return (
      <section aria-labelledby="account-heading">
        <PageHead id="account-heading" title="My account" />
        <p>This session signed in with an API key: it belongs to no person.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="account-heading">
      <PageHead id="account-heading" title="My account">
        {session.kind === 'enrol' ? (
          <p class="note note-info">
            Your organization requires a second factor of everyone. Set it up here; the rest of the dashboard
            opens once it is on.
          </p>
        ) : null}
      </PageHead>
      <dl class="facts account-facts">
        <Fact label="Name">{person.name}</Fact>
        <Fact label="E-mail address">{person.email}</Fact>
        <Fact label="Role">{accessLabel(session)}</Fact>
        {session.kind === 'org' ? <Fact label="Organization">{session.me.name}</Fact> : null}
        <Fact label="Member since">
          <Time iso={person.createdAt} />
        </Fact>
      </dl>
      <SecondFactor on={person.totpEnabled} />
      {session.kind === 'enrol' ? null : <Security />}
    </section>
  );
}

/** Password and sessions; a password change ends the other sessions, so the list reloads. */
function Security() {
  const [version, setVersion] = useState(0);
  return (
    <>
      <PasswordPanel onChanged={() => setVersion((v) => v + 1)} />
      <SessionsPanel version={version} />
    </>
  );
}

type Step =
  | { kind: 'idle' }
  | { kind: 'scan'; enrolment: TotpEnrolment }
  | { kind: 'codes'; recoveryCodes: string[] };

function SecondFactor({ on }: { on: boolean }) {
  const { client } = useSession();
  const refresh = useRefreshSession();
  const announce = useAnnounce();
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const { busy, error, run } = useAction();

  const start = () =>
    run(async () => {
      const enrolment = await unwrap(client.POST('/v1/users/me/totp'));
      setStep({ kind: 'scan', enrolment });
    });

  return (
    <section class="panel" aria-labelledby="totp-heading">
      <h2 id="totp-heading">Second factor</h2>
      {step.kind === 'codes' ? (
        <RecoveryCodes
          codes={step.recoveryCodes}
          onDone={() =>
            run(async () => {
              await refresh();
              setStep({ kind: 'idle' });
            })
          }
          busy={busy}
        />
      ) : on ? (
        <p>
          On: you sign in with a code of your authenticator app, or one of your recovery codes. Lost the
          device and the codes? An admin removes your account and invites you again.
        </p>
      ) : step.kind === 'scan' ? (
        <Scan
          enrolment={step.enrolment}
          onConfirmed={(recoveryCodes) => {
            announce('The second factor is on.');
            setStep({ kind: 'codes', recoveryCodes });
          }}
        />
      ) : (
        <>
          <p>
            Off. With a second factor, signing in also asks for a 6-digit code from an authenticator app on
            your phone, so a stolen password alone opens nothing.
          </p>
          <button type="button" onClick={start} disabled={busy}>
            {busy ? 'Starting…' : 'Set up a second factor'}
          </button>
        </>
      )}
      <FormError error={error} />
    </section>
  );
}

function Scan({
  enrolment,
  onConfirmed,
}: {
  enrolment: TotpEnrolment;
  onConfirmed: (codes: string[]) => void;
}) {
  const { client } = useSession();
  const [code, setCode] = useState('');
  const { busy, error, run } = useAction();
  const input = useRef<HTMLInputElement>(null);

  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      try {
        const { recoveryCodes } = await unwrap(
          client.POST('/v1/users/me/totp/confirm', { body: { code: code.replace(/\s/g, '') } }),
        );
        setCode('');
        onConfirmed(recoveryCodes);
      } catch (err) {
        setCode('');
        input.current?.focus();
        throw err;
      }
    });
  };

  return (
    <ol class="steps">
      <li>
        Scan this QR code with your authenticator app, or type in the secret below.
        <QrCode
          text={enrolment.otpauthUrl}
          label="QR code of your new second factor, for an authenticator app"
        />
      </li>
      <li>
        <OnceSecret label="Secret" value={enrolment.secret}>
          {' '}
          On a phone, <a href={enrolment.otpauthUrl}>open it in your authenticator app</a>.
        </OnceSecret>
      </li>
      <li>
        <form onSubmit={submit} noValidate>
          <Field
            id="totp-code"
            label="The 6-digit code the app shows now"
            error={error ? 'That code is not right or has expired; try the current one.' : undefined}
          >
            {(aria) => (
              <input
                {...aria}
                ref={input}
                type="text"
                inputMode="numeric"
                autocomplete="one-time-code"
                pattern="[0-9]{6}"
                maxLength={7}
                required
                value={code}
                onInput={(e) => setCode(e.currentTarget.value)}
              />
            )}
          </Field>
          <button type="submit" disabled={busy || code.replace(/\s/g, '').length !== 6}>
            {busy ? 'Checking…' : 'Turn the second factor on'}
          </button>
        </form>
      </li>
    </ol>
  );
}

function RecoveryCodes({ codes, onDone, busy }: { codes: string[]; onDone: () => void; busy: boolean }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState(false);
  // The form that asked for them is gone: the focus goes to what replaced it.
  useEffect(() => heading.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      setCopied(true);
    } catch {
      // no clipboard (an insecure origin): the codes are on the page to write down
    }
  };
  return (
    <div class="note note-ok">
      <h3 ref={heading} tabIndex={-1} id="recovery-heading">
        The second factor is on. Your recovery codes:
      </h3>
      <ol class="recovery-codes mono" aria-labelledby="recovery-heading">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ol>
      <p>
        Each works once instead of a code, if you lose your phone. Shown only this once: store them now,
        somewhere other than the phone. The hub keeps no readable copy.
      </p>
      <p class="button-row">
        <button type="button" class="secondary" onClick={copy}>
          {copied ? 'Copied' : 'Copy the codes'}
        </button>
        <button type="button" onClick={onDone} disabled={busy}>
          I have stored them
        </button>
      </p>
    </div>
  );
}

/** A QR code as inline SVG: one path of dark modules, with the quiet zone the standard asks for. */
function QrCode({ text, label }: { text: string; label: string }) {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const quiet = 4;
  let d = '';
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      if (modules.get(row, col)) d += `M${col + quiet} ${row + quiet}h1v1h-1z`;
    }
  }
  const total = size + 2 * quiet;
  return (
    <svg
      class="qr"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${total} ${total}`}
      width="200"
      height="200"
      shape-rendering="crispEdges"
    >
      <rect width={total} height={total} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
