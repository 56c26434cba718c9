/**
 * The single place that makes HTTP of errors: AppErrors, Fastify's own errors (validation,
 * JSON parsing, body size, media type, 404) and anything unexpected, all as RFC 9457
 * application/problem+json. Unexpected errors are logged with their cause and answered with
 * a bare 500 so no stack trace, SQL or personal data reaches a client.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapePointerToken } from '../text/json-pointer.js';
import { AppError, ERRORS, type ErrorCode, type FieldProblem } from './errors.js';

export const PROBLEM_BASE = 'https://travel-rule-hub.dev/errors/';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance?: string;
  errors?: FieldProblem[];
  /** More problems were found than `errors` lists. */
  truncated?: true;
}

/** Problems an answer lists at most (SPEC §13); more are cut, with `truncated: true`. */
export const MAX_PROBLEMS = 100;
/** No answer exceeds this (SPEC §13); each text is cut to TEXT_CAP so that the list fits. */
export const MAX_ANSWER_BYTES = 64 * 1024;
const TEXT_CAP = 256;

/** A text cut to `max` characters (without splitting a surrogate pair), marked with an ellipsis. */
function capped(text: string, max = TEXT_CAP): string {
  if (text.length <= max) return text;
  const cut = /[\uD800-\uDBFF]/.test(text[max - 2] ?? '') ? max - 2 : max - 1;
  return `${text.slice(0, cut)}…`;
}

export function problemOf(err: AppError, instance?: string): ProblemBody {
  const def = ERRORS[err.code];
  const body: ProblemBody = {
    type: `${PROBLEM_BASE}${err.code.toLowerCase().replaceAll('_', '-')}`,
    title: def.title,
    status: def.status,
    detail: capped(err.detail, 1024),
    code: err.code,
    ...(instance ? { instance: capped(instance) } : {}),
  };
  if (err.errors === undefined) return body;
  const listed = fitProblems(err.errors, MAX_ANSWER_BYTES - Buffer.byteLength(JSON.stringify(body)) - 64);
  body.errors = listed.errors;
  if (listed.truncated) body.truncated = true;
  return body;
}

/**
 * At most MAX_PROBLEMS problems, with their texts capped, while they take at most `room` bytes as
 * JSON (texts escaped as JSON may take up to six bytes a character, so the count alone does not
 * bound the size).
 */
export function fitProblems(
  all: readonly FieldProblem[],
  room: number,
): { errors: FieldProblem[]; truncated: boolean } {
  const errors: FieldProblem[] = [];
  let left = room;
  for (const p of all) {
    const problem = { path: capped(p.path), message: capped(p.message) };
    left -= Buffer.byteLength(JSON.stringify(problem)) + 1;
    if (errors.length === MAX_PROBLEMS || left < 0) break;
    errors.push(problem);
  }
  return { errors, truncated: errors.length < all.length };
}

export function sendProblem(reply: FastifyReply, err: AppError) {
  if (err.headers) reply.headers(err.headers);
  return reply
    .code(err.status)
    .type('application/problem+json')
    .send(problemOf(err, reply.request.url.split('?')[0]));
}

function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(error);
  if (appError.code === 'INTERNAL') {
    request.log.error({ err: error }, 'unhandled error');
  } else if (appError.status >= 500) {
    request.log.warn({ err: error }, appError.detail);
  }
  return sendProblem(reply, appError);
}

export function registerProblemHandlers(app: FastifyInstance) {
  app.setErrorHandler(answerError);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );
}

/**
 * The headers of every answer (set as a request starts, and for the errors raised before that):
 * its request id; no copies in browsers or proxies (answers hold organizations' data, the /pii read
 * personal data); and no content sniffing.
 */
export function setCommonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('cache-control', 'no-store');
  reply.header('x-content-type-options', 'nosniff');
}

/**
 * Errors Fastify's router raises before any hook runs: a malformed percent-escape in the path
 * (FST_ERR_BAD_URL) or a path parameter over 100 characters (FST_ERR_MAX_PARAM_LENGTH). They
 * are answered like every other error, and the API key is checked first, as for any /v1 request
 * that matched no route: without a valid one the answer is 401.
 */
export async function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  authenticate: ((request: FastifyRequest) => Promise<void>) | undefined,
) {
  setCommonHeaders(request, reply);
  try {
    await authenticate?.(request);
  } catch (err) {
    return answerError(err as FastifyError, request, reply);
  }
  const detail =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path segment of the request is longer than 100 characters.'
      : 'The request path is malformed (an invalid percent-escape).';
  return sendProblem(
    reply,
    new AppError('VALIDATION_FAILED', detail, [{ path: '', message: 'malformed path' }]),
  );
}

