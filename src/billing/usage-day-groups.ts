import { HALF_HOUR_ROLLUP_DAYS } from './half-hour-rollup-retention.ts';
import { cutHalfHours, daySegments } from './half-hour-segments.ts';
import type { UsageFilterValues } from './usage-filter-schema.ts';
import { type ModelMatch, usageConditions } from './usage-where.ts';

const DAY_MS = 86_400_000;

/**
 * The rows of the half-hour rollups (migration 0035) that sum to the filters' rows, as a
 * condition over `r` whose values go onto `params`; undefined when they cannot: their
 * dimensions are apart, so they answer one filter of key, model or agent, not two together.
 */
export function halfHourSelection(filters: UsageFilterValues, match: ModelMatch | undefined): ((params: unknown[]) => string) | undefined {
  if (filters.status || filters.endpoint || [filters.keyId, match, filters.agentId].filter(Boolean).length > 1) return undefined;
  const { keyId, agentId } = filters;
  if (keyId) return (params) => `r.dimension = 'key' AND r.name = $${params.push(keyId)}::uuid::text`;
  if (agentId) return (params) => `r.dimension = 'agent' AND r.name = $${params.push(agentId)}`;
  // Each row is under exactly one model name, the one a model search matches.
  if (match && 'text' in match) return (params) => `r.dimension = 'model' AND strpos(lower(r.name), lower($${params.push(match.text)})) > 0`;
  if (match) return (params) => `r.dimension = 'model' AND r.name = ANY($${params.push(match.names)}::text[])`;
  return () => `r.dimension = 'model'`;
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

/**
 * The range's rows by local day, as the group-by's parts (key: the day's number, with
 * requests, tokens and spend): whole half hours from the rollups, the half hours a day's
 * start or the range's ends cut from the log. `starts` adds the days' starts as a parameter.
 */
export function fromHalfHours(
  params: unknown[],
  range: UsageFilterValues & { from: Date; to: Date },
  match: ModelMatch | undefined,
  selection: (params: unknown[]) => string,
  dayStarts: Date[],
  starts: () => string,
): string[] {
  const parts: string[] = [];
  const segments = daySegments(dayStarts, range.from, range.to);
  if (segments.length > 0) {
    const [days, first, past, bucket] = [segments.map((s) => s.day), segments.map((s) => s.first), segments.map((s) => s.past), segments.map((s) => s.bucket)].map(
      (values) => `$${params.push(values)}`,
    );
    const difference = (column: string) => `r.${column}[s.past + 1] - r.${column}[s.first + 1]`;
    parts.push(`SELECT s.bucket::text AS key, ${difference('requests')} AS requests, ${difference('input_tokens')} AS input_tokens,
        ${difference('output_tokens')} AS output_tokens, ${difference('spend_micros')} AS cost_micros
      FROM unnest(${days}::date[], ${first}::int[], ${past}::int[], ${bucket}::int[]) AS s(day, first, past, bucket)
      -- The days' range as well, so the rollups are read by index from the first day to the last.
      JOIN usage_half_hour_rollups r ON r.account_id = $1 AND r.day = s.day AND r.day BETWEEN (${days}::date[])[1] AND (${days}::date[])[array_length(${days}::date[], 1)]
      WHERE ${selection(params)}`);
  }
  const cut = cutHalfHours(dayStarts, range.from, range.to);
  if (cut.length > 0) {
    const conditions = usageConditions(params, range, match);
    parts.push(`SELECT width_bucket(u.created_at, ${starts()})::text AS key, count(*) AS requests, sum(u.input_tokens) AS input_tokens,
        sum(u.output_tokens) AS output_tokens, sum(u.cost_micros) AS cost_micros
      FROM unnest($${params.push(cut.map((start) => start.toISOString()))}::timestamptz[]) AS cut(start)
      -- OFFSET 0 keeps the subquery apart, so it stays one index range per cut half hour.
      CROSS JOIN LATERAL (SELECT created_at, input_tokens, output_tokens, cost_micros FROM usage_log
        WHERE ${conditions} AND created_at >= cut.start AND created_at < cut.start + interval '30 minutes' OFFSET 0) u
      GROUP BY 1`);
  }
  return parts;
}
