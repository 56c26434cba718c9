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
 * Path segments that are credentials: the token of a claim, credentials or invitation link (API and dashboard
 * pages), of a travel address and of a TRP callback. Request logs show `[token]` instead.
 */
const TOKEN_IN_PATH =
  /\/(claims|claim|credentials|invitations|invitation|ta|resolutions|confirmations)\/+[^/?#]+/gi;

const SSO_CALLBACK = /\/sso\/+callback\/*$/i;

/** Runs of percent-escapes, decoded (as UTF-8, or byte by byte where that fails). */
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    }
  });
}

/**
 * The URL with its tokens masked, however it is spelled: the router decodes percent-escapes
 * (`/v1/%63laims/<token>` reaches the claim route), so the URL is matched decoded (repeatedly,
 * for escapes of escapes), and a URL that holds a token is logged decoded, with the token masked.
 */
export function redactUrl(url: string): string {
  let decoded = url;
  for (let i = 0; i < 5; i++) {
    const next = percentDecoded(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  // The single sign-on callback's query holds the provider's code and the sign-in's state.
  const query = decoded.indexOf('?');
  if (query >= 0 && SSO_CALLBACK.test(decoded.slice(0, query)))
    return `${decoded.slice(0, query)}?[redacted]`;
  // A customer-name search's query holds a name: personal data (SPEC §17).
  if (query >= 0 && /[?&]customer=/i.test(decoded)) return `${decoded.slice(0, query)}?[redacted]`;
  TOKEN_IN_PATH.lastIndex = 0;
  if (!TOKEN_IN_PATH.test(decoded)) return url;
  return decoded.replace(TOKEN_IN_PATH, '/$1/[token]');
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
