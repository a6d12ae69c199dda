/** Local calendar days (the browser's time zone), as the Usage page filters, groups and shows them. */

const pad = (value: number): string => String(value).padStart(2, '0');

/** `YYYY-MM-DD` of the local day holding `date`. */
export const localDay = (date: Date): string => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

function localMidnight(day: string, offsetDays: number): Date {
  const [year = 1970, month = 1, date = 1] = day.split('-').map(Number);
  return new Date(year, month - 1, date + offsetDays);
}

/** The instant a local day begins, as the API takes it. */
export const startOfDay = (day: string): string => localMidnight(day, 0).toISOString();

/** The instant after a local day ends (the next day's start): `to` is exclusive. */
export const endOfDay = (day: string): string => localMidnight(day, 1).toISOString();

/** The last 30 days, today included: what the page shows until other days are picked. */
export function lastThirtyDays(now: Date): { from: string; to: string } {
  return { from: localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 29)), to: localDay(now) };
}

/** The browser's time zone, for grouping by day on the server. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** A time to the second, in the browser's zone: calls a second apart must be told apart. */
export const timeWithSeconds = (iso: string | null): string => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' }) : '—');

/** `2026-12-05` → `5 Dec`: a local day as the page names it. */
export const shortDay = (day: string): string => localMidnight(day, 0).toLocaleDateString('en-GB', { day: 'numeric', month: 'short' });
