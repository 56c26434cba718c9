/**
 * The claim page's two ways in (SPEC §12): the join application and the attach form for an
 * existing member. Each reports a link the hub no longer accepts through `onInvalid`.
 * A member's person already signed in to the dashboard in this browser (the session cookie is
 * this origin's) claims with that session, as themselves in the audit, instead of typing a key.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ROLE_PERMISSIONS } from '../../../src/people/roles.js';
import {
  type ApplicationAccepted,
  type AttachResult,
  clientFor,
  describeError,
  fieldErrors,
  type HubClient,
  HubProblem,
  type Person,
  publicClient,
  sessionClient,
  unwrap,
} from '../api.js';
import { Field, FormError, textBinder } from '../components/forms.js';
import { useAction } from '../hooks.js';
import { useAnnounce } from '../session.js';

export const isNotFound = (err: unknown) => err instanceof HubProblem && err.status === 404;

const EMPTY = { name: '', vaspDid: '', contactEmail: '', travelEndpoint: '', publicKey: '' };
type JoinFields = typeof EMPTY;
const FIELD_ORDER: (keyof JoinFields)[] = ['name', 'vaspDid', 'contactEmail', 'travelEndpoint', 'publicKey'];

export function JoinForm({
  token,
  onApplied,
  onInvalid,
}: {
  token: string;
  onApplied: (accepted: ApplicationAccepted, contactEmail: string) => void;
  onInvalid: () => void;
}) {
  const announce = useAnnounce();
  const [form, setForm] = useState(EMPTY);
  const [member, setMember] = useState(false);
  const { busy, error, run } = useAction();
  const problems = fieldErrors(error);
  const text = textBinder(form, setForm);

  const submit = (e: Event) => {
    e.preventDefault();
    setMember(false);
    run(async () => {
      const optional = (v: string) => (v.trim() ? v.trim() : undefined);
      const body = {
        name: form.name.trim(),
        vaspDid: form.vaspDid.trim(),
        contactEmail: form.contactEmail.trim(),
        ...(optional(form.travelEndpoint) ? { travelEndpoint: optional(form.travelEndpoint) } : {}),
        ...(optional(form.publicKey) ? { publicKey: optional(form.publicKey) } : {}),
      };
      try {
        const accepted = await unwrap(
          publicClient().POST('/v1/claims/{token}/application', { params: { path: { token } }, body }),
        );
        announce('Application sent.');
        onApplied(accepted, body.contactEmail);
      } catch (err) {
        if (isNotFound(err)) return onInvalid();
        if (err instanceof HubProblem && err.status === 409) setMember(true);
        // Keyboard and screen-reader users land on the first field the hub found fault with.
        const bad = FIELD_ORDER.find((f) => fieldErrors(err)[f]);
        if (bad) window.setTimeout(() => document.getElementById(`join-${bad}`)?.focus(), 0);
        throw err;
      }
    });
  };

  const count = Object.keys(problems).length;
  return (
    <section class="panel way" aria-labelledby="join-heading">
      <h2 id="join-heading" tabIndex={-1}>
        Join the hub
      </h2>
      <p class="small">
        Apply for your exchange. The hub’s operator reviews the application; once approved, your exchange is a
        member and this transfer comes to it.
      </p>
      <form onSubmit={submit} noValidate>
        <Field id="join-name" label="Name of your exchange" error={problems.name}>
          {(aria) => (
            <input {...aria} {...text('name')} required maxLength={200} autocomplete="organization" />
          )}
        </Field>
        <Field
          id="join-vaspDid"
          label="DID"
          hint="Your exchange’s decentralized identifier, e.g. did:web:your-exchange.example."
          error={problems.vaspDid}
        >
          {(aria) => (
            <input
              {...aria}
              {...text('vaspDid')}
              required
              class="mono"
              spellcheck={false}
              autocapitalize="off"
              autocomplete="off"
            />
          )}
        </Field>
        <Field
          id="join-contactEmail"
          label="Contact e-mail"
          hint="The operator’s answer and, once approved, the link to your credentials go here."
          error={problems.contactEmail}
        >
          {(aria) => (
            <input
              {...aria}
              {...text('contactEmail')}
              type="email"
              required
              autocomplete="email"
              spellcheck={false}
            />
          )}
        </Field>
        <Field
          id="join-travelEndpoint"
          label="Travel endpoint (optional)"
          hint="The HTTPS address where the hub posts signed webhooks to your exchange. You can set it later."
          error={problems.travelEndpoint}
        >
          {(aria) => (
            <input
              {...aria}
              {...text('travelEndpoint')}
              type="url"
              class="mono"
              spellcheck={false}
              autocapitalize="off"
              placeholder="https://"
            />
          )}
        </Field>
        <Field
          id="join-publicKey"
          label="Public key, PEM (optional)"
          hint="X25519, P-256 or RSA, for transfers that carry the personal data encrypted to you. You can add it later."
          error={problems.publicKey}
        >
          {(aria) => <textarea {...aria} {...text('publicKey')} rows={3} class="mono" spellcheck={false} />}
        </Field>
        {count > 0 ? (
          <p role="alert" class="note note-error">
            The hub could not accept the application:{' '}
            {count === 1 ? 'one field needs' : `${count} fields need`} attention.
          </p>
        ) : (
          <FormError error={error} />
        )}
        {member ? (
          <p class="note note-info">
            An organization with this DID is already a member of the hub:{' '}
            <a href="#member-heading">claim the transfer with its API key</a> instead.
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Sending…' : 'Send application'}
        </button>
      </form>
    </section>
  );
}

/** The dashboard session of this browser, when a member's person is signed in (and may use it). */
interface MemberSession {
  client: HubClient;
  person: Person;
  organizationName: string;
}

