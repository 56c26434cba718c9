/**
 * The send stage: one signed HTTP POST over keep-alive connections (undici `request` with an
 * Agent, several times faster than fetch). Any 2xx is success; every other status, a timeout
 * or a network error is a failure the worker retries. Redirects are not followed: a 3xx is a
 * failure, so a receiver cannot bounce the hub to another (private) address.
 * Unless private endpoints are allowed, the Agent resolves names through `guardedLookup`, so
 * the address connected to is the one that was checked (no DNS-rebinding window).
 */
import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import { webhookHeaders } from './signing.js';
import { guardedLookup } from './ssrf.js';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The receiver's Retry-After header, if it sent one. */
  retryAfter?: string;
}

export const SEND_TIMEOUT_MS = 10_000;

/**
 * Abort signals shared by the sends that start within one tenth of the timeout of each other,
 * each aborted when the last of them is due: every send is abandoned between 1.0 and 1.1 times
 * the timeout after it started, for one timer per slot instead of one `AbortSignal.timeout`
 * (a timer and an event target) per send, which cost the worker about 4 % of its CPU.
 */
class Deadlines {
  private slot: { endsAt: number; signal: AbortSignal } | undefined;
  private readonly width: number;

  constructor(private readonly timeoutMs: number) {
    this.width = Math.max(1, Math.floor(timeoutMs / 10));
  }

  signal(): AbortSignal {
    const now = performance.now();
    if (this.slot === undefined || now >= this.slot.endsAt) {
      const controller = new AbortController();
      setMaxListeners(0, controller.signal); // one listener per send in the slot, removed when it ends
      const reason = new DOMException('the receiver did not answer in time', 'TimeoutError');
      setTimeout(() => controller.abort(reason), this.timeoutMs + this.width).unref();
      this.slot = { endsAt: now + this.width, signal: controller.signal };
    }
    return this.slot.signal;
  }
}

export class WebhookSender {
  private readonly agent: Agent;
  private readonly deadlines: Deadlines;

  constructor(
    opts: { allowPrivate: boolean; timeoutMs?: number; connections?: number },
    private readonly timeoutMs = opts.timeoutMs ?? SEND_TIMEOUT_MS,
  ) {
    this.deadlines = new Deadlines(this.timeoutMs);
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connections: opts.connections ?? 64,
      connect: opts.allowPrivate
        ? { timeout: this.timeoutMs }
        : { timeout: this.timeoutMs, lookup: guardedLookup },
    });
  }

  /** Signs `body` with every secret (newest first) under `messageId` and POSTs it to `url`. */
  async send(url: string, body: string, messageId: string, secrets: string[]): Promise<SendResult> {
    const started = performance.now();
    const latency = () => performance.now() - started;
    try {
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'travel-rule-hub-webhooks',
        ...webhookHeaders(secrets, messageId, Math.floor(Date.now() / 1000), body),
      };
      const res = await request(url, {
        dispatcher: this.agent,
        method: 'POST',
        headers,
        body,
        signal: this.deadlines.signal(),
      });
      // Drain (bounded) so the connection goes back to the pool.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const retryAfter = res.headers['retry-after'];
      return {
        ok,
        statusCode: res.statusCode,
        latencyMs: latency(),
        error: ok ? null : `HTTP ${res.statusCode}`,
        ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
      };
    } catch (err) {
      return { ok: false, statusCode: null, latencyMs: latency(), error: describeError(err, this.timeoutMs) };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** A short, log-safe description of a network error (never a stack). */
export function describeError(err: unknown, timeoutMs = SEND_TIMEOUT_MS): string {
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError' || name === 'HeadersTimeoutError') {
    return `timeout: no complete answer within ${timeoutMs / 1000} s`;
  }
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  const cause = err.cause instanceof Error ? err.cause : undefined;
  const causeCode = cause && (cause as NodeJS.ErrnoException).code;
  if (causeCode === 'ERR_SSRF_BLOCKED' && cause) return `target refused: ${cause.message}`;
  if (code === 'ERR_SSRF_BLOCKED') return `target refused: ${err.message}`;
  const text = cause && cause.message !== err.message ? `${err.message} (${cause.message})` : err.message;
  return (code ? `${code}: ${text}` : text).slice(0, 500);
}
