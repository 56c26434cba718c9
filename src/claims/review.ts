/**
 * What the operator's review shows about the address a claim link went to (SPEC §12 amended).
 * The originator of the NOTIFY transfer chose that address, so an applicant who reads its inbox
 * proved only that: the review says who chose it, and whether its domain is the applicant DID's,
 * the applicant contact's, or the originator's own. Domains compare by registrable domain (the
 * public suffix list, private suffixes included, so `a.github.io` and `b.github.io` differ), so
 * `ops.vasp.example` and `mail.vasp.example` are one domain. Pure.
 */
import { getDomain } from 'tldts';

export interface ClaimAddressReview {
  /** The address the claim link went to. */
  address: string;
  /** Who chose it: the originator of the NOTIFY transfer (null if it left the directory). */
  chosenBy: { organizationId: string; name: string; vaspDid: string } | null;
  /** The address's registrable domain. */
  domain: string;
  /** Its domain is the applicant DID's (null: the DID names no domain, e.g. not `did:web`). */
  matchesDid: boolean | null;
  /** Its domain is the applicant's contact address's. */
  matchesContact: boolean;
  /** Its domain is the originator's own (its DID's or its contact address's). */
  originatorDomain: boolean;
}

/** A host's registrable domain, or the host itself when it has none (localhost, an IP address). */
export function registrableDomain(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, '');
  return getDomain(h, { allowPrivateDomains: true }) ?? h;
}

/** The domain of an e-mail address (after its last `@`). */
export function emailDomain(address: string): string {
  return registrableDomain(address.slice(address.lastIndexOf('@') + 1));
}

/** The domain a DID names: `did:web`'s host (percent-decoded, without port); null for other methods. */
export function didDomain(did: string): string | null {
  const m = /^did:web:([^:]+)/.exec(did);
  if (!m) return null;
  let host: string;
  try {
    host = decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
  return registrableDomain(host.replace(/:\d+$/, ''));
}

export function reviewClaimAddress(input: {
  address: string;
  applicant: { vaspDid: string; contactEmail: string };
  originator: { organizationId: string; name: string; vaspDid: string; contactEmail: string | null } | null;
}): ClaimAddressReview {
  const domain = emailDomain(input.address);
  const did = didDomain(input.applicant.vaspDid);
  const o = input.originator;
  const originatorDomains = o
    ? [didDomain(o.vaspDid), o.contactEmail === null ? null : emailDomain(o.contactEmail)]
    : [];
  return {
    address: input.address,
    chosenBy: o && { organizationId: o.organizationId, name: o.name, vaspDid: o.vaspDid },
    domain,
    matchesDid: did === null ? null : did === domain,
    matchesContact: emailDomain(input.applicant.contactEmail) === domain,
    originatorDomain: originatorDomains.includes(domain),
  };
}
