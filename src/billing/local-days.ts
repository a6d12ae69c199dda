/**
 * Calendar days in a time zone, as instants: a day begins at its local midnight, so a day
 * where the clocks change is 23 or 25 hours long. Computed with the runtime's zone data,
 * so both database engines group by the same boundaries.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether the runtime knows `zone` (an IANA name such as `Europe/Paris`, or `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    formatterOf(zone);
    return true;
  } catch {
    return false;
  }
}

type LocalTime = { year: number; month: number; day: number; hour: number; minute: number; second: number };

function localTimeOf(zone: string, instant: number): LocalTime {
  const parts = formatterOf(zone).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((entry) => entry.type === type)?.value ?? 0);
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour'), minute: part('minute'), second: part('second') };
}

/** How far `zone`'s clocks are ahead of UTC at `instant`, in milliseconds. */
function offsetAt(zone: string, instant: number): number {
  const local = localTimeOf(zone, instant);
  return Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - Math.floor(instant / 1_000) * 1_000;
}

/** The instant a local calendar day begins (month and day may overflow: Date.UTC normalizes them). */
function localMidnight(zone: string, year: number, month: number, day: number): number {
  const wall = Date.UTC(year, month - 1, day);
  // Twice: the offset at the first guess may differ from the offset at midnight itself.
  const guess = wall - offsetAt(zone, wall);
  return wall - offsetAt(zone, guess);
}

const label = (time: number): string => new Date(time).toISOString().slice(0, 10);

export type LocalDays = { days: string[]; starts: Date[] };

/**
 * The local days from the one holding `from` up to `to` (exclusive), each named
 * `YYYY-MM-DD` and given by the instant it starts; more than `maxDays` throws a RangeError.
 */
export function localDays(zone: string, from: Date, to: Date, maxDays: number): LocalDays {
  const first = localTimeOf(zone, from.getTime());
  const days: string[] = [];
  const starts: Date[] = [];
  for (let index = 0; ; index += 1) {
    const start = localMidnight(zone, first.year, first.month, first.day + index);
    if (start >= to.getTime() && index > 0) break;
    if (days.length === maxDays) throw new RangeError(`more than ${maxDays} days`);
    days.push(label(Date.UTC(first.year, first.month - 1, first.day + index)));
    starts.push(new Date(start));
  }
  return { days, starts };
}