async function memberSession(): Promise<MemberSession | null> {
  const current = await publicClient().GET('/v1/sessions/current');
  const answer = current.data;
  if (!current.response.ok || !answer || answer.totpRequired || answer.user.organizationId === null)
    return null;
  const client = sessionClient(answer.csrfToken);
  const me = await client.GET('/v1/organizations/me');
  return me.data ? { client, person: answer.user, organizationName: me.data.name } : null;
}

export function AttachForm({
  token,
  onAttached,
  onInvalid,
}: {
  token: string;
  onAttached: (result: AttachResult) => void;
  onInvalid: () => void;
}) {
  const announce = useAnnounce();
  const [key, setKey] = useState('');
  const [problem, setProblemText] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const { busy, run } = useAction();
  const [member, setMember] = useState<MemberSession | null>(null);
  const [sessionProblem, setSessionProblem] = useState<string | null>(null);
  useEffect(() => {
    memberSession().then(setMember, () => setMember(null));
  }, []);
  /** A problem with the key is said at the field, which takes the focus so it is heard. */
  const setProblem = (text: string | null) => {
    setProblemText(text);
    if (text) window.setTimeout(() => input.current?.focus(), 0);
  };

  const attachWith = (client: HubClient, byKey: boolean) => {
    const report = byKey ? setProblem : setSessionProblem;
    report(null);
    return run(async () => {
      try {
        const result = await unwrap(
          client.POST('/v1/claims/{token}/attach', { params: { path: { token } } }),
        );
        if (byKey) setKey('');
        announce('The transfer is yours.');
        onAttached(result);
      } catch (err) {
        if (err instanceof HubProblem && err.status === 401) {
          report(
            byKey
              ? 'The hub does not accept this key: it is unknown or has been revoked.'
              : 'Your dashboard session has ended: sign in again, or use an API key.',
          );
        } else if (err instanceof HubProblem && err.status === 403) {
          report(
            byKey
              ? `The hub refused this key: ${describeError(err)} Use a full-scope key of your organization.`
              : `The hub refused: ${describeError(err)}`,
          );
        } else if (isNotFound(err)) {
          // Either the link is no longer valid, or this organization may not have the transfer
          // (its originator, or not the member the transfer named): the link tells which.
          const still = await publicClient().GET('/v1/claims/{token}', { params: { path: { token } } });
          if (still.response.status === 404) return onInvalid();
          report(
            `The hub does not attach this transfer to ${byKey ? 'the organization of this key' : 'your organization'}.`,
          );
        } else {
          report(describeError(err));
        }
      }
    });
  };

  const submit = (e: Event) => {
    e.preventDefault();
    setProblem(null);
    if (!key.trim()) {
      setProblem('Enter your organization’s API key.');
      return;
    }
    // The key goes in this one request's header and is not kept anywhere.
    attachWith(clientFor(key.trim()), true);
  };

  const mayAttach = member ? ROLE_PERMISSIONS[member.person.role].includes('act') : false;

  return (
    <section class="panel way" aria-labelledby="member-heading">
      <h2 id="member-heading" tabIndex={-1}>
        Already a member
      </h2>
      {member ? (
        <div class="signed-in-claim">
          <p class="small">
            You are signed in to the dashboard as {member.person.name} of {member.organizationName}.
          </p>
          {mayAttach ? (
            <button type="button" disabled={busy} onClick={() => attachWith(member.client, false)}>
              {busy ? 'Claiming…' : `Claim it for ${member.organizationName}`}
            </button>
          ) : (
            <p class="small muted">
              Your role ({member.person.role}) may not claim transfers: an analyst or admin of your
              organization can, or use an API key below.
            </p>
          )}
          {sessionProblem ? (
            <p class="field-error" role="alert">
              {sessionProblem}
            </p>
          ) : null}
        </div>
      ) : null}
      <p class="small">
        {member
          ? 'Or claim it with an API key of your organization.'
          : 'If your exchange is already in the hub’s directory, claim the transfer with your organization’s API key.'}
      </p>
      <form onSubmit={submit} noValidate autocomplete="off">
        <Field
          id="member-key"
          label="API key"
          hint="A full-scope key (trh_…). It is sent once, to the hub only, and this page keeps no copy."
          error={problem ?? undefined}
        >
          {(aria) => (
            <input
              {...aria}
              ref={input}
              type="password"
              class="mono"
              required
              autocomplete="off"
              spellcheck={false}
              value={key}
              onInput={(e) => setKey(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Claiming…' : 'Claim the transfer'}
        </button>
      </form>
    </section>
  );
}
