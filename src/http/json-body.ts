/**
 * JSON request bodies: Fastify's own parser (prototype poisoning refused), plus one rule the
 * database imposes: PostgreSQL text and jsonb cannot hold U+0000, so a string containing it
 * would fail at the INSERT as a 500. It is refused here instead, as a 400 naming the field.
 * The walk runs only for a body whose text contains the escape `\u0000` (JSON cannot carry a raw
 * NUL), so ordinary requests pay one substring search.
 */
import type { FastifyInstance } from 'fastify';
import { validationFailed } from './errors.js';
import { escapePointer } from './problem.js';

export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string; // parseAs: 'string'
    parse(request, text, (err, value) => {
      if (err || !text.includes('\\u0000')) return done(err, value);
      const path = nulPath(value, '');
      if (path === undefined) return done(null, value);
      done(validationFailed([{ path, message: 'must not contain the NUL character (\\u0000)' }]), undefined);
    });
  });
}

/** JSON pointer (RFC 6901) of the first string, key or value, that contains U+0000. */
export function nulPath(value: unknown, at: string): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? at : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const here = `${at}/${escapePointer(key)}`;
    if (key.includes('\0')) return here;
    const found = nulPath(child, here);
    if (found !== undefined) return found;
  }
  return undefined;
}
