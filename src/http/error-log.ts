/**
 * How errors appear in logs. A database error carries the statement's input in its `detail`,
 * `where` and `hint` (a failing batch INSERT quotes its JSON input, which holds every caller's
 * row in that batch), so a logged error keeps only what names the failure: its type, message,
 * stack, code and the database's own identifiers (table, column, constraint, routine), and the
 * same for its cause.
 */
const KEPT = [
  'code',
  'severity',
  'routine',
  'schema',
  'table',
  'column',
  'constraint',
  'dataType',
  'statusCode',
];

export interface LoggedError {
  [key: string]: unknown;
  type: string;
  message: string;
  stack: string;
}

export function serializeError(err: Error): LoggedError {
  // Loggers hand over whatever was logged under `err`; only errors are reshaped.
  if (!(err instanceof Error)) return err;
  const out: LoggedError = { type: err.name, message: err.message, stack: err.stack ?? '' };
  const fields = err as unknown as Record<string, unknown>;
  for (const key of KEPT) if (fields[key] !== undefined) out[key] = fields[key];
  if (err.cause instanceof Error) out.cause = serializeError(err.cause);
  return out;
}

/**
 * Path segments that are credentials: the token of a claim or credentials link (API and dashboard
 * pages), of a travel address and of a TRP callback. Request logs show `[token]` instead.
 */
const TOKEN_IN_PATH = /\/(claims|claim|credentials|ta|resolutions|confirmations)\/[^/?#]+/g;

export function redactUrl(url: string): string {
  return url.replace(TOKEN_IN_PATH, '/$1/[token]');
}

/** How a request appears in logs: Fastify's usual fields, with link tokens masked in the URL. */
export function serializeRequest(req: {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
