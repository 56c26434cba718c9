/** Names of organizations by DID, to show "Exchange A" beside a DID. Loaded once per session. */
import { useEffect, useState } from 'preact/hooks';
import { type HubClient, unwrap } from './api.js';
import { useSession } from './session.js';

const cache = new WeakMap<HubClient, Promise<Map<string, string>>>();

function load(client: HubClient): Promise<Map<string, string>> {
  let names = cache.get(client);
  if (!names) {
    names = unwrap(client.GET('/v1/organizations'))
      .then((r) => new Map(r.organizations.map((o) => [o.vaspDid, o.name])))
      .catch(() => new Map());
    cache.set(client, names);
  }
  return names;
}

export function useOrgNames(): Map<string, string> {
  const session = useSession();
  const [names, setNames] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    if (session.kind !== 'org') return;
    let live = true;
    load(session.client).then((n) => live && setNames(n));
    return () => {
      live = false;
    };
  }, [session]);
  return names;
}

export function OrgName({ did, names }: { did: string | null; names: Map<string, string> }) {
  if (!did) return <span class="muted">outside the directory</span>;
  const name = names.get(did);
  return name ? (
    <span>
      {name} <span class="did">{did}</span>
    </span>
  ) : (
    <span class="did">{did}</span>
  );
}
