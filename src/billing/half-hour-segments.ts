/** A half hour, the step of usage_half_hour_rollups' running sums (migration 0035). */
export const HALF_HOUR_MS = 1_800_000;
const DAY_MS = 86_400_000;
const HALF_HOURS_A_DAY = 48;

/** The day starts strictly inside [from, to): the ones that cut the range into days. */
const startsInside = (starts: readonly Date[], from: Date, to: Date | undefined): Date[] => starts.filter((start) => start > from && (to === undefined || start < to));

/** A quarter hour, the step of usage_quarter_hour_rollups (migration 0039): every zone's midnight falls on one. */
export const QUARTER_HOUR_MS = 900_000;

/** SQL: the quarter-hour rollups' rows `r` of the quarter hour beginning at `instant` (a timestamptz expression), by their key's day and number. */
export const quarterHourAt = (instant: string): string => `r.day = (${instant} AT TIME ZONE 'UTC')::date AND r.quarter_hour = (floor(extract(epoch FROM ${instant}) / 900)::bigint % 96)::smallint`;

/**
 * The half hours a day boundary, `from` or `to` falls inside rather than at their start:
 * their rows are split between two days (or the range and what lies outside it), so the
 * running sums cannot answer them. None in a zone whose offset is whole half hours (UTC
 * included); one a day in the zones a quarter hour off.
 */
const cutHalfHours = (starts: readonly Date[], from: Date, to?: Date): number[] => {
  const cut = [from, ...startsInside(starts, from, to), ...(to ? [to] : [])].map((start) => start.getTime()).filter((time) => time % HALF_HOUR_MS !== 0);
  return [...new Set(cut.map((time) => Math.floor(time / HALF_HOUR_MS) * HALF_HOUR_MS))];
};

/**
 * The quarter hours of the cut half hours within the range: `whole` ones lie inside it and
 * are summed from the quarter-hour rollups (a day boundary never cuts one); `partial` ones
 * are cut by `from` or `to`, and their rows in the range are read from the log.
 */
export function cutQuarterHours(starts: readonly Date[], from: Date, to?: Date): { whole: Date[]; partial: Date[] } {
  const quarters = { whole: [] as Date[], partial: [] as Date[] };
  for (const half of cutHalfHours(starts, from, to)) {
    for (const start of [half, half + QUARTER_HOUR_MS]) {
      const end = start + QUARTER_HOUR_MS;
      if (end <= from.getTime() || (to && start >= to.getTime())) continue;
      const inside = start >= from.getTime() && (!to || end <= to.getTime());
      (inside ? quarters.whole : quarters.partial).push(new Date(start));
    }
  }
  return quarters;
}

/** Half hours `first` to `past` - 1 of one UTC day, all in the day numbered `bucket` (width_bucket's numbers: 0 before the first). */
export type DaySegment = { day: string; first: number; past: number; bucket: number };

/**
 * The UTC days from the one holding `from` cut where the local days begin: each piece is
 * whole half hours of one UTC day inside one local day. Without `to` they run to the UTC
 * day after the last day's start; with it, to `to`. The cut half hours (cutQuarterHours)
 * are in no piece, nor are rows before `from`.
 */
export function daySegments(starts: readonly Date[], from: Date, to?: Date): DaySegment[] {
  // Each boundary opens its bucket: `from` the day holding it (0 before the first), each later start its day; `to` none.
  const boundaries: Array<{ at: number; bucket: number | undefined }> = [
    { at: from.getTime(), bucket: starts.filter((start) => start <= from).length },
    ...startsInside(starts, from, to).map((start) => ({ at: start.getTime(), bucket: starts.indexOf(start) + 1 })),
    ...(to ? [{ at: to.getTime(), bucket: undefined }] : []),
  ];
  // A local day is at most 25 hours: nothing of the last one lies past the UTC day after its end.
  const end = to ? to.getTime() : (starts.at(-1)?.getTime() ?? from.getTime()) + 2 * DAY_MS + 1;
  const segments: DaySegment[] = [];
  let open: { bucket: number; half: number } | undefined;
  const close = (dayStart: number, past: number) => {
    if (open && past > open.half) segments.push({ day: new Date(dayStart).toISOString().slice(0, 10), first: open.half, past, bucket: open.bucket });
  };
  for (let dayStart = Math.floor(from.getTime() / DAY_MS) * DAY_MS; dayStart < end; dayStart += DAY_MS) {
    if (open) open.half = 0;
    for (const boundary of boundaries) {
      if (boundary.at < dayStart || boundary.at >= dayStart + DAY_MS) continue;
      const position = (boundary.at - dayStart) / HALF_HOUR_MS;
      close(dayStart, Math.floor(position));
      // On a half hour the new day starts there; inside one it starts after it (cutQuarterHours has that one).
      open = boundary.bucket === undefined ? undefined : { bucket: boundary.bucket, half: Math.ceil(position) };
    }
    close(dayStart, HALF_HOURS_A_DAY);
  }
  return segments;
}
