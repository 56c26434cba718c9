/**
 * JSON request bodies: Fastify's own parser, which refuses prototype keys, plus one rule the
 * database imposes: PostgreSQL text and jsonb cannot hold U+0000, so a string containing it
 * would fail at the INSERT as a 500. Both are refused as a 400 naming where in the body they
 * are. The NUL walk runs only for a body whose text contains the escape `\u0000` (JSON cannot
 * carry a raw NUL), and the prototype walk only for a body the parser refused, so ordinary
 * requests pay one substring search.
 */
import type { FastifyInstance } from 'fastify';
import { escapePointerToken } from '../text/json-pointer.js';
import { validationFailed } from './errors.js';

export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string; // parseAs: 'string'
    parse(request, text, (err, value) => {
      if (err) {
        const path = prototypePath(text);
        if (path === undefined) return done(err, undefined);
        return done(validationFailed([{ path, message: 'is not allowed (a prototype key)' }]), undefined);
      }
      if (!text.includes('\\u0000')) return done(null, value);
      const path = nulPath(value);
      if (path === undefined) return done(null, value);
      done(validationFailed([{ path, message: 'must not contain the NUL character (\\u0000)' }]), undefined);
    });
  });
}

/** JSON pointer of the first string, key or value, that contains U+0000. */
function nulPath(value: unknown): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? '' : undefined;
  return findPath(
    value,
    (key, child) => key.includes('\0') || (typeof child === 'string' && child.includes('\0')),
  );
}

/**
 * Where a body the parser refused holds `__proto__` or `constructor.prototype`, if it is valid
 * JSON at all. `JSON.parse` makes such keys plain own properties, so walking them is safe.
 */
function prototypePath(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // malformed JSON, reported as such
  }
  return findPath(
    value,
    (key, _, parentKey) => key === '__proto__' || (key === 'prototype' && parentKey === 'constructor'),
  );
}

/**
 * JSON pointer (RFC 6901) of the first member or element, in document order, that `hit` picks.
 * Iterative, with a stack of its own: a body nested tens of thousands of levels deep cannot
 * overflow the call stack.
 */
function findPath(
  value: unknown,
  hit: (key: string, child: unknown, parentKey: string | undefined) => boolean,
): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: { key: string | undefined; entries: [string, unknown][]; next: number }[] = [
    { key: undefined, entries: Object.entries(value), next: 0 },
  ];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const entry = top.entries[top.next++];
    if (entry === undefined) {
      stack.pop();
      continue;
    }
    const [key, child] = entry;
    if (hit(key, child, top.key)) {
      return [...stack.slice(1).map((f) => f.key!), key].map((k) => `/${escapePointerToken(k)}`).join('');
    }
    if (child !== null && typeof child === 'object')
      stack.push({ key, entries: Object.entries(child), next: 0 });
  }
  return undefined;
}
