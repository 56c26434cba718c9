/**
 * The chain's verified state for callers who may not walk it themselves (`GET /v1/audit/status`,
 * docs/records.md). Walking the whole chain reads every row, so a route that any key may call
 * must not start a walk per request: this process keeps the result of its most recent walk and
 * starts a new one at most once per `maxAgeMs`, on the first request after the result went
 * stale. Requests meanwhile get the last result at once, with the time it was taken; only the
 * very first request of a process waits for a walk, and concurrent first requests share it. The
 * operator's verification (`GET /v1/admin/audit/verify`) walks at once and its result replaces
 * the kept one when it is newer, so what organizations see is never older than the operator's.
 *
 * One cache per process: several processes on one database walk at most once per interval each.
 */
import type { VerifyResult } from './verify.js';

/** How long a walk's result is answered before a request starts the next walk. */
export const STATUS_MAX_AGE_MS = 5 * 60_000;

/** A walk's result (without a checkpoint check), and its time. */
export interface ChainStatus extends Pick<VerifyResult, 'ok' | 'rows' | 'head' | 'broken'> {
  /** When the walk began: its rows are those up to the head it read then (ISO 8601). */
  checkedAt: string;
  /** From then on, the next status request starts a new walk. */
  refreshAfter: string;
}

export interface ChainStatusOptions {
  maxAgeMs?: number;
  now?: () => number;
  /** A walk that failed while earlier results were answered: logged, not thrown to anyone. */
  onBackgroundError?: (err: unknown) => void;
}

export class ChainStatusCache {
  private last: { result: VerifyResult; startedAt: number } | undefined;
  private running: Promise<{ result: VerifyResult; startedAt: number }> | undefined;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private readonly onBackgroundError: (err: unknown) => void;

  constructor(
    private readonly walk: () => Promise<VerifyResult>,
    options: ChainStatusOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? STATUS_MAX_AGE_MS;
    this.now = options.now ?? Date.now;
    this.onBackgroundError = options.onBackgroundError ?? (() => {});
  }

  /** The kept result; a stale one starts a walk for later requests, none yet waits for one. */
  async current(): Promise<ChainStatus> {
    const last = this.last;
    if (last === undefined) return this.answer(await this.shared());
    if (this.now() - last.startedAt >= this.maxAgeMs) this.shared().catch(this.onBackgroundError);
    return this.answer(last);
  }

  /** Walks now, whatever the kept result's age (the operator's verification), and keeps it. */
  async verifyNow(): Promise<VerifyResult> {
    return (await this.walkAndKeep()).result;
  }

  /** The walk under way, or a new one: never two at once for status requests. */
  private shared() {
    this.running ??= this.walkAndKeep().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async walkAndKeep() {
    const startedAt = this.now();
    const result = await this.walk();
    // A slower walk that began earlier does not replace a newer one's result.
    if (this.last === undefined || this.last.startedAt <= startedAt) this.last = { result, startedAt };
    return { result, startedAt };
  }

  private answer({ result, startedAt }: { result: VerifyResult; startedAt: number }): ChainStatus {
    return {
      ok: result.ok,
      rows: result.rows,
      head: result.head,
      ...(result.broken ? { broken: result.broken } : {}),
      checkedAt: new Date(startedAt).toISOString(),
      refreshAfter: new Date(startedAt + this.maxAgeMs).toISOString(),
    };
  }
}
