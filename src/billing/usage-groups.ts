import type { Queryable } from '../store/database.ts';
import type { UsageFilterValues, UsageGrouping } from './usage-filter-schema.ts';
import { fromHalfHours, type GroupColumns, halfHourSelection, halfHoursSince, LOG_COLUMNS } from './usage-half-hour-groups.ts';
import { type ModelMatch, modelMatchOf, usageConditions } from './usage-where.ts';

/** Requests, tokens and spend of a set of rows. */
export type UsageTotals = { requests: number; inputTokens: number; outputTokens: number; costMicros: number };
/** One group: its key (a key id, a model name, an agent id or a day's label; null for rows without a key or agent). */
export type UsageGroup = UsageTotals & { key: string | null };
export type UsageGroups = { groups: UsageGroup[]; totals: UsageTotals; truncated: boolean };

/** At most this many groups are listed (largest spend first); the totals still count every row. */
export const GROUPS_MAX = 500;

const DAY_MS = 86_400_000;

type TotalsRow = { requests: string | number; input_tokens: string | number; output_tokens: string | number; cost_micros: string | number };
const totalsOf = (row: TotalsRow | undefined): UsageTotals => ({
  requests: Number(row?.requests ?? 0),
  inputTokens: Number(row?.input_tokens ?? 0),
  outputTokens: Number(row?.output_tokens ?? 0),
  costMicros: Number(row?.cost_micros ?? 0),
});

const sumOf = (groups: UsageTotals[]): UsageTotals => ({
  requests: groups.reduce((total, group) => total + group.requests, 0),
  inputTokens: groups.reduce((total, group) => total + group.inputTokens, 0),
  outputTokens: groups.reduce((total, group) => total + group.outputTokens, 0),
  costMicros: groups.reduce((total, group) => total + group.costMicros, 0),
});

const SUMS = 'sum(requests)::bigint AS requests, sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens, sum(cost_micros)::bigint AS cost_micros';

/**
 * The filtered rows grouped, with the totals of all of them. Days are the caller's local
 * days: `dayStarts` are the instants each begins, ascending, and a row falls in the last
 * day begun at or before it.
 *
 * Where the rollups can answer (filters of key, model and agent only), they do; where they
 * cannot, and for the days a retention may have cut (up to the account's oldest row in the
 * log), the log does. Both give the same sums: the rollups count exactly the log's rows.
 * The half-hour rollups answer over the days they keep, to the half hour, where their
 * dimensions or quarter hours suffice (usage-half-hour-groups.ts); otherwise the daily rollups'
 * whole UTC days, with the part days at the range's edges from the log, and for local days
 * that are not UTC days the pieces of UTC days they take from others (dayPieces).
 */
export async function groupUsage(db: Queryable, accountId: string, filters: UsageFilterValues, grouping: UsageGrouping, dayStarts: Date[] = [], now = new Date()): Promise<UsageGroups> {
  const match = await modelMatchOf(db, accountId, filters);
  // Only the rollups need it: they answer for the days the log holds whole.
  const oldest = filters.from && filters.to && !filters.status && !filters.endpoint ? await oldestRow(db, accountId) : undefined;
  const params: unknown[] = [accountId];
  let startsParam: string | undefined;
  // Added once a part numbers the log's rows by day: a parameter no part uses has no type.
  const starts = () => (startsParam ??= `$${params.push(dayStarts.map((start) => start.toISOString()))}::timestamptz[]`);
  // A row's group, over a table's columns.
  const groupOver = (columns: GroupColumns) => (grouping === 'day' ? `width_bucket(${columns.at}, ${starts()})::text` : columns[grouping]);
  const logGroup = () => groupOver(LOG_COLUMNS);
  const fromLog = (range: UsageFilterValues): string =>
    `SELECT ${logGroup()} AS key, count(*) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_micros) AS cost_micros
      FROM usage_log WHERE ${usageConditions(params, range, match)} GROUP BY 1`;
  const parts: string[] = [];
  const halfHours = halfHourRange(filters, match, grouping, oldest, now);
  const whole = halfHours ? undefined : rolledUpDays(filters, oldest);
  if (halfHours) {
    if (halfHours.from > (filters.from as Date)) parts.push(fromLog({ ...filters, to: halfHours.from }));
    parts.push(...fromHalfHours(params, { ...filters, ...halfHours }, match, halfHours.selection, grouping, dayStarts, groupOver));
  } else if (whole === undefined) parts.push(fromLog(filters));
  else {
    if (filters.from && filters.from < whole.from) parts.push(fromLog({ ...filters, to: whole.from }));
    const pieces = grouping === 'day' ? dayPieces(whole, dayStarts) : undefined;
    parts.push(fromRollups(params, filters, match, grouping, pieces, whole));
    if (pieces && pieces.moved.length > 0) parts.push(fromMovedPieces(params, filters, match, pieces.moved));
    if (filters.to && whole.to < filters.to) parts.push(fromLog({ ...filters, from: whole.to }));
  }
  // A day's number (1 = the first), which the caller names; other groups largest spend first.
  const order = grouping === 'day' ? 'key::int' : 'sum(cost_micros) DESC, sum(requests) DESC, 1';
  const union = parts.join(' UNION ALL ');
  // A day whose UTC days' rollups went elsewhere sums to no requests: it has no rows.
  const groups = await db.query<TotalsRow & { key: string | null }>(`SELECT key, ${SUMS} FROM (${union}) parts GROUP BY 1 HAVING sum(requests) > 0 ORDER BY ${order} LIMIT ${GROUPS_MAX + 1}`, params);
  const listed = groups.rows.slice(0, GROUPS_MAX).map((row) => ({ key: row.key, ...totalsOf(row) }));
  const truncated = groups.rows.length > GROUPS_MAX;
  // Every group listed: their sums are the totals, without reading the rows a second time.
  const totals = truncated ? totalsOf((await db.query<TotalsRow>(`SELECT ${SUMS} FROM (${union}) parts`, params)).rows[0]) : sumOf(listed);
  return { groups: listed, totals, truncated };
}

