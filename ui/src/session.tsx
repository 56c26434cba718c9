/**
 * Who is signed in: a person (SPEC §17) or an API key.
 *
 * A person signs in with e-mail, password and (when on) a second factor; the hub sets its HttpOnly
 * session cookie and answers the session's CSRF token. A new tab finds the same session with the
 * cookie alone (GET /v1/sessions/current answers the token again), so nothing about it is stored
 * in the page. The person's role (viewer, analyst, admin; operator viewer or admin) decides what
 * the views offer. A person whose organization requires a second factor and who has none gets
 * only the enrolment (`enrol`): the hub refuses everything else until then.
 *
 * An API key (the first admin, automation) still signs in: an operator key (the bootstrap
 * HUB_ADMIN_KEY or a named operator's `trh_op_…` key) answers GET /v1/admin/stats with 200
 * (organization keys get 403 there); an organization key answers GET /v1/organizations/me, and its
 * scope (SPEC §13) comes from the key list's `current` entry.
 *
 * A 401 on any later call (key revoked, session ended, timed out, person removed) ends the
 * session. Views ask `useMay()` before offering what the session may not do: the hub refuses those
 * with 403 anyway, so offering them would only fail.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ROLE_PERMISSIONS } from '../../src/people/roles.js';
import {
  type CurrentSession,
  clientFor,
  type HubClient,
  HubProblem,
  type KeyScope,
  type Organization,
  type Person,
  publicClient,
  sessionClient,
  unwrap,
} from './api.js';

/** A named operator, or null for the bootstrap key (HUB_ADMIN_KEY), which has no entry. */
export interface OperatorIdentity {
  id: string;
  name: string;
}

/** `person`: the signed-in person, or null when an API key signed in. */
export type Session =
  | { kind: 'operator'; client: HubClient; operator: OperatorIdentity | null; person: Person | null }
  | { kind: 'org'; client: HubClient; me: Organization; scope: KeyScope | null; person: Person | null }
  /** A person who must enrol a second factor before anything else (the organization requires it). */
  | { kind: 'enrol'; client: HubClient; person: Person };

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('no session');
  return session;
}

export function useOrg(): Extract<Session, { kind: 'org' }> {
  const session = useSession();
  if (session.kind !== 'org') throw new Error('an organization view needs an organization key');
  return session;
}

export function useOperator(): Extract<Session, { kind: 'operator' }> {
  const session = useSession();
  if (session.kind !== 'operator') throw new Error('an operator view needs an operator key');
  return session;
}

/** What a view may offer: personal data, transaction actions and other changes, administration. */
export type May = 'pii' | 'act' | 'admin';

/**
 * Whether this session may do `what`, as the hub decides it (src/people/roles.ts for people):
 * - a person by role: organization users per the roles table; operator users change things only
 *   as `admin`;
 * - an organization key by scope: both read personal data, only `full` changes anything;
 * - an operator key: everything on /v1/admin.
 */
export function may(session: Session, what: May): boolean {
  if (session.kind === 'enrol') return false;
  const person = session.person;
  if (person) {
    if (session.kind === 'operator') return person.role === 'admin';
    return ROLE_PERMISSIONS[person.role].includes(what);
  }
  if (session.kind === 'operator') return true;
  return what === 'pii' || session.scope === 'full';
}

export function useMay(what: May): boolean {
  return may(useSession(), what);
}

/**
 * Whether the session may open a page that needs `what` to read (settings, people): a key may
 * look at everything its organization's (a read key sees settings without controls), a person
 * only what the role may do, since the hub refuses even the reads.
 */
export function mayOpen(session: Session, what: May): boolean {
  if (session.kind === 'enrol') return false;
  return session.person === null || may(session, what);
}

/** How the header names the session's kind of access: the person's role, or a key's. */
export function accessLabel(session: Session): string {
  if (session.kind === 'enrol') return 'second factor needed';
  if (session.person) {
    return session.kind === 'operator' ? `operator ${session.person.role}` : session.person.role;
  }
  if (session.kind === 'operator') return 'operator key';
  return session.scope === 'read' ? 'read-only key' : 'API key';
}

