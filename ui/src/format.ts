/** Display helpers: dates, references, codes as words. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
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
