// Travel addresses (TRP 3.1.0 and later) and LNURLs (older TRP peers): the strings a beneficiary
// VASP hands its customer so that an originator VASP learns where to send the TRP inquiry.
// Invariants:
// - A travel address is "ta" + base58(payload ‖ checksum): payload is the UTF-8 of a URL without
//   its scheme (https is implied) whose query holds `t=i`; checksum is the first 4 bytes of
//   SHA-256(SHA-256(payload)). There is no version byte (unlike Bitcoin's base58check).
// - Encoding keeps the caller's text as it is: it only drops a leading "https://" and appends
//   `t=i` when the query lacks it. The same configured URL therefore always mints the same
//   address, and `beneficiary.com/x/12345?t=i` ⇄ `ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv`.
// - Encoding is strict (printable ASCII only, so the bytes we mint are the bytes peers read);
//   decoding tolerates non-ASCII but never whitespace or control characters, which URL parsers
//   silently drop or rewrite.
// - Decoding returns the WHATWG-normalised https URL: the one an HTTP client sends the inquiry to.
//   It never guesses another scheme.
// - Errors carry a code and say which rule failed, never the input: a travel address names a
//   customer's account.
// - Pure: no I/O.

import { createHash } from 'node:crypto';
import { base58, bech32 } from '@scure/base';

export const TRAVEL_ADDRESS_PREFIX = 'ta';
/** The query parameter that marks a TRP inquiry URL (TRP 3.1.0 "travel address"). */
export const INQUIRY_TAG = { name: 't', value: 'i' } as const;
/** Longest URL (in UTF-8 bytes) we put in, or accept from, a travel address or LNURL. */
export const MAX_URL_BYTES = 2048;
// base58 needs at most ⌈n·log(256)/log(58)⌉ ≈ 1.366·n characters for n bytes; plus the prefix.
const MAX_TRAVEL_ADDRESS_LENGTH = TRAVEL_ADDRESS_PREFIX.length + Math.ceil((MAX_URL_BYTES + 4) * 1.3658) + 1;
// bech32 carries 5 bits a character, plus "lnurl1" and a 6-character checksum.
const MAX_LNURL_LENGTH = 6 + Math.ceil((MAX_URL_BYTES * 8) / 5) + 6;

export type TravelAddressErrorCode =
  | 'prefix' // not "ta…" (or not "lnurl1…")
  | 'length' // empty, too short to hold a checksum, or too long
  | 'encoding' // a character outside the base58 or bech32 alphabet, or bad bech32 padding
  | 'checksum' // the checksum does not match: a typo, or a truncated copy
  | 'payload' // not UTF-8, or holds spaces or control characters (or non-ASCII when encoding)
  | 'scheme' // a scheme inside a travel address, or a scheme other than https
  | 'url' // not a URL with a host, or one with credentials or a fragment
  | 'inquiry-tag'; // no `t=i` in the query, or `t` with another value