const whenUnauthorized = (client: HubClient, onUnauthorized: () => void) =>
  client.use({
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return response;
    },
  });

export async function signInWithKey(apiKey: string, onUnauthorized: () => void): Promise<Session> {
  const client = clientFor(apiKey);
  const stats = await client.GET('/v1/admin/stats');
  if (stats.response.status === 401) {
    throw new Error('The hub does not accept this key: it is unknown or has been revoked.');
  }
  let session: Session;
  try {
    if (stats.response.ok) {
      session = { kind: 'operator', client, operator: await whichOperator(client), person: null };
    } else {
      const [me, keys] = await Promise.all([
        unwrap(client.GET('/v1/organizations/me')),
        unwrap(client.GET('/v1/organizations/me/api-keys')),
      ]);
      // Unknown (it cannot be, the list holds the calling key) counts as the lesser scope.
      const scope = keys.apiKeys.find((k) => k.current)?.scope ?? 'read';
      session = { kind: 'org', client, me, scope, person: null };
    }
  } catch (err) {
    if (err instanceof HubProblem) throw new Error(err.problem.detail);
    throw err;
  }
  whenUnauthorized(client, onUnauthorized);
  return session;
}

/** Signs a person in: the hub sets the cookie and answers the CSRF token. */
export async function signInAsPerson(
  credentials: { email: string; password: string; totp?: string },
  onUnauthorized: () => void,
): Promise<Session> {
  const answer = await unwrap(publicClient().POST('/v1/sessions', { body: credentials }));
  return personSession(answer, onUnauthorized);
}

/**
 * The session this browser's cookie holds, if any (a new tab, a reload): null when there is no
 * cookie or the hub ended its session.
 */
export async function currentSession(onUnauthorized: () => void): Promise<Session | null> {
  const current = await publicClient().GET('/v1/sessions/current');
  if (current.response.status === 401 || current.response.status === 403) return null;
  return personSession(await unwrap(Promise.resolve(current)), onUnauthorized);
}

async function personSession(answer: CurrentSession, onUnauthorized: () => void): Promise<Session> {
  const client = sessionClient(answer.csrfToken);
  const person = answer.user;
  let session: Session;
  if (answer.totpRequired) session = { kind: 'enrol', client, person };
  else if (person.organizationId === null) session = { kind: 'operator', client, operator: null, person };
  else {
    const me = await unwrap(client.GET('/v1/organizations/me'));
    session = { kind: 'org', client, me, scope: null, person };
  }
  whenUnauthorized(client, onUnauthorized);
  return session;
}

/** Ends a person's session at the hub (the cookie is cleared); a key's needs nothing there. */
export async function signOutAtHub(session: Session): Promise<void> {
  if (session.person === null && session.kind !== 'enrol') return;
  try {
    await session.client.DELETE('/v1/sessions/current');
  } catch {
    // The hub is unreachable: the page forgets the session anyway; the hub ends it when idle.
  }
}

/**
 * The named operator holding this key: the list's `current` entry. Null for the bootstrap key
 * (HUB_ADMIN_KEY), which is not listed.
 */
async function whichOperator(client: HubClient): Promise<OperatorIdentity | null> {
  const { operators } = await unwrap(client.GET('/v1/admin/operators'));
  const mine = operators.find((o) => o.current);
  return mine ? { id: mine.id, name: mine.name } : null;
}

/** Replaces the organization's directory entry after the organization changed it (settings). */
export const UpdateMeContext = createContext<(me: Organization) => void>(() => {});
export const useUpdateMe = () => useContext(UpdateMeContext);

/** Replaces the signed-in person after they changed their account (a second factor enrolled). */
export const RefreshSessionContext = createContext<() => Promise<void>>(async () => {});
export const useRefreshSession = () => useContext(RefreshSessionContext);

/** Short messages for the page's polite live region ("Confirmed.", "3 new transactions"). */
export const AnnounceContext = createContext<(message: string) => void>(() => {});
export const useAnnounce = () => useContext(AnnounceContext);
