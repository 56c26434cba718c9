// One validation finding, as it appears in a problem+json `errors[]` entry (SPEC §4).
// `path` is an RFC 6901 JSON pointer from the request body root. `message` says what is wrong
// and never repeats the submitted value: request bodies carry personal data (SPEC §9).

export interface Problem {
  path: string;
  message: string;
}

/** Escapes one reference token for a JSON pointer (RFC 6901 §3: `~` first, then `/`). */
export function escapePointerToken(token: string | number): string {
  return String(token).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Appends reference tokens to an already-escaped pointer. */
export function pointer(base: string, ...tokens: (string | number)[]): string {
  let out = base;
  for (const token of tokens) out += `/${escapePointerToken(token)}`;
  return out;
}
