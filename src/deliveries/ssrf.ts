// SSRF guard for webhook targets (SPEC §8): unless HUB_ALLOW_PRIVATE_ENDPOINTS, the hub only talks to
// https URLs whose host resolves to public unicast addresses, checked at every attempt.
//
// Invariants:
// - Only http(s), never credentials in the URL, whatever the mode.
// - Every resolved address must be public; one private address among public ones refuses the target,
//   since the client may connect to any of them.
// - IPv4 forms hidden in IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by
//   the IPv4 address they carry; IPv4-compatible (::a.b.c.d) and Teredo are refused outright. IPv6 outside
//   global unicast 2000::/3 is refused whatever it is, so new special ranges fail closed.
// - Checking a name and then letting the HTTP client resolve it again leaves a DNS-rebinding window; the
//   worker closes it by connecting only to the checked `addresses`, or by resolving through guardedLookup.

import {
  lookup as dnsLookup,
  promises as dnsPromises,
  type LookupAddress,
  type LookupOptions,
} from 'node:dns';
import { isIPv4, isIPv6 } from 'node:net';

type Range = { bytes: Uint8Array; prefix: number; label: string };

function parseIPv4(text: string): Uint8Array | null {
  if (!isIPv4(text)) return null;
  return Uint8Array.from(text.split('.').map(Number));
}

function parseIPv6(text: string): Uint8Array | null {
  const zone = text.indexOf('%');
  let s = zone >= 0 ? text.slice(0, zone) : text;
  if (!isIPv6(s)) return null;
  let v4: Uint8Array | null = null;
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.', lastColon)) {
    v4 = parseIPv4(s.slice(lastColon + 1));
    if (!v4) return null;
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) =>
    part ? part.split(':').map((g) => Number.parseInt(g, 16)) : [];
  const front = groups(head);
  const back = groups(tail);
  const words =
    tail === undefined ? front : [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  if (v4) bytes.set(v4, 12);
  return bytes;
}

function range(cidr: string, label: string): Range {
  const [address, prefix] = cidr.split('/') as [string, string];
  const bytes = parseIPv4(address) ?? parseIPv6(address);
  if (!bytes) throw new Error(`bad CIDR ${cidr}`);
  return { bytes, prefix: Number(prefix), label };
}

function inRange(bytes: Uint8Array, r: Range): boolean {
  if (bytes.length !== r.bytes.length) return false;
  const full = r.prefix >> 3;
  for (let i = 0; i < full; i++) if (bytes[i] !== r.bytes[i]) return false;
  const rest = r.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[full]! & mask) === (r.bytes[full]! & mask);
}

