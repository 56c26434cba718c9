/**
 * The send stage: one signed HTTP POST over keep-alive connections. Any 2xx is success; every
 * other status, a timeout or a network error is a failure the worker retries. Redirects are not
 * followed: a 3xx is a failure, so a receiver cannot bounce the hub to another (private) address.
 * Unless private endpoints are allowed, the Agent resolves names through `guardedLookup`, so
 * the address connected to is the one that was checked (no DNS-rebinding window).
 *
 * Sends go through undici's low-level `dispatch` with a small handler rather than `request`:
 * the answer's status and headers are all the hub needs, and skipping `request`'s response
 * stream, URL re-parsing and per-send AbortSignal roughly halves the CPU of a send, which is most
 * of what one worker process spends per delivery.
 *
 * undici itself loads on first use (the worker loads it as it starts): its module graph is a
 * noticeable part of a hub's start-up, and an API-only process sends only the test events organizations
 * ask for.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Agent, Dispatcher } from 'undici';
import { webhookHeaders } from './signing.js';
import { guardedLookup } from './ssrf.js';
import type { SendResult } from './types.js';

export const SEND_TIMEOUT_MS = 10_000;
/** Response bytes read at most; a longer answer is cut off (its status still counts). */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One send: settles once, whichever of answer, error or deadline comes first. Two deadlines
 * apply in turn: while it waits in the agent's queue for a free connection to the receiver, and
 * from the moment it is written to one. The receiver's 10 s (and the latency recorded) count
 * only the second, so a backlog to a slow but healthy receiver does not turn into timeouts of
 * requests it never got.
 */
class Send implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private statusCode: number | null = null;
  private retryAfter: string | undefined;
  private bytes = 0;
  private settled = false;
  private started = performance.now();
  private unwatch: () => void;

  constructor(
    private readonly resolve: (r: SendResult) => void,
    private readonly timeoutMs: number,
    private readonly deadlines: { queued: Deadlines; running: Deadlines },
  ) {
    this.unwatch = deadlines.queued.watch(this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Abandoned while queued for a connection: it must not go out late.
    if (this.settled) {
      controller.abort(timeoutError());
      return;
    }
    this.unwatch();
    this.started = performance.now();
    this.unwatch = this.deadlines.running.watch(this);
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx: the real answer follows
    this.statusCode = statusCode;
    const retryAfter = headers['retry-after'];
    if (typeof retryAfter === 'string') this.retryAfter = retryAfter;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes > MAX_RESPONSE_BYTES) {
      this.answered();
      controller.abort(new Error('response body too long'));
    }
  }

  onResponseEnd(): void {
    this.answered();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.fail(err);
  }

  /** A network error, a refused target, or a request undici would not take. */
  fail(err: unknown): void {
    // An answer whose body failed (or was cut off) still counts as that answer.
    if (this.statusCode !== null) this.answered();
    else this.finish({ ok: false, statusCode: null, error: describeError(err, this.timeoutMs) });
  }

  /** A deadline: gives up, and stops the request if it is still running. */
  expire(reason: Error): void {
    if (this.settled) return;
    this.fail(reason);
    this.controller?.abort(reason);
  }

  private answered(): void {
    const statusCode = this.statusCode!;
    const ok = statusCode >= 200 && statusCode < 300;
    this.finish({
      ok,
      statusCode,
      error: ok ? null : `HTTP ${statusCode}`,
      ...(this.retryAfter !== undefined ? { retryAfter: this.retryAfter } : {}),
    });
  }

  private finish(r: Omit<SendResult, 'latencyMs'>): void {
    if (this.settled) return;
    this.settled = true;
    this.unwatch();
    this.resolve({ ...r, latencyMs: performance.now() - this.started });
  }
}

function timeoutError(): DOMException {
  return new DOMException('the receiver did not answer in time', 'TimeoutError');
}

function notSentError(queueTimeoutMs: number): Error {
  return new Error(
    `not sent: no free connection to the receiver within ${queueTimeoutMs / 1000} s (too many webhooks in flight to it)`,
  );
}

/**
 * Deadlines shared by the sends that start waiting within one tenth of the timeout of each
 * other: one timer per slot expires whatever of the slot is still waiting, so every send is
 * abandoned between 1.0 and 1.1 times the timeout after it started, for one timer per slot, not
 * per send.
 */
class Deadlines {
  private slot: { endsAt: number; sends: Set<Send> } | undefined;
  private readonly width: number;

