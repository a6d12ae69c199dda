import { HALF_HOUR_ROLLUP_DAYS } from './half-hour-rollup-retention.ts';
import { cutQuarterHours, daySegments, quarterHourAt } from './half-hour-segments.ts';
import type { UsageFilterValues, UsageGrouping } from './usage-filter-schema.ts';
import { type ModelMatch, usageConditions } from './usage-where.ts';

const DAY_MS = 86_400_000;

type Dimension = 'model' | 'key' | 'agent';
/**
 * The rollups' rows to sum: those of one dimension of the half-hour running sums (migration
 * 0035), with a condition on their names whose values go onto `params`; or the quarter hours
 * per key, model and agent together (0039), under the filters themselves.
 */
export type HalfHourSelection = { dimension: Dimension; names: (params: unknown[]) => string } | { quarterHours: true };

/**
 * The rollups' rows that sum to the filters' rows grouped as asked; undefined when none do.
 * The running sums keep their dimensions apart: they answer days under one filter of key,
 * model or agent, and keys, models or agents under a filter of that same dimension only.
 * Days under filters of two or three kinds come from the quarter hours. Keys, models or
 * agents under a filter of another kind are left to the daily rollups, which hold them in a
 * row a day rather than 96.
 */
export function halfHourSelection(filters: UsageFilterValues, match: ModelMatch | undefined, grouping: UsageGrouping): HalfHourSelection | undefined {
  if (filters.status || filters.endpoint) return undefined;
  const filtered = ([filters.keyId && 'key', match && 'model', filters.agentId && 'agent'] as const).filter((dimension): dimension is Dimension => Boolean(dimension));
  if (grouping === 'day' && filtered.length > 1) return { quarterHours: true };
  const dimension = grouping === 'day' ? (filtered[0] ?? 'model') : grouping;
  if (filtered.some((one) => one !== dimension)) return undefined;
  const { keyId, agentId } = filters;
  if (keyId) return { dimension, names: (params) => `r.name = $${params.push(keyId)}::uuid::text` };
  if (agentId) return { dimension, names: (params) => `r.name = $${params.push(agentId)}` };
  if (match) return { dimension, names: (params) => modelCondition(params, 'r.name', match) };
  return { dimension, names: () => 'true' };
}

/** Each row is under exactly one model name, the one a model search matches. */
const modelCondition = (params: unknown[], column: string, match: ModelMatch): string =>
  'text' in match ? `strpos(lower(${column}), lower($${params.push(match.text)})) > 0` : `${column} = ANY($${params.push(match.names)}::text[])`;

/** The filters of key, model and agent over the quarter hours' names (0039 names them as 0035 does). */
function quarterHourConditions(params: unknown[], filters: UsageFilterValues, match: ModelMatch | undefined): string {
  const conditions = ['true'];
  if (filters.keyId) conditions.push(`r.key_name = $${params.push(filters.keyId)}::uuid::text`);
  if (match) conditions.push(modelCondition(params, 'r.model', match));
  if (filters.agentId) conditions.push(`r.agent_name = $${params.push(filters.agentId)}`);
  return conditions.join(' AND ');
}

/** What a group is made of, as expressions over a table's columns: the instant a day is found by, key, model and agent (null for none). */
export type GroupColumns = { at: string; key: string; model: string; agent: string };
/** The usage log's. */
export const LOG_COLUMNS: GroupColumns = { at: 'created_at', key: 'key_id::text', model: "COALESCE(model, requested_model, 'unknown')", agent: 'agent_id' };
/** The quarter hours' (0039), joined to the instants `q.start` they begin at. */
const QUARTER_HOUR_COLUMNS: GroupColumns = { at: 'q.start', key: "NULLIF(r.key_name, '')", model: 'r.model', agent: "NULLIF(r.agent_name, '')" };

/**
 * The first instant the half-hour rollups answer for: the range's start, or the UTC day
 * after the one holding the account's oldest row in the log (a retention may have cut the
 * log inside that day) when later. Undefined when that lies before the days their retention
 * keeps (the daily rollups answer then), or the account has no rows.
 */
