/**
 * The other party of a transaction, wherever a view names it: an organization of the directory
 * (by name beside its DID), or, for a TRP transfer, the TRP VASP outside the hub (by its name once
 * the hub read its /identity, and always by its host). Lists have only the DIDs, so a TRP row
 * shows the host its did:web names.
 */
import type { ComponentChild } from 'preact';
import type { Role, TransactionSummary } from '../api.js';
import { OrgName } from '../directory.js';
import { didWebHost, type TrpPeer } from '../trp.js';

/** Marks a party as a TRP VASP, not a member of the hub. */
const TrpTag = () => <span class="tag tag-trp">TRP peer</span>;

/** A list row's counterparty: the originator in the inbox, the beneficiary in the outbox. */
export function Counterparty({
  t,
  side,
  names,
  fallback,
}: {
  t: TransactionSummary;
  /** The caller's side. */
  side: Role;
  names: Map<string, string>;
  /** When there is no counterparty DID (a NOTIFY transfer nobody claimed). */
  fallback: ComponentChild;
}) {
  const did = side === 'beneficiary' ? t.originatorVASPdid : t.beneficiaryVASPdid;
  if (t.protocol === 'TRP') {
    return (
      <span>
        <span class="mono break">{didWebHost(did) ?? did ?? 'unknown host'}</span>
        <TrpTag />
      </span>
    );
  }
  return did ? <OrgName did={did} names={names} /> : fallback;
}

/** A TRP peer on a transaction's page: its name (when known) over its host. */
export function PeerName({ peer }: { peer: TrpPeer }) {
  return peer.name ? (
    <span>
      {peer.name}
      <TrpTag /> <span class="did">{peer.host}</span>
    </span>
  ) : (
    <span>
      <span class="mono break">{peer.host}</span>
      <TrpTag />
    </span>
  );
}
