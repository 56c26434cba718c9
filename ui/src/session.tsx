/**
 * Who is signed in. An operator key (the bootstrap HUB_ADMIN_KEY or a named operator's
 * `trh_op_…` key) answers GET /v1/admin/stats with 200 (organization keys get 403 there, since
 * operator keys open only /v1/admin); an organization key answers GET /v1/organizations/me.
 * A 401 on any later call (key revoked) ends the session.
 *
 * An organization key has a scope (SPEC §13): `read` keys may only GET. The session knows it
 * from the key list's `current` entry, and views ask `useCanWrite()` before offering anything
 * that is not a GET: the hub refuses those with 403 anyway, so offering them would only fail.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { clientFor, type HubClient, HubProblem, type KeyScope, type Organization, unwrap } from './api.js';

/** A named operator, or null for the bootstrap key (HUB_ADMIN_KEY), which has no entry. */
export interface OperatorIdentity {
  id: string;
  name: string;
}

export type Session =
  | { kind: 'operator'; client: HubClient; operator: OperatorIdentity | null }
  | { kind: 'org'; client: HubClient; me: Organization; scope: KeyScope };

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

/** Whether this session may change anything: operators and `full` keys may, `read` keys only look. */
export function useCanWrite(): boolean {
  const session = useSession();
  return session.kind === 'operator' || session.scope === 'full';
}

export async function signIn(apiKey: string, onUnauthorized: () => void): Promise<Session> {
  const client = clientFor(apiKey);
  const stats = await client.GET('/v1/admin/stats');
  if (stats.response.status === 401) {
    throw new Error('The hub does not accept this key: it is unknown or has been revoked.');
  }
  let session: Session;
  try {
    if (stats.response.ok) {
      session = { kind: 'operator', client, operator: await whichOperator(client) };
    } else {
      const [me, keys] = await Promise.all([
        unwrap(client.GET('/v1/organizations/me')),
        unwrap(client.GET('/v1/organizations/me/api-keys')),
      ]);
      // Unknown (it cannot be, the list holds the calling key) counts as the lesser scope.
      const scope = keys.apiKeys.find((k) => k.current)?.scope ?? 'read';
      session = { kind: 'org', client, me, scope };
    }
  } catch (err) {
    if (err instanceof HubProblem) throw new Error(err.problem.detail);
    throw err;
  }
  client.use({
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return response;
    },
  });
  return session;
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

/** Short messages for the page's polite live region ("Confirmed.", "3 new transactions"). */
export const AnnounceContext = createContext<(message: string) => void>(() => {});
export const useAnnounce = () => useContext(AnnounceContext);
