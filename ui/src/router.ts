/**
 * Hash routes (`#/tx/<ref>`, `#/queue?needs=review`): the hub serves one static page, and nothing
 * secret is ever in a route. What follows `?` is the route's query (a list's filters), apart from
 * its path. Hashes that do not start with `#/` are not routes and leave the view alone.
 */
import { useEffect, useState } from 'preact/hooks';
import { focusPolicy } from './hooks.js';

export function currentRoute(): string[] {
  const hash = window.location.hash;
  if (!hash.startsWith('#/')) return [];
  try {
    return hash.slice(2).split('?')[0]!.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return ['not-found']; // a malformed percent-escape: no such page, rather than a blank one
  }
}

/** The current route's query (`#/inbox?review=open` → review=open): a list's filters live there. */
export function routeQuery(): URLSearchParams {
  const hash = window.location.hash;
  const at = hash.indexOf('?');
  return new URLSearchParams(hash.startsWith('#/') && at >= 0 ? hash.slice(at + 1) : '');
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => {
      focusPolicy.moveToNewView = true;
      if (window.location.hash === '' || window.location.hash.startsWith('#/')) setRoute(currentRoute());
    };
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/**
 * Writes the route's query without a navigation: the address can be copied, bookmarked and
 * reloaded with the same filters, and the view keeps its focus (no hashchange).
 */
export function replaceRouteQuery(query: URLSearchParams): void {
  const hash = window.location.hash;
  const path = hash.startsWith('#/') ? hash.split('?')[0]! : '#/';
  const text = query.toString();
  const next = text ? `${path}?${text}` : path;
  if (next !== hash) window.history.replaceState(window.history.state, '', next);
}

export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

export function navigate(...parts: string[]): void {
  window.location.hash = href(...parts);
}

/** The public pages that e-mailed links open; the hub serves this page at their paths. */
export type LinkPage = { page: 'claim' | 'credentials' | 'invitation'; token: string };

/** `/claim/<token>` → the claim page with its token; null for the dashboard itself (`/ui/`). */
export function linkPage(pathname: string): LinkPage | null {
  const m = /^\/(claim|credentials|invitation)\/([^/]*)\/?$/.exec(pathname);
  if (!m) return null;
  let token = m[2] ?? '';
  try {
    token = decodeURIComponent(token);
  } catch {
    // a malformed escape: the hub answers such a token 404, as any unknown one
  }
  return { page: m[1] as LinkPage['page'], token };
}