/** The instant of the account's oldest row in the log; undefined without rows. */
async function oldestRow(db: Queryable, accountId: string): Promise<Date | undefined> {
  const oldest = await db.query<{ oldest: Date | string | null }>('SELECT min(created_at) AS oldest FROM usage_log WHERE account_id = $1', [accountId]);
  const at = oldest.rows[0]?.oldest;
  return at === null || at === undefined ? undefined : new Date(at);
}

/** The part of the range the half-hour rollups answer for, with the rows they select; undefined when they answer for none of it. */
function halfHourRange(filters: UsageFilterValues, match: ModelMatch | undefined, grouping: UsageGrouping, oldest: Date | undefined, now: Date) {
  const selection = halfHourSelection(filters, match, grouping);
  if (!selection || !filters.from || !filters.to) return undefined;
  const since = halfHoursSince(filters.from, oldest, now);
  return since && since < filters.to ? { from: since, to: filters.to, selection } : undefined;
}

/** UTC days as instants: the first day's midnight and the midnight after the last. */
type WholeDays = { from: Date; to: Date };

/**
 * The UTC days of the range the daily rollups answer for, or undefined when they answer for
 * none. A retention drops the log's oldest rows, whole months and then the default
 * partition's rows up to an instant, while the rollups keep them: only the days after the
 * one holding the account's oldest row are whole in the log.
 */