// First match wins, so the narrow, more telling labels come before the ranges that contain them.
const IPV4_BLOCKED: Range[] = [
  range('169.254.169.254/32', 'cloud metadata'),
  range('169.254.170.2/32', 'cloud metadata'),
  range('100.100.100.200/32', 'cloud metadata'),
  range('0.0.0.0/8', 'unspecified'),
  range('127.0.0.0/8', 'loopback'),
  range('10.0.0.0/8', 'private'),
  range('172.16.0.0/12', 'private'),
  range('192.168.0.0/16', 'private'),
  range('100.64.0.0/10', 'shared address space (CGNAT)'),
  range('169.254.0.0/16', 'link-local'),
  range('192.0.0.0/24', 'IETF protocol assignment'),
  range('192.0.2.0/24', 'documentation'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('198.18.0.0/15', 'benchmarking'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

const IPV6_BLOCKED: Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('fd00:ec2::254/128', 'cloud metadata'),
  range('::/96', 'IPv4-compatible IPv6'),
  range('64:ff9b:1::/48', 'local-use NAT64'),
  range('100::/64', 'discard-only'),
  range('2001:db8::/32', 'documentation'),
  range('2001::/23', 'IETF protocol assignment (Teredo, benchmarking, ORCHID)'),
  range('3fff::/20', 'documentation'),
  range('fc00::/7', 'private (unique local)'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local'),
  range('ff00::/8', 'multicast'),
];

// IPv6 prefixes that carry an IPv4 address, and where it sits.
const IPV4_CARRIERS: Array<{ range: Range; at: number; via: string }> = [
  { range: range('::ffff:0:0/96', ''), at: 12, via: 'IPv4-mapped IPv6' },
  { range: range('64:ff9b::/96', ''), at: 12, via: 'NAT64' },
  { range: range('2002::/16', ''), at: 2, via: '6to4' },
];
const GLOBAL_UNICAST = range('2000::/3', '');

function classifyIPv4(bytes: Uint8Array): string | null {
  return IPV4_BLOCKED.find((r) => inRange(bytes, r))?.label ?? null;
}

/**
 * Why an IP address is not an acceptable webhook target (e.g. 'loopback', 'private'), or null when it is
 * public. Anything that is not an IP address is refused too.
 */
export function classifyAddress(address: string): string | null {
  const v4 = parseIPv4(address);
  if (v4) return classifyIPv4(v4);
  const v6 = parseIPv6(address);
  if (!v6) return 'not an IP address';
  for (const carrier of IPV4_CARRIERS) {
    if (inRange(v6, carrier.range)) {
      const label = classifyIPv4(v6.subarray(carrier.at, carrier.at + 4));
      return label === null ? null : `${label} via ${carrier.via}`;
    }
  }
  const blocked = IPV6_BLOCKED.find((r) => inRange(v6, r));
  if (blocked) return blocked.label;
  return inRange(v6, GLOBAL_UNICAST) ? null : 'reserved';
}

function hostOf(url: URL): string {
  // WHATWG URL keeps IPv6 literals in brackets and has already normalised IPv4 shorthands (127.1, 0x7f…).
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function isIpLiteral(host: string): boolean {
  return isIPv4(host) || isIPv6(host);
}

// Checks shared by the save-time and the send-time guards; null when fine.
function urlProblem(url: URL, allowPrivate: boolean): string | null {
  if (url.protocol !== 'https:' && (url.protocol !== 'http:' || !allowPrivate)) {
    return allowPrivate ? 'URL must use http or https' : 'URL must use https';
  }
  if (url.username !== '' || url.password !== '') return 'URL must not contain credentials';
  if (url.hostname === '') return 'URL must name a host';
  return null;
}

export type TargetCheck = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

const defaultLookup = async (host: string): Promise<string[]> =>
  (await dnsPromises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** How long the send-time check waits for a name to resolve (see checkWebhookTarget). */
export const LOOKUP_TIMEOUT_MS = 5_000;

class LookupTimeout extends Error {}

/** `lookup(host)`, or a LookupTimeout after `ms`. */
function lookupWithin(
  lookup: (host: string) => Promise<string[]>,
  host: string,
  ms: number,
): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new LookupTimeout()), ms);
  });
  return Promise.race([lookup(host), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Checks a delivery URL right before an attempt. With allowPrivate, nothing is resolved and `addresses` is
 * empty (or the literal IP): connect as usual. Otherwise `addresses` are the vetted addresses; connect to
 * one of them (keeping the hostname for TLS SNI and Host) so a second DNS answer cannot differ.
 * A name that does not resolve within `lookupTimeoutMs` (default 5 s) is refused for this attempt: a
 * nameserver that never answers must not hold the message past its lease.
 */
export async function checkWebhookTarget(
  url: string,
  opts: { allowPrivate: boolean; lookup?: (host: string) => Promise<string[]>; lookupTimeoutMs?: number },
): Promise<TargetCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  const problem = urlProblem(parsed, opts.allowPrivate);
  if (problem) return { ok: false, reason: problem };
  const host = hostOf(parsed);
  if (opts.allowPrivate) return { ok: true, url: parsed, addresses: isIpLiteral(host) ? [host] : [] };

  let addresses: string[];
  if (isIpLiteral(host)) {
    addresses = [host];
  } else {
    const ms = opts.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS;
    try {
      addresses = await lookupWithin(opts.lookup ?? defaultLookup, host, ms);
    } catch (err) {
      if (err instanceof LookupTimeout)
        return { ok: false, reason: `could not resolve ${host} within ${ms / 1000} s` };
      const code = (err as NodeJS.ErrnoException | undefined)?.code;
      return { ok: false, reason: `could not resolve ${host}${code ? ` (${code})` : ''}` };
    }
    if (addresses.length === 0) return { ok: false, reason: `${host} did not resolve to any address` };
  }
  for (const address of addresses) {
    const label = classifyAddress(address);
    if (label !== null) return { ok: false, reason: refusedAddress(host, address, label) };
  }
  return { ok: true, url: parsed, addresses };
}

/**
 * Why a target was refused. The reason reaches the organization (test-event answers, lastError),
 * so the address a name resolved to stays out of it: the hub's resolver would otherwise tell an
 * organization what internal names resolve to. An IP literal is the organization's own input.
 */
function refusedAddress(host: string, address: string, label: string): string {
  return isIpLiteral(host)
    ? `${host} resolves to a non-public address (${address}: ${label})`
    : `${host} resolves to a non-public address (${label})`;
}

export const MAX_ENDPOINT_URL_LENGTH = 2048;

/**
 * Save-time check of an org's `travelEndpoint` (no DNS: the name may legitimately not resolve yet, and
 * the send-time check runs anyway). Returns an error message, or null when the URL is acceptable.
 */
export function validateEndpointUrl(url: string, allowPrivate: boolean): string | null {
  if (typeof url !== 'string' || url === '') return 'travelEndpoint must be an absolute http(s) URL';
  if (url.length > MAX_ENDPOINT_URL_LENGTH) {
    return `travelEndpoint must be at most ${MAX_ENDPOINT_URL_LENGTH} characters`;
  }
  // The URL parser strips surrounding whitespace and control characters; we store what was sent, so
  // refuse it rather than keep a value that only parses by accident.
  if (/[\s\p{Cc}]/u.test(url)) {
    return 'travelEndpoint must not contain whitespace or control characters';
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'travelEndpoint must be an absolute http(s) URL';
  }
  const problem = urlProblem(parsed, allowPrivate);
  if (problem) return `travelEndpoint ${problem.replace(/^URL /, '')}`;
  if (url.includes('?') || url.includes('#')) return 'travelEndpoint must not have a query or fragment';
  const target = targetProblem(parsed, allowPrivate);
  return target === null ? null : `travelEndpoint ${target}`;
}

/**
 * The check without DNS of any URL the hub will send to (a TRP peer's inquiry URL or callback):
 * https (http too when private targets are allowed), and unless they are, neither localhost nor an
 * IP literal that is not public. Returns a message such as "must use https", or null.
 */
export function targetProblem(url: URL, allowPrivate: boolean): string | null {
  const problem = urlProblem(url, allowPrivate);
  if (problem) return problem.replace(/^URL /, '');
  if (allowPrivate) return null;
  const host = hostOf(url);
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name === 'localhost' || name.endsWith('.localhost')) return 'must not point at localhost';
  if (isIpLiteral(host)) {
    const label = classifyAddress(host);
    if (label !== null) return `must not point at a non-public address (${label})`;
  }
  return null;
}

/**
 * A `lookup` for net/tls connect options (e.g. undici `new Agent({ connect: { lookup: guardedLookup } })`)
 * that fails the connection when any address of the name is not public. Resolution and check happen in
 * the same step as the connect, so there is no rebinding window.
 */
export function guardedLookup(
  hostname: string,
  options: LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const bad = addresses.find((a) => classifyAddress(a.address) !== null);
    if (bad || addresses.length === 0) {
      const refusal: NodeJS.ErrnoException = new Error(
        bad
          ? refusedAddress(hostname, bad.address, classifyAddress(bad.address)!)
          : `${hostname} did not resolve to any address`,
      );
      refusal.code = 'ERR_SSRF_BLOCKED';
      return callback(refusal, '');
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}
