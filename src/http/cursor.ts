/**
 * Keyset cursors of the list endpoints: the last row's creation time and id, as base64url JSON.
 * A cursor comes back from the client, so it is checked as strictly as any input: a time in the
 * ISO form this API writes (year 0001 onwards) and a UUID, else 400 naming the parameter.
 */
import { validationFailed } from './errors.js';

/** A UUID in canonical hex form, either case. Ajv's own `uuid` format also takes a `urn:uuid:` prefix. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const AT = /^(?!0000)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z$/;

export function encodeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

export function decodeCursor(cursor: string): { at: string; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      typeof at === 'string' &&
      AT.test(at) &&
      !Number.isNaN(Date.parse(at)) &&
      typeof id === 'string' &&
      UUID.test(id)
    ) {
      return { at, id };
    }
  } catch {
    // fall through to the validation error
  }
  throw validationFailed([{ path: '/querystring/cursor', message: 'is not a cursor this API returned' }]);
}
