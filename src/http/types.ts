/** Shared HTTP typing and the problem+json response schema every route documents. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { type TSchema, Type } from 'typebox';
import { ERRORS } from './errors.js';

export type HubApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.Union(Object.keys(ERRORS).map((c) => Type.Literal(c))),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer into the request body.' }),
          message: Type.String(),
        }),
        { maxItems: 100, description: 'At most 100 problems; `truncated` says when more were found.' },
      ),
    ),
    truncated: Type.Optional(Type.Literal(true, { description: 'More problems were found than listed.' })),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details.' },
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failed (VALIDATION_FAILED)',
  401: 'No valid API key or session, or a failed sign-in (UNAUTHENTICATED)',
  403: 'Wrong party or role, or the wrong kind of key for the route (FORBIDDEN)',
  404: 'Not found (NOT_FOUND)',
  409: 'Conflict (INVALID_STATE, IDEMPOTENCY_CONFLICT or ALREADY_EXISTS)',
  410: 'Personal data erased under the retention policy or by an operator (PII_ERASED)',
  413: 'Body over 256 KiB (PAYLOAD_TOO_LARGE)',
  415: 'Body not JSON (UNSUPPORTED_MEDIA_TYPE)',
  422: 'Unknown counterparty (UNKNOWN_COUNTERPARTY), or data the jurisdictions require is missing (RULES_NOT_MET)',
  429: 'Rate limited (RATE_LIMITED)',
  503: 'Database unreachable or shutting down (UNAVAILABLE)',
};

/**
 * Documents problem+json responses for the given statuses. 401, 403 (the operator key outside
 * /v1/admin, an organization key inside it) and 429 are always possible.
 */
export function problems(...statuses: number[]) {
  // A route that takes a JSON body (415 for another type) also refuses one over the body limit.
  const body = statuses.includes(415) ? [413] : [];
  const all = [...new Set([...statuses, ...body, 401, 403, 429])].sort();
  return Object.fromEntries(
    all.map((s) => [
      s,
      {
        description: DESCRIPTIONS[s],
        content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
      },
    ]),
  );
}

/**
 * Documents a 200 that is JSON, or with `format=csv` (and, where `jsonl` is listed, `format=jsonl`)
 * a streamed attachment: CSV is a header row, then a row per item (RFC 4180); JSON Lines an object
 * per line.
 */
export function jsonOrExport<T extends TSchema>(json: T, formats: readonly ('csv' | 'jsonl')[] = ['csv']) {
  const files = {
    csv: ['text/csv', 'With `format=csv`: a header row, then a row per item (RFC 4180).'],
    jsonl: ['application/jsonl', 'With `format=jsonl`: one JSON object per line.'],
  } as const;
  return {
    description: `JSON; with ${formats.map((f) => `\`format=${f}\``).join(' or ')}, a file to save`,
    content: {
      'application/json': { schema: json },
      ...Object.fromEntries(
        formats.map((f) => [files[f][0], { schema: Type.String({ description: files[f][1] }) }]),
      ),
    },
  };
}
