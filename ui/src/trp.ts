/**
 * TRP transfers in the dashboard (SPEC §16). The counterparty of a TRP transfer is a VASP outside
 * the hub, not a directory organization: the hub names it `did:web:<its host>` in the
 * transaction's DIDs, and a transaction's own page has more (`trp.peer`: its name and LEI from its
 * /identity, the certificate it sent an inquiry with). A member is always the originator of an
 * outbound transfer and the beneficiary of an inbound one, so a list's side tells the direction.
 */
import type { Role, Transaction } from './api.js';

export type TrpInfo = NonNullable<Transaction['trp']>;
export type TrpPeer = TrpInfo['peer'];
export type Direction = TrpInfo['direction'];

/** `did:web:127.0.0.1%3A8443` → `127.0.0.1:8443`: the host a did:web names; null for other DIDs. */
export function didWebHost(did: string | null | undefined): string | null {
  const m = /^did:web:([^:]+)/.exec(did ?? '');
  if (!m?.[1]) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

/** The caller's side of a TRP transfer gives its direction. */
export const directionOf = (role: Role): Direction => (role === 'originator' ? 'outbound' : 'inbound');

/** `TRP (inbound)` for a TRP transfer seen from `role`'s side; other protocols as they are. */
export function protocolLabel(protocol: string, role: Role): string {
  return protocol === 'TRP' ? `TRP (${directionOf(role)})` : protocol;
}

/** The DID the hub gave the TRP peer in this transaction: the side the member is not on. */
export function peerDid(tx: Transaction): string | null {
  if (!tx.trp) return null;
  return tx.trp.direction === 'inbound' ? tx.originatorVASPdid : tx.beneficiaryVASPdid;
}

/** How the peer is named in a sentence: its name from /identity once read, else its host. */
export const peerName = (peer: TrpPeer) => peer.name ?? peer.host;

/** An inbound TRP transfer to the caller: the one the member approves or declines. */
export const isInboundTrp = (tx: Transaction, role: Role) =>
  tx.protocol === 'TRP' && role === 'beneficiary' && tx.trp?.direction !== 'outbound';
