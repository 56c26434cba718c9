/**
 * The session cookie (SPEC §17): `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's
 * page sends it), `Path=/`, no `Max-Age` (it ends with the browser; the hub ends it sooner), and
 * `Secure` unless the hub serves plain HTTP on a loopback address (a developer's machine), where a
 * browser would not send a Secure cookie back.
 */
export const SESSION_COOKIE = 'trh_session';

const LOOPBACK = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

/** Whether the cookie must be Secure: the public URL (or, without one, the listener) decides. */
export function secureCookies(publicUrl: string | undefined, host: string): boolean {
  if (publicUrl === undefined) return !LOOPBACK.has(host) && !host.startsWith('127.');
  const url = new URL(publicUrl);
  if (url.protocol === 'https:') return true;
  return !LOOPBACK.has(url.hostname) && !url.hostname.startsWith('127.');
}

export function sessionCookie(value: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The session id of a Cookie header, when it has exactly one. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  let found: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    if (found !== undefined) return undefined;
    found = part.slice(eq + 1).trim();
  }
  return found;
}
