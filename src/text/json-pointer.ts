/**
 * JSON pointers (RFC 6901) and the validation finding that names one. A finding is what a
 * problem+json `errors[]` entry holds (SPEC §4): `path` points from the request body's root,
 * `message` says what is wrong and never repeats the submitted value, since request bodies carry
 * personal data (SPEC §9).
 */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Escapes one reference token (RFC 6901 §3: `~` first, then `/`). */
export function escapePointerToken(token: string | number): string {
  return String(token).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Appends reference tokens to an already-escaped pointer. */
export function pointer(base: string, ...tokens: (string | number)[]): string {
  let out = base;
  for (const token of tokens) out += `/${escapePointerToken(token)}`;
  return out;
}
