/** Display helpers: dates, references, codes as words. */

/**
 * Times always say their zone (issue 35): in UTC ("27 Nov 2026, 11:01:41 UTC") or in the browser's
 * zone with its abbreviation or offset ("27 Nov 2026, 06:01:41 EST"). Which one is the person's
 * choice (the header's switch), kept in localStorage; `formatTimeIn` is pure for tests.
 */
export type ZoneChoice = 'local' | 'utc';

const ZONE_KEY = 'trh.dashboard.timeZone';

const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(
  locale: string | undefined,
  timeZone: string | undefined,
  withSeconds: boolean,
  withDate: boolean,
) {
  const key = `${locale}|${timeZone}|${withSeconds}|${withDate}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, {
      ...(withDate ? { day: 'numeric', month: 'short', year: 'numeric' } : {}),
      hour: '2-digit',
      minute: '2-digit',
      ...(withSeconds ? { second: '2-digit' } : {}),
      // The UTC form names its zone itself; the local one through Intl (abbreviation or GMT offset).
      ...(timeZone === 'UTC' ? { hourCycle: 'h23' } : { timeZoneName: 'short' }),
      ...(timeZone ? { timeZone } : {}),
    });
    formats.set(key, f);
  }
  return f;
}

/**
 * `iso` as a person reads it, in `zone`: UTC in British order with a 24-hour clock and "UTC", or the
 * local zone (`localZone`, the browser's by default) in `locale`'s order with the zone's name.
 * Without the date when `date` is false (a clock time). Pure; an unparsable value comes back as is.
 */
export function formatTimeIn(
  iso: string,
  zone: ZoneChoice,
  opts: { locale?: string; localZone?: string; date?: boolean } = {},
): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const withDate = opts.date !== false;
  if (zone === 'utc') return `${formatOf('en-GB', 'UTC', true, withDate).format(d)} UTC`;
  return formatOf(opts.locale, opts.localZone, true, withDate).format(d);
}

let zoneChoice: ZoneChoice = readZone();

function readZone(): ZoneChoice {
  try {
    return globalThis.localStorage?.getItem(ZONE_KEY) === 'utc' ? 'utc' : 'local';
  } catch {
    return 'local';
  }
}

export const currentZone = (): ZoneChoice => zoneChoice;

/** Switches every time the dashboard prints (the caller re-renders), and remembers the choice. */
export function chooseZone(zone: ZoneChoice): void {
  zoneChoice = zone;
  try {
    globalThis.localStorage?.setItem(ZONE_KEY, zone);
  } catch {
    // storage may be off: the choice holds for this page
  }
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return formatTimeIn(iso, zoneChoice);
}

/** A clock time with its zone ("11:01:41 UTC"), for "updated at" notes. */
export function formatClock(at: Date): string {
  return formatTimeIn(at.toISOString(), zoneChoice, { date: false });
}

export const shortRef = (ref: string) => ref.slice(0, 8);

export function words(code: string): string {
  const lower = code.toLowerCase().replaceAll('_', ' ');
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}

export const STATUS_LABELS: Record<string, string> = {
  NEW: 'New',
  RECEIVER_NOTIFIED: 'Receiver notified',
  CONFIRMED: 'Confirmed',
  DECLINED: 'Declined',
  CANCELLED: 'Cancelled',
  EXPIRED: 'Expired',
  PENDING: 'Pending',
  DELIVERED: 'Delivered',
  FAILED: 'Failed',
  HELD: 'Held',
};

/** Transaction states, in the order of their lifecycle; the last three are final. */
export const TRANSACTION_STATES = [
  'NEW',
  'RECEIVER_NOTIFIED',
  'CONFIRMED',
  'DECLINED',
  'CANCELLED',
  'EXPIRED',
] as const;
export const FINAL_STATES: readonly string[] = ['DECLINED', 'CANCELLED', 'EXPIRED'];
export const PROTOCOLS = ['MAIN', 'BASIC', 'NOTIFY', 'TRP'] as const;

/** `beneficiary-joined` → `Beneficiary joined`: a history event that left the status as it was. */
export const HISTORY_EVENT_LABELS: Record<string, string> = {
  'beneficiary-joined': 'Beneficiary joined',
};
export function historyEventLabel(event: string): string {
  const label = HISTORY_EVENT_LABELS[event];
  if (label) return label;
  const spaced = event.replaceAll(/[-_]/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

let regions: Intl.DisplayNames | undefined;
/** `DE` → `Germany (DE)`; `XX` stays `XX (unknown)`. */
export function countryName(code: string | undefined): string {
  if (!code) return '—';
  if (code === 'XX') return 'XX (not known)';
  try {
    regions ??= new Intl.DisplayNames(undefined, { type: 'region' });
    const name = regions.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const h = Math.floor(seconds / 3600);
  return h < 48 ? `${h} h ${Math.floor((seconds % 3600) / 60)} min` : `${Math.floor(h / 24)} days`;
}