function rolledUpDays(filters: UsageFilterValues, oldest: Date | undefined): WholeDays | undefined {
  if (filters.status || filters.endpoint || !filters.from || !filters.to || oldest === undefined) return undefined;
  const first = Math.ceil(filters.from.getTime() / DAY_MS) * DAY_MS;
  const end = Math.floor(filters.to.getTime() / DAY_MS) * DAY_MS;
  const from = Math.max(first, Math.floor(oldest.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  return from < end ? { from: new Date(from), to: new Date(end) } : undefined;
}

/** A part of a UTC day that lies in another local day (ownDay) than the rest of it (rollupDay); days by number. */
type MovedPiece = { from: Date; to: Date; ownDay: number; rollupDay: number };
/** The whole UTC days, each with the local day its rollups count in; and the pieces of them to move out of it. */
type DayPieces = { days: string[]; numbers: number[]; moved: MovedPiece[] };

/**
 * Local days from UTC days' rollups: a UTC day cut by local days' starts counts in the
 * local day holding its largest piece, and its other pieces (at most half a day each) are
 * read from the log, added to their own day and taken from that one. In UTC no day is cut;
 * in Paris an hour a day is read, in the zones furthest from UTC half a day.
 */
export function dayPieces(whole: WholeDays, dayStarts: readonly Date[]): DayPieces {
  // width_bucket's number: how many days have begun by `time`.
  const dayAt = (time: number) => dayStarts.filter((start) => start.getTime() <= time).length;
  const pieces: DayPieces = { days: [], numbers: [], moved: [] };
  for (let midnight = whole.from.getTime(); midnight < whole.to.getTime(); midnight += DAY_MS) {
    const cuts = dayStarts.map((start) => start.getTime()).filter((time) => time > midnight && time < midnight + DAY_MS);
    const bounds = [midnight, ...cuts, midnight + DAY_MS];
    const parts = bounds.slice(1).map((to, index) => ({ from: bounds[index] as number, to }));
    const largest = parts.reduce((best, part) => (part.to - part.from > best.to - best.from ? part : best));
    const rollupDay = dayAt(largest.from);
    pieces.days.push(new Date(midnight).toISOString().slice(0, 10));
    pieces.numbers.push(rollupDay);
    for (const part of parts) if (part !== largest) pieces.moved.push({ from: new Date(part.from), to: new Date(part.to), ownDay: dayAt(part.from), rollupDay });
  }
  return pieces;
}

/**
 * The moved pieces' rows, summed per piece: added to the day that holds the piece, taken
 * from the day its UTC day's rollup went to. One index range of the log per piece.
 */
function fromMovedPieces(params: unknown[], filters: UsageFilterValues, match: ModelMatch | undefined, moved: MovedPiece[]): string {
  const pieces = [moved.map((piece) => piece.from.toISOString()), moved.map((piece) => piece.to.toISOString()), moved.map((piece) => piece.ownDay), moved.map((piece) => piece.rollupDay)];
  const [from, to, own, rollup] = pieces.map((values) => `$${params.push(values)}`);
  const conditions = usageConditions(params, { ...filters, from: undefined, to: undefined }, match);
  return `SELECT moved.key, moved.sign * t.requests AS requests, moved.sign * t.input_tokens AS input_tokens, moved.sign * t.output_tokens AS output_tokens,
      moved.sign * t.cost_micros AS cost_micros
    FROM (
      SELECT piece.own_day, piece.rollup_day, count(*) AS requests, sum(u.input_tokens) AS input_tokens, sum(u.output_tokens) AS output_tokens, sum(u.cost_micros) AS cost_micros
      FROM unnest(${from}::timestamptz[], ${to}::timestamptz[], ${own}::int[], ${rollup}::int[]) AS piece(from_at, to_at, own_day, rollup_day)
      -- OFFSET 0 keeps the subquery apart, so it stays one index range per piece.
      CROSS JOIN LATERAL (SELECT input_tokens, output_tokens, cost_micros FROM usage_log WHERE ${conditions} AND created_at >= piece.from_at AND created_at < piece.to_at OFFSET 0) u
      GROUP BY 1, 2
    ) t CROSS JOIN LATERAL (VALUES (t.own_day::text, 1), (t.rollup_day::text, -1)) AS moved(key, sign)`;
}

/** The rollups' part of the group-by: the filters' conditions over usage_daily_rollups, as the log's part names its columns. */
function fromRollups(params: unknown[], filters: UsageFilterValues, match: ModelMatch | undefined, grouping: UsageGrouping, pieces: DayPieces | undefined, whole: WholeDays): string {
  const conditions = ['account_id = $1', `day >= $${params.push(whole.from.toISOString().slice(0, 10))}::date`, `day < $${params.push(whole.to.toISOString().slice(0, 10))}::date`];
  if (filters.keyId) conditions.push(`key_id = $${params.push(filters.keyId)}`);
  // The rollups' model is the name a model search matches.
  if (match && 'text' in match) conditions.push(`strpos(lower(model), lower($${params.push(match.text)})) > 0`);
  else if (match) conditions.push(`model = ANY($${params.push(match.names)}::text[])`);
  if (filters.agentId) conditions.push(`agent_id = $${params.push(filters.agentId)}`);
  // Days: each UTC day in the local day its pieces say.
  const numbered = pieces ? ` JOIN unnest($${params.push(pieces.days)}::date[], $${params.push(pieces.numbers)}::int[]) AS utc(utc_day, number) ON utc.utc_day = day` : '';
  const group = { key: 'key_id::text', model: 'model', agent: 'agent_id', day: 'utc.number::text' }[grouping];
  return `SELECT ${group} AS key, sum(requests) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(spend_micros) AS cost_micros
    FROM usage_daily_rollups${numbered} WHERE ${conditions.join(' AND ')} GROUP BY 1`;
}
