/**
 * The error catalogue (SPEC §4) and the one error type the code throws. Handlers never pick
 * HTTP statuses: they throw an AppError with a code, and the error handler (problem.ts) turns
 * it into RFC 9457 problem+json. `detail` is public and must never carry personal data;
 * `cause` is internal and only logged. docs/errors.md documents every code; a test keeps the
 * two in step.
 */
import type { FieldProblem } from '../text/json-pointer.js';

export type { FieldProblem };

export const ERRORS = {
  VALIDATION_FAILED: { status: 400, title: 'Request validation failed' },
  UNAUTHENTICATED: { status: 401, title: 'Not authenticated: no valid API key, session or sign-in' },
  FORBIDDEN: { status: 403, title: 'Not allowed for this party' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  INVALID_STATE: { status: 409, title: 'Transition not allowed from the current state' },
  IDEMPOTENCY_CONFLICT: { status: 409, title: 'Idempotency-Key reused with a different request' },
  ALREADY_EXISTS: { status: 409, title: 'Already exists' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request not received in time' },
  PII_ERASED: { status: 410, title: 'Personal data erased' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Request body must be application/json' },
  UNKNOWN_COUNTERPARTY: { status: 422, title: 'Unknown or invalid counterparty' },
  RULES_NOT_MET: { status: 422, title: 'The transfer misses data its jurisdictions require' },
  RATE_LIMITED: { status: 429, title: 'Rate limit exceeded' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request headers too large' },
  INTERNAL: { status: 500, title: 'Internal error' },
  UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldProblem[],
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(detail, options?.cause === undefined ? undefined : { cause: options.cause });
    this.headers = options?.headers;
  }
  readonly headers: Record<string, string> | undefined;

  get status(): number {
    return ERRORS[this.code].status;
  }
}

export const validationFailed = (errors: FieldProblem[], detail?: string) =>
  new AppError(
    'VALIDATION_FAILED',
    detail ?? `The request has ${errors.length} problem${errors.length === 1 ? '' : 's'}; see errors.`,
    errors,
  );

export const notFound = (what = 'The resource') => new AppError('NOT_FOUND', `${what} does not exist.`);
