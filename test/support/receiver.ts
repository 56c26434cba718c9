/**
 * A participant's webhook endpoint for tests: a real HTTP server on 127.0.0.1 that records every
 * request (raw body and headers, as a receiver must verify them) and answers as scripted:
 * per path, a queue of answers (status, delay or gate, headers) used one per request, then a default.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received. */
  body: string;
  at: number;
  /** The status this receiver answers (or answered). */
  answered: number;
}

export interface Answer {
  status: number;
  delayMs?: number;
  /** Answers only once this settles (after `delayMs`, if both are set). */
  until?: Promise<void>;
  headers?: Record<string, string>;
}

export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly scripts = new Map<string, Answer[]>();
  private fallback: Answer = { status: 200 };
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    let self: Receiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void self!.answer(req.method ?? '', req.url ?? '', req.headers, chunks, res));
    });
    server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new Receiver(server, `http://127.0.0.1:${port}`);
    return self;
  }

  /** Answers for the next requests to `path` (e.g. '/v1/notify/received'), in order. */
  script(path: string, ...answers: (Answer | number)[]): this {
    const queue = this.scripts.get(path) ?? [];
    queue.push(...answers.map((a) => (typeof a === 'number' ? { status: a } : a)));
    this.scripts.set(path, queue);
    return this;
  }

  /** The answer once a path's script is used up (200 unless set). */
  otherwise(answer: Answer | number): this {
    this.fallback = typeof answer === 'number' ? { status: answer } : answer;
    return this;
  }

  /** Requests to a path (any path when omitted). */
  to(path?: string): ReceivedRequest[] {
    return path === undefined ? this.requests : this.requests.filter((r) => r.path === path);
  }

  /** Resolves once `predicate` holds, re-checked on every request; rejects after `timeoutMs`. */
  async waitFor(predicate: (r: Receiver) => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `receiver: timed out after ${timeoutMs} ms waiting for ${what}; got ${this.summary()}`,
        );
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  summary(): string {
    return JSON.stringify(this.requests.map((r) => `${r.path} ${r.answered}`));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    chunks: Buffer[],
    res: import('node:http').ServerResponse,
  ) {
    const answer = this.scripts.get(path)?.shift() ?? this.fallback;
    // Recorded on arrival: a request whose answer never reaches the hub (a crash) still counts.
    const record: ReceivedRequest = {
      method,
      path,
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at: Date.now(),
      answered: answer.status,
    };
    this.requests.push(record);
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (answer.until) await answer.until;
    if (!res.destroyed) {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify({ status: answer.status < 300 ? 'ok' : 'error' }));
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** Polls `check` until it returns a value other than undefined/false; throws after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A webhook's body, verified as a participant does: the raw body, the three headers, its own secret. */
// biome-ignore lint/suspicious/noExplicitAny: a webhook body, read field by field in the assertions
export function verified(r: ReceivedRequest, secret: string): Record<string, any> {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as Record<string, unknown>;
}