const CLIENT_ERRORS: Record<string, ErrorCode> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
};

/**
 * A request Node's HTTP parser refused (malformed, headers over 16 KiB, too slow to arrive):
 * there is no request object, so the answer is written to the socket, as problem+json too.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const code = CLIENT_ERRORS[err.code ?? ''] ?? 'VALIDATION_FAILED';
    const detail =
      code === 'REQUEST_TIMEOUT'
        ? 'The request did not arrive in time.'
        : code === 'HEADERS_TOO_LARGE'
          ? 'The request headers are larger than 16 KiB.'
          : 'The request is not valid HTTP.';
    const body = JSON.stringify(problemOf(new AppError(code, detail)));
    const { status } = ERRORS[code];
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function toAppError(error: FastifyError): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) {
    const context = error.validationContext ?? 'body';
    return new AppError(
      'VALIDATION_FAILED',
      `The request ${context} is invalid; see errors.`,
      fieldProblems(error),
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_FAILED', 'The request body is not valid JSON.', [
        { path: '', message: 'malformed JSON' },
      ]);
    // The database refused a character it cannot store (U+0000 in a query string, say).
    case '22P05':
    case '22021':
      return new AppError(
        'VALIDATION_FAILED',
        'The request contains a character that cannot be stored (such as NUL).',
      );
    // A value the schemas let through but the database cannot take (a date out of its range,
    // say): the request's fault, even if no check caught it first.
    case '22P02':
    case '22007':
    case '22008':
      return new AppError('VALIDATION_FAILED', 'A value in the request is out of range or malformed.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 256 KiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  }
  if (error.statusCode === 429) {
    return new AppError('RATE_LIMITED', 'Too many requests for this API key; retry later.');
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('VALIDATION_FAILED', 'The request could not be processed.');
  }
  return new AppError('INTERNAL', 'An internal error occurred; it has been logged.', undefined, {
    cause: error,
  });
}

/**
 * The body of a route whose body may be left out (OPTIONAL_BODY, with `attachValidation`):
 * undefined when there is none, else the body, which must have passed its schema.
 */
export function optionalBody<T>(request: FastifyRequest & { body: T }): T | undefined {
  if (request.body === undefined || request.body === null) return undefined;
  if (request.validationError) {
    throw new AppError(
      'VALIDATION_FAILED',
      'The request body is invalid; see errors.',
      fieldProblems(request.validationError),
    );
  }
  return request.body;
}

/** Fastify's schema-validation error as field problems (also for routes that attach validation). */
export function fieldProblems(error: {
  validation?: AjvError[];
  validationContext?: string;
}): FieldProblem[] {
  const context = error.validationContext ?? 'body';
  return (error.validation ?? []).map((v) => fieldProblem(v, context));
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** What the schemas' patterns ask for, in words (Ajv would quote the regular expression). */
const PATTERN_MESSAGES: Record<string, string> = {
  '^[\\x21-\\x7E]+$': 'must be printable ASCII without spaces',
  '^[A-Za-z0-9._:-]+$': 'may hold only letters, digits and . _ : -',
  '^(?:[1-9][0-9]?|100)$': 'must be a whole number from 1 to 100',
  '^did:[a-z0-9]+:': 'must be a DID such as did:web:vasp.example',
};

/** Ajv's messages name the rule, never the submitted value, so they are safe to return. */
function fieldProblem(v: AjvError, context: string): FieldProblem {
  const prefix = context === 'body' ? '' : `/${context}`;
  const base = `${prefix}${v.instancePath}`;
  switch (v.keyword) {
    case 'required':
      return {
        path: `${base}/${escapePointerToken(String(v.params.missingProperty))}`,
        message: 'is required',
      };
    case 'additionalProperties':
      return {
        path: `${base}/${escapePointerToken(String(v.params.additionalProperty))}`,
        message: 'unknown field',
      };
    case 'enum':
      return {
        path: base,
        message: `must be one of ${(v.params.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    case 'pattern':
      return {
        path: base,
        message: PATTERN_MESSAGES[String(v.params.pattern)] ?? 'is not in the required form',
      };
    default:
      return { path: base, message: v.message ?? 'is invalid' };
  }
}
