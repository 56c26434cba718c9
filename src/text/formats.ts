/**
 * Syntax of identifiers that several domains accept: DIDs (directory, initiation) and e-mail
 * addresses (NOTIFY, contacts). Pure.
 */

// W3C DID Core §3.1: did = "did:" method-name ":" method-specific-id, where method-name is
// lower-case letters and digits, and method-specific-id = *( *idchar ":" ) 1*idchar with
// idchar = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded. So ':' separates segments, segments may be
// empty, and the id never ends in ':'. Each `(... )*:` group must consume a ':', which keeps the
// pattern free of backtracking blow-ups. DID URLs (path, query, fragment) are not DIDs.
const ID_CHAR = '(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})';
const DID_PATTERN = new RegExp(`^did:[a-z0-9]+:(?:${ID_CHAR}*:)*${ID_CHAR}+$`);

export function isDid(value: string): boolean {
  return DID_PATTERN.test(value);
}

// Pragmatic addr-spec (RFC 5321 §4.1.2 / RFC 5322 §3.4.1): a dot-atom local part of at most 64
// characters, '@', and a host name of at least two labels. Quoted local parts, address literals
// and non-ASCII addresses are refused: they are legal but rare, and mail relays often refuse
// them too. 254 is the longest address that fits SMTP's 256-octet path with its brackets.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at < 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local)) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return false;
  // An all-numeric top-level label would make an IP address look like a host name.
  return !/^[0-9]+$/.test(labels[labels.length - 1] ?? '');
}

// Names that people read (organizations, operators) and that the hub repeats in e-mails, the
// dashboard and the audit: printable text. Control characters (C0, C1, line and paragraph
// separators) could start lines of their own; bidirectional controls (embeddings, overrides,
// isolates, marks) could make a name display as another one.
// Invisible format characters (Unicode category Cf: zero-width spaces and joiners, soft hyphens,
// byte-order marks, the bidirectional controls) could make `alice` and `alice\u200d` two names
// that look the same.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u;

export const NAME_RULE =
  'must be printable text: no control, invisible format or bidirectional-override characters, no leading or trailing space';

export function isPrintableName(value: string): boolean {
  return value.trim() === value && value.length > 0 && !UNPRINTABLE.test(value);
}

/**
 * The form in which two names count as the same (operator names are unique in it): NFKC
 * normalisation (full-width, ligature and compatibility forms become plain letters) and case
 * folding (by upper- then lower-casing, which folds `ß` to `ss` as Unicode's full folding does),
 * normalised again since folding can leave composable sequences.
 */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
