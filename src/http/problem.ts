/**
 * The single place that makes HTTP of errors: AppErrors, Fastify's own errors (validation,
 * JSON parsing, body size, media type, 404) and anything unexpected, all as RFC 9457
 * application/problem+json. Unexpected errors are logged with their cause and answered with
 * a bare 500 so no stack trace, SQL or personal data reaches a client.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
}

export function problemOf(err: AppError, instance?: string): ProblemBody {
  const def = ERRORS[err.code];
  return {
    type: `${PROBLEM_BASE}${err.code.toLowerCase().replaceAll('_', '-')}`,
    title: def.title,
    status: def.status,
    detail: err.detail,
    code: err.code,
    ...(instance ? { instance } : {}),
    ...(err.errors ? { errors: err.errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, err: AppError) {
  if (err.headers) reply.headers(err.headers);
  return reply
    .code(err.status)
    .type('application/problem+json')
    .send(problemOf(err, reply.request.url.split('?')[0]));
}

export function registerProblemHandlers(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.code === 'INTERNAL') {
      request.log.error({ err: error }, 'unhandled error');
    } else if (appError.status >= 500) {
      request.log.warn({ err: error }, appError.detail);
    }
    return sendProblem(reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );
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

/** Ajv's messages name the rule, never the submitted value, so they are safe to return. */
function fieldProblem(v: AjvError, context: string): FieldProblem {
  const prefix = context === 'body' ? '' : `/${context}`;
  const base = `${prefix}${v.instancePath}`;
  switch (v.keyword) {
    case 'required':
      return { path: `${base}/${escapePointer(String(v.params.missingProperty))}`, message: 'is required' };
    case 'additionalProperties':
      return {
        path: `${base}/${escapePointer(String(v.params.additionalProperty))}`,
        message: 'unknown field',
      };
    case 'enum':
      return {
        path: base,
        message: `must be one of ${(v.params.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    default:
      return { path: base, message: v.message ?? 'is invalid' };
  }
}

export function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
