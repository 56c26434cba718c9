// Retry timing for deliveries (webhooks and NOTIFY e-mail), SPEC §2 HUB_RETRY_SCHEDULE and §8.
//
// Invariants:
// - A schedule is a non-empty list of positive whole milliseconds. Attempt 1 goes out on queueing;
//   after failed attempt n (1-based) the wait is schedule[n-1] ±20 %; after schedule.length + 1 failed
//   attempts there is no next attempt and the delivery is FAILED.
// - Jitter spreads retries of deliveries that failed together (an endpoint outage) so they do not
//   return as one burst; the random source is injectable so tests are exact.
// - A receiver's Retry-After can only postpone an attempt, never bring it forward, and only up to a
//   wait of an hour in all (a longer plan stays): a receiver cannot make us hammer it, nor park a
//   delivery for days.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/;
const FORMAT_MESSAGE =
  'HUB_RETRY_SCHEDULE must be a comma-separated list of durations such as 5s,30s,2m (units ms, s, m, h)';

/** Longest single wait accepted, and most entries: a schedule beyond these is a typo, not a plan. */
export const MAX_RETRY_WAIT_MS = 7 * 24 * 3_600_000;
export const MAX_RETRY_STEPS = 100;

/** The default schedule of SPEC §2. */
export const DEFAULT_RETRY_SCHEDULE = '5s,30s,2m,10m,30m,1h,3h,6h,12h,24h';

/** Jitter amplitude: each wait is drawn uniformly from [0.8, 1.2) times the planned value. */
export const RETRY_JITTER = 0.2;

/** Ceiling for a receiver's Retry-After when our own plan is shorter than this. */
export const RETRY_AFTER_CAP_MS = 3_600_000;

/** Parses `5s,30s,2m,…` into milliseconds. Throws an Error whose message names the setting. */
export function parseRetrySchedule(text: string): number[] {
  if (typeof text !== 'string' || text.trim() === '') throw new Error(FORMAT_MESSAGE);
  const parts = text.split(',');
  if (parts.length > MAX_RETRY_STEPS) {
    throw new Error(`HUB_RETRY_SCHEDULE has ${parts.length} entries; at most ${MAX_RETRY_STEPS} are allowed`);
  }
  return parts.map((part) => {
    const match = DURATION.exec(part.trim());
    if (!match) throw new Error(`${FORMAT_MESSAGE}; "${part.trim()}" is not one`);
    const ms = Math.round(Number(match[1]) * UNIT_MS[match[2]!]!);
    if (!(ms > 0))
      throw new Error(`HUB_RETRY_SCHEDULE entries must be greater than zero; "${part.trim()}" is not`);
    if (ms > MAX_RETRY_WAIT_MS) {
      throw new Error(`HUB_RETRY_SCHEDULE entries must be at most 168h; "${part.trim()}" is longer`);
    }
    return ms;
  });
}

/**
 * Wait in milliseconds before the next attempt once `attemptsSoFar` attempts have failed: 0 when none has
 * been made yet, schedule[attemptsSoFar - 1] with ±20 % jitter after that, null when the schedule is used
 * up (the delivery becomes FAILED).
 */
export function nextAttemptDelay(
  schedule: number[],
  attemptsSoFar: number,
  random: () => number = Math.random,
): number | null {
  if (!Number.isSafeInteger(attemptsSoFar) || attemptsSoFar < 0) {
    throw new RangeError('attemptsSoFar must be a non-negative integer');
  }
  if (attemptsSoFar === 0) return 0;
  const planned = schedule[attemptsSoFar - 1];
  if (planned === undefined) return null;
  const factor = 1 + RETRY_JITTER * (2 * random() - 1);
  return Math.max(1, Math.round(planned * factor));
}

/** The most attempts a delivery gets under `schedule` (the first one plus one per entry). */
export function maxAttempts(schedule: number[]): number {
  return schedule.length + 1;
}

/**
 * The wait to use given the receiver's `Retry-After` (delta-seconds or HTTP-date) and our `planned` wait
 * (from nextAttemptDelay). The result lies in [planned, max(planned, 1 h)]: a Retry-After shorter than the
 * plan is ignored, a longer one is honoured up to an hour (or up to the plan, when the plan is already
 * longer). Absent, malformed or past values leave the plan unchanged. Apply it only when nextAttemptDelay
 * returned a number; Retry-After never revives an exhausted schedule.
 */
export function retryAfterClamp(
  headerValue: string | undefined,
  planned: number,
  now: number = Date.now(),
): number {
  const requested = parseRetryAfter(headerValue, now);
  if (requested === null) return planned;
  return Math.min(Math.max(requested, planned), Math.max(planned, RETRY_AFTER_CAP_MS));
}

/** Retry-After in milliseconds from `now`, or null when absent or unreadable (RFC 9110 §10.2.3). */
export function parseRetryAfter(headerValue: string | undefined, now: number = Date.now()): number | null {
  if (typeof headerValue !== 'string') return null;
  const value = headerValue.trim();
  if (value === '') return null;
  if (/^\d+$/.test(value)) {
    // Long digit strings overflow to huge numbers; the clamp bounds them, Infinity is avoided here.
    return Math.min(Number(value), Number.MAX_SAFE_INTEGER / 1000) * 1000;
  }
  // IMF-fixdate and RFC 850 dates start with a weekday and a comma and end in GMT; requiring that keeps
  // Date.parse's liberal guesses (and local-time readings) out.
  if (!/^[A-Za-z]{3,9}, .+ GMT$/.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}