export class TravelAddressError extends Error {
  override readonly name = 'TravelAddressError';
  constructor(
    readonly code: TravelAddressErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const HTTPS = /^https:\/\//i;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
// C0 controls, space, DEL, and the C1 controls; a backslash reads as "/" to WHATWG parsers.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0020\u007f-\u009f\\]/;

function checksum(bytes: Uint8Array): Uint8Array {
  const once = createHash('sha256').update(bytes).digest();
  return createHash('sha256').update(once).digest().subarray(0, 4);
}

/**
 * Checks a scheme-less travel address payload and returns the https URL it stands for.
 * `requireTag` is false only while encoding, before `t=i` has been appended.
 */
function payloadUrl(payload: string, requireTag: boolean): URL {
  if (payload.length === 0) throw new TravelAddressError('url', 'the travel address holds an empty URL');
  if (UNSAFE.test(payload)) {
    throw new TravelAddressError('payload', 'the URL must not contain spaces, control characters or "\\"');
  }
  if (SCHEME.test(payload)) {
    throw new TravelAddressError(
      'scheme',
      'a travel address holds its URL without a scheme (https is implied)',
    );
  }
  if (payload.startsWith('/')) throw new TravelAddressError('url', 'the URL must start with a host name');
  let url: URL;
  try {
    url = new URL(`https://${payload}`);
  } catch {
    throw new TravelAddressError('url', 'the travel address does not hold a valid URL');
  }
  if (url.hostname === '') throw new TravelAddressError('url', 'the URL has no host');
  if (url.username !== '' || url.password !== '') {
    throw new TravelAddressError('url', 'the URL must not carry a user name or password');
  }
  if (payload.includes('#')) throw new TravelAddressError('url', 'the URL must not have a fragment');
  const tags = url.searchParams.getAll(INQUIRY_TAG.name);
  if (tags.some((tag) => tag !== INQUIRY_TAG.value) || (requireTag && tags.length === 0)) {
    throw new TravelAddressError('inquiry-tag', 'the URL must have t=i in its query (and no other t)');
  }
  return url;
}

/** The caller's text plus `t=i`, unless its query already has it. */
function withInquiryTag(payload: string, url: URL): string {
  if (url.searchParams.has(INQUIRY_TAG.name)) return payload;
  const tag = `${INQUIRY_TAG.name}=${INQUIRY_TAG.value}`;
  if (!payload.includes('?')) return `${payload}?${tag}`;
  return payload.endsWith('?') || payload.endsWith('&') ? `${payload}${tag}` : `${payload}&${tag}`;
}

/**
 * Mints the travel address of an inquiry URL: `https://host/path?query` or the same without the
 * scheme. `t=i` is appended when the query lacks it; everything else is kept as written, so the
 * URL must already be in its final form (punycode host, percent-encoded path).
 */
export function encodeTravelAddress(url: string): string {
  let payload = url;
  if (HTTPS.test(payload)) payload = payload.slice('https://'.length);
  else if (SCHEME.test(payload)) {
    throw new TravelAddressError('scheme', 'only https URLs can become travel addresses');
  }
  if (payload.length > 0 && !PRINTABLE_ASCII.test(payload)) {
    throw new TravelAddressError(
      'payload',
      'the URL must be printable ASCII (punycode the host, percent-encode the path)',
    );
  }
  payload = withInquiryTag(payload, payloadUrl(payload, false));
  payloadUrl(payload, true);
  const bytes = new TextEncoder().encode(payload);
  if (bytes.length > MAX_URL_BYTES) {
    throw new TravelAddressError('length', `the URL must be at most ${MAX_URL_BYTES} bytes`);
  }
  const framed = new Uint8Array(bytes.length + 4);
  framed.set(bytes);
  framed.set(checksum(bytes), bytes.length);
  return TRAVEL_ADDRESS_PREFIX + base58.encode(framed);
}

/**
 * The inquiry URL inside a travel address, with its https scheme: the URL to POST the inquiry to,
 * query (with `t=i`) included. Throws a `TravelAddressError` naming the rule that failed.
 */
export function decodeTravelAddress(ta: string): { url: string } {
  if (!ta.startsWith(TRAVEL_ADDRESS_PREFIX)) {
    throw new TravelAddressError('prefix', `a travel address starts with "${TRAVEL_ADDRESS_PREFIX}"`);
  }
  const body = ta.slice(TRAVEL_ADDRESS_PREFIX.length);
  if (body.length === 0 || ta.length > MAX_TRAVEL_ADDRESS_LENGTH) {
    throw new TravelAddressError('length', 'the travel address is empty or too long');
  }
  let framed: Uint8Array;
  try {
    framed = base58.decode(body);
  } catch {
    throw new TravelAddressError('encoding', 'the travel address has a character outside base58');
  }
  if (framed.length < 5) throw new TravelAddressError('length', 'the travel address is too short');
  const bytes = framed.subarray(0, framed.length - 4);
  const expected = checksum(bytes);
  if (!expected.every((byte, i) => byte === framed[bytes.length + i])) {
    throw new TravelAddressError('checksum', 'the travel address checksum does not match (mistyped or cut?)');
  }
  let payload: string;
  try {
    payload = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new TravelAddressError('payload', 'the travel address does not hold UTF-8 text');
  }
  return { url: payloadUrl(payload, true).href };
}

/**
 * The URL inside an LNURL (bech32, human-readable part "lnurl", as TRP 2.x peers hand out).
 * Only https URLs are accepted; `t=i` is not required (it predates travel addresses).
 */
export function decodeLnurl(lnurl: string): { url: string } {
  const lower = lnurl.toLowerCase();
  if (!lower.startsWith('lnurl1')) throw new TravelAddressError('prefix', 'an LNURL starts with "lnurl1"');
  if (lnurl.length > MAX_LNURL_LENGTH) throw new TravelAddressError('length', 'the LNURL is too long');
  // bech32 is either all lower or all upper case; a mix is a transcription error.
  if (lnurl !== lower && lnurl !== lnurl.toUpperCase()) {
    throw new TravelAddressError('encoding', 'an LNURL must not mix upper and lower case');
  }
  let bytes: Uint8Array;
  try {
    const decoded = bech32.decode(lower as `lnurl1${string}`, false);
    bytes = bech32.fromWords(decoded.words);
  } catch (cause) {
    const isChecksum = cause instanceof Error && /checksum/i.test(cause.message);
    throw isChecksum
      ? new TravelAddressError('checksum', 'the LNURL checksum does not match (mistyped or cut?)')
      : new TravelAddressError('encoding', 'the LNURL is not valid bech32');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new TravelAddressError('payload', 'the LNURL does not hold UTF-8 text');
  }
  if (UNSAFE.test(text)) {
    throw new TravelAddressError('payload', 'the URL must not contain spaces, control characters or "\\"');
  }
  if (!HTTPS.test(text)) throw new TravelAddressError('scheme', 'the LNURL must hold an https URL');
  return { url: payloadUrl(text.slice('https://'.length), false).href };
}

/**
 * The inquiry URL of whatever the customer pasted: a travel address ("ta…") or an LNURL
 * ("lnurl1…", either case). Anything else is refused with code `prefix`.
 */
export function decodeInquiryAddress(address: string): { url: string; form: 'travel-address' | 'lnurl' } {
  if (address.toLowerCase().startsWith('lnurl1')) return { ...decodeLnurl(address), form: 'lnurl' };
  if (address.startsWith(TRAVEL_ADDRESS_PREFIX)) {
    return { ...decodeTravelAddress(address), form: 'travel-address' };
  }
  throw new TravelAddressError('prefix', 'expected a travel address ("ta…") or an LNURL ("lnurl1…")');
}
