/**
 * Times for people, in e-mails: the date and minute in UTC, which every reader can place, and the
 * exact ISO 8601 value beside it, which a machine or a support request can quote. Pure.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `2026-11-27T11:01:41.123Z` → `27 Nov 2026, 11:01 UTC (2026-11-27T11:01:41.123Z)`. A value that
 * is not a time comes back as it was, so a message never says "Invalid Date".
 */
export function humanTime(value: string | Date): string {
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const two = (n: number) => String(n).padStart(2, '0');
  const day = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  return `${day}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC (${d.toISOString()})`;
}