  constructor(
    private readonly timeoutMs: number,
    private readonly reason: () => Error,
  ) {
    this.width = Math.max(1, Math.floor(timeoutMs / 10));
  }

  /** Watches `send` until it settles; returns what to call when it does. */
  watch(send: Send): () => void {
    const now = performance.now();
    if (this.slot === undefined || now >= this.slot.endsAt) {
      const sends = new Set<Send>();
      setTimeout(() => {
        const reason = this.reason();
        for (const s of sends) s.expire(reason);
        sends.clear();
      }, this.timeoutMs + this.width).unref();
      this.slot = { endsAt: now + this.width, sends };
    }
    const { sends } = this.slot;
    sends.add(send);
    return () => sends.delete(send);
  }
}

export class WebhookSender {
  private agent: Agent | undefined;
  private loading: Promise<Agent> | undefined;
  private readonly deadlines: { queued: Deadlines; running: Deadlines };
  private aborted = false;
  /** Why no new pool may be made (set by abortAll or close). */
  private ended: string | undefined;

  /**
   * A send waits at most `queueTimeoutMs` (default: the timeout) for a connection, then at most
   * the timeout for its answer, each up to 10 % late: 22 s in all with the defaults. With the
   * send-time address check's 5 s (ssrf.ts) that stays inside the worker's 30 s lease, so no
   * other worker takes the message over while it is still going.
   */
  constructor(
    private readonly opts: {
      allowPrivate: boolean;
      timeoutMs?: number;
      queueTimeoutMs?: number;
      connections?: number;
    },
    private readonly timeoutMs = opts.timeoutMs ?? SEND_TIMEOUT_MS,
  ) {
    const queueTimeoutMs = opts.queueTimeoutMs ?? timeoutMs;
    this.deadlines = {
      queued: new Deadlines(queueTimeoutMs, () => notSentError(queueTimeoutMs)),
      running: new Deadlines(timeoutMs, timeoutError),
    };
  }

  /** Loads undici and makes the connection pool, once (a failed load is tried again next time). */
  load(): Promise<Agent> {
    if (this.loading !== undefined) return this.loading;
    if (this.ended !== undefined) return Promise.reject(new Error(this.ended));
    // `default`: undici is CommonJS, and the bundle exposes only its module.exports.
    const loading = import('undici').then(({ default: { Agent } }) => {
      this.agent = new Agent({
        keepAliveTimeout: 10_000,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        connections: this.opts.connections ?? 64,
        connect: this.opts.allowPrivate
          ? { timeout: this.timeoutMs }
          : { timeout: this.timeoutMs, lookup: guardedLookup },
      });
      return this.agent;
    });
    this.loading = loading;
    loading.catch(() => {
      if (this.loading === loading) this.loading = undefined;
    });
    return loading;
  }

  /** Signs `body` with every secret (newest first) under `messageId` and POSTs it to `url`. */
  send(url: string, body: string, messageId: string, secrets: string[]): Promise<SendResult> {
    const agent = this.agent;
    if (agent === undefined) {
      return this.load().then(
        () => this.send(url, body, messageId, secrets),
        (err: unknown): SendResult => ({
          ok: false,
          statusCode: null,
          latencyMs: 0,
          error: describeError(err),
        }),
      );
    }
    return new Promise((resolve) => {
      const send = new Send(resolve, this.timeoutMs, this.deadlines);
      try {
        const { origin, pathname, search } = new URL(url);
        agent.dispatch(
          {
            origin,
            path: pathname + search,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'user-agent': 'travel-rule-hub-webhooks',
              ...webhookHeaders(secrets, messageId, Math.floor(Date.now() / 1000), body),
            },
            body,
          },
          send,
        );
      } catch (err) {
        send.fail(err);
      }
    });
  }

  /**
   * Ends every send still in flight now: each resolves as a failure (`hub shut down before the
   * answer came`), which the worker records; the message was possibly received, so it is retried.
   * A send asked for afterwards fails the same way.
   */
  async abortAll(): Promise<void> {
    if (this.aborted) return;
    this.aborted = true;
    const reason = 'hub shut down before the answer came';
    this.ended ??= reason;
    const agent = await this.loading?.catch(() => undefined);
    await agent?.destroy(new Error(reason)).catch(() => {});
  }

  /** Lets sends in flight finish, then closes the connections; later sends fail. */
  async close(): Promise<void> {
    this.ended ??= 'the webhook sender is closed';
    if (this.aborted) return;
    const agent = await this.loading?.catch(() => undefined);
    await agent?.close();
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
