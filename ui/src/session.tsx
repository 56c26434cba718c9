/**
 * Who is signed in. The operator key answers GET /v1/admin/stats with 200 (organization keys
 * get 403 there, since the operator key opens only /v1/admin); an organization key answers
 * GET /v1/organizations/me. A 401 on any later call (key revoked) ends the session.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { clientFor, type HubClient, HubProblem, type Organization, unwrap } from './api.js';

export type Session =
  | { kind: 'operator'; client: HubClient }
  | { kind: 'org'; client: HubClient; me: Organization };

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

export async function signIn(apiKey: string, onUnauthorized: () => void): Promise<Session> {
  const client = clientFor(apiKey);
  const stats = await client.GET('/v1/admin/stats');
  if (stats.response.status === 401) {
    throw new Error('The hub does not accept this key: it is unknown or has been revoked.');
  }
  let session: Session;
  if (stats.response.ok) {
    session = { kind: 'operator', client };
  } else {
    try {
      session = { kind: 'org', client, me: await unwrap(client.GET('/v1/organizations/me')) };
    } catch (err) {
      if (err instanceof HubProblem) throw new Error(err.problem.detail);
      throw err;
    }
  }
  client.use({
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return response;
    },
  });
  return session;
}

/** Replaces the organization's directory entry after the organization changed it (settings). */
export const UpdateMeContext = createContext<(me: Organization) => void>(() => {});
export const useUpdateMe = () => useContext(UpdateMeContext);

/** Short messages for the page's polite live region ("Confirmed.", "3 new transactions"). */
export const AnnounceContext = createContext<(message: string) => void>(() => {});
export const useAnnounce = () => useContext(AnnounceContext);
