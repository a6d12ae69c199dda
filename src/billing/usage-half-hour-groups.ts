import { HALF_HOUR_ROLLUP_DAYS } from './half-hour-rollup-retention.ts';
import { cutHalfHours, daySegments } from './half-hour-segments.ts';
import type { UsageFilterValues, UsageGrouping } from './usage-filter-schema.ts';
import { type ModelMatch, usageConditions } from './usage-where.ts';

const DAY_MS = 86_400_000;

type Dimension = 'model' | 'key' | 'agent';
/** The half-hour rollups' rows to sum: one dimension (migration 0035), and a condition on their names whose values go onto `params`. */
export type HalfHourSelection = { dimension: Dimension; names: (params: unknown[]) => string };

/**
 * The half-hour rollups' rows that sum to the filters' rows grouped as asked; undefined when
 * none do. Their dimensions are apart: they answer days under one filter of key, model or
 * agent, and keys, models or agents under a filter of that same dimension only.
 */
export function halfHourSelection(filters: UsageFilterValues, match: ModelMatch | undefined, grouping: UsageGrouping): HalfHourSelection | undefined {
  if (filters.status || filters.endpoint) return undefined;
  const filtered = ([filters.keyId && 'key', match && 'model', filters.agentId && 'agent'] as const).filter((dimension): dimension is Dimension => Boolean(dimension));
  const dimension = grouping === 'day' ? (filtered[0] ?? 'model') : grouping;
  if (filtered.some((one) => one !== dimension)) return undefined;
  const { keyId, agentId } = filters;
  if (keyId) return { dimension, names: (params) => `r.name = $${params.push(keyId)}::uuid::text` };
  if (agentId) return { dimension, names: (params) => `r.name = $${params.push(agentId)}` };
  // Each row is under exactly one model name, the one a model search matches.
  if (match && 'text' in match) return { dimension, names: (params) => `strpos(lower(r.name), lower($${params.push(match.text)})) > 0` };
  if (match) return { dimension, names: (params) => `r.name = ANY($${params.push(match.names)}::text[])` };
  return { dimension, names: () => 'true' };
}

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
 * half hours from the rollups, and from the log the half hours a day's start or the range's
 * ends cut, grouped by `logGroup` (an expression over the log's columns).
 */
export function fromHalfHours(
  params: unknown[],
  range: UsageFilterValues & { from: Date; to: Date },
  match: ModelMatch | undefined,
  selection: HalfHourSelection,
  grouping: UsageGrouping,
  dayStarts: Date[],
  logGroup: () => string,
): string[] {
  const parts: string[] = [];
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
    const rollups = (group: string, dimension: Dimension, names: string, sign = '') =>
      `SELECT ${group} AS key, ${sums(sign)}
        FROM unnest(${days}::date[], ${first}::int[], ${past}::int[], ${bucket}::int[]) AS s(day, first, past, bucket)
        -- The days' range as well, so the rollups are read by index from the first day to the last.
        JOIN usage_half_hour_rollups r ON r.account_id = $1 AND r.day = s.day AND r.day BETWEEN (${days}::date[])[1] AND (${days}::date[])[array_length(${days}::date[], 1)]
        WHERE r.dimension = '${dimension}' AND ${names}`;
    parts.push(rollups(ROLLUP_GROUP[grouping], selection.dimension, selection.names(params)));
    // Rows without an agent have no agent rollup: they are all rows (each has one model) but the agents' ones.
    if (grouping === 'agent' && !range.agentId) parts.push(rollups('NULL', 'model', 'true'), rollups('NULL', 'agent', 'true', '-'));
  }
  const cut = cutHalfHours(dayStarts, range.from, range.to);
  if (cut.length > 0) {
    const conditions = usageConditions(params, range, match);
    parts.push(`SELECT ${logGroup()} AS key, count(*) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_micros) AS cost_micros
      FROM unnest($${params.push(cut.map((start) => start.toISOString()))}::timestamptz[]) AS cut(start)
      -- OFFSET 0 keeps the subquery apart, so it stays one index range per cut half hour.
      CROSS JOIN LATERAL (SELECT created_at, key_id, model, requested_model, agent_id, input_tokens, output_tokens, cost_micros FROM usage_log
        WHERE ${conditions} AND created_at >= cut.start AND created_at < cut.start + interval '30 minutes' OFFSET 0) u
      GROUP BY 1`);
  }
  return parts;
}