export function halfHoursSince(from: Date, oldest: Date | undefined, now: Date): Date | undefined {
  if (oldest === undefined) return undefined;
  const since = Math.max(from.getTime(), Math.floor(oldest.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  // A day more than the sweep keeps, so a sweep at midnight never takes a day being read.
  const kept = Math.floor(now.getTime() / DAY_MS) * DAY_MS - (HALF_HOUR_ROLLUP_DAYS - 1) * DAY_MS;
  return since >= kept ? new Date(since) : undefined;
}

/** The group a rollup row's sums go to: its day's number, or its name (a key's '' is no key). */
const ROLLUP_GROUP: Record<UsageGrouping, string> = { day: 's.bucket::text', key: "NULLIF(r.name, '')", model: 'r.name', agent: 'r.name' };

/**
 * The range's rows grouped, as the group-by's parts (key, requests, tokens, spend): whole
 * half hours from the rollups; the half hours a day's start or the range's ends cut by
 * quarter hour, from the quarter-hour rollups where whole and from the log where the range's
 * ends cut them. `groupOver` makes the group's expression over a table's columns.
 */
export function fromHalfHours(
  params: unknown[],
  range: UsageFilterValues & { from: Date; to: Date },
  match: ModelMatch | undefined,
  selection: HalfHourSelection,
  grouping: UsageGrouping,
  dayStarts: Date[],
  groupOver: (columns: GroupColumns) => string,
): string[] {
  const parts: string[] = [];
  const totals = 'sum(r.requests) AS requests, sum(r.input_tokens) AS input_tokens, sum(r.output_tokens) AS output_tokens, sum(r.spend_micros) AS cost_micros';
  const segments = daySegments(dayStarts, range.from, range.to);
  if (segments.length > 0) {
    const [days, first, past, bucket] = [segments.map((s) => s.day), segments.map((s) => s.first), segments.map((s) => s.past), segments.map((s) => s.bucket)].map(
      (values) => `$${params.push(values)}`,
    );
    const sums = (sign: string) =>
      (
        [
          ['requests', 'requests'],
          ['input_tokens', 'input_tokens'],
          ['output_tokens', 'output_tokens'],
          ['spend_micros', 'cost_micros'],
        ] as const
      )
        .map(([column, name]) => `${sign}(r.${column}[s.past + 1] - r.${column}[s.first + 1]) AS ${name}`)
        .join(', ');
    const segmentsTable = `unnest(${days}::date[], ${first}::int[], ${past}::int[], ${bucket}::int[]) AS s(day, first, past, bucket)`;
    // The days' range as well, so the rollups are read by index from the first day to the last.
    const sameDays = `r.account_id = $1 AND r.day = s.day AND r.day BETWEEN (${days}::date[])[1] AND (${days}::date[])[array_length(${days}::date[], 1)]`;
    const rollups = (group: string, dimension: Dimension, names: string, sign = '') =>
      `SELECT ${group} AS key, ${sums(sign)} FROM ${segmentsTable} JOIN usage_half_hour_rollups r ON ${sameDays} WHERE r.dimension = '${dimension}' AND ${names}`;
    if ('quarterHours' in selection) {
      // Grouped here: a month of a busy account's quarter hours is thousands of rows.
      parts.push(`SELECT s.bucket::text AS key, ${totals}
        FROM ${segmentsTable} JOIN usage_quarter_hour_rollups r ON ${sameDays} AND r.quarter_hour >= 2 * s.first AND r.quarter_hour < 2 * s.past
        WHERE ${quarterHourConditions(params, range, match)} GROUP BY 1`);
    } else {
      parts.push(rollups(ROLLUP_GROUP[grouping], selection.dimension, selection.names(params)));
      // Rows without an agent have no agent rollup: they are all rows (each has one model) but the agents' ones.
      if (grouping === 'agent' && !range.agentId) parts.push(rollups('NULL', 'model', 'true'), rollups('NULL', 'agent', 'true', '-'));
    }
  }
  const cut = cutQuarterHours(dayStarts, range.from, range.to);
  if (cut.whole.length > 0) {
    parts.push(`SELECT ${groupOver(QUARTER_HOUR_COLUMNS)} AS key, ${totals}
      FROM unnest($${params.push(cut.whole.map((start) => start.toISOString()))}::timestamptz[]) AS q(start)
      JOIN usage_quarter_hour_rollups r ON r.account_id = $1 AND ${quarterHourAt('q.start')}
      WHERE ${quarterHourConditions(params, range, match)} GROUP BY 1`);
  }
  if (cut.partial.length > 0) {
    const conditions = usageConditions(params, range, match);
    parts.push(`SELECT ${groupOver(LOG_COLUMNS)} AS key, count(*) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_micros) AS cost_micros
      FROM unnest($${params.push(cut.partial.map((start) => start.toISOString()))}::timestamptz[]) AS cut(start)
      -- OFFSET 0 keeps the subquery apart, so it stays one index range per cut quarter hour.
      CROSS JOIN LATERAL (SELECT created_at, key_id, model, requested_model, agent_id, input_tokens, output_tokens, cost_micros FROM usage_log
        WHERE ${conditions} AND created_at >= cut.start AND created_at < cut.start + interval '15 minutes' OFFSET 0) u
      GROUP BY 1`);
  }
  return parts;
}
