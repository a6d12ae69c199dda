import type { Queryable } from '../store/database.ts';
import type { UsageFilterValues, UsageGrouping } from './usage-filter-schema.ts';
import { usageWhere } from './usage-where.ts';

/** Requests, tokens and spend of a set of rows. */
export type UsageTotals = { requests: number; inputTokens: number; outputTokens: number; costMicros: number };
/** One group: its key (a key id, a model name, an agent id or a day's label; null for rows without a key or agent). */
export type UsageGroup = UsageTotals & { key: string | null };
export type UsageGroups = { groups: UsageGroup[]; totals: UsageTotals; truncated: boolean };

/** At most this many groups are listed (largest spend first); the totals still count every row. */
export const GROUPS_MAX = 500;

const TOTALS =
  'count(*)::bigint AS requests, COALESCE(sum(input_tokens), 0)::bigint AS input_tokens, COALESCE(sum(output_tokens), 0)::bigint AS output_tokens, COALESCE(sum(cost_micros), 0)::bigint AS cost_micros';

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

/**
 * The filtered rows grouped, with the totals of all of them. Tokens are not in the daily
 * rollups, so groups are summed from the log itself, over the filters' range (the caller
 * bounds it). Days are the caller's local days: `dayStarts` are the instants each begins,
 * ascending, and a row falls in the last day begun at or before it.
 */
export async function groupUsage(db: Queryable, accountId: string, filters: UsageFilterValues, grouping: UsageGrouping, dayStarts: Date[] = []): Promise<UsageGroups> {
  const where = await usageWhere(db, accountId, filters);
  const params = [...where.params];
  const expressions: Record<UsageGrouping, () => string> = {
    key: () => 'key_id::text',
    model: () => "COALESCE(model, requested_model, 'unknown')",
    agent: () => 'agent_id',
    // A day's number (1 = the first); the caller names it.
    day: () => `width_bucket(created_at, $${params.push(dayStarts.map((start) => start.toISOString()))}::timestamptz[])::text`,
  };
  const group = expressions[grouping]();
  const order = grouping === 'day' ? 'min(created_at)' : 'sum(cost_micros) DESC, count(*) DESC, 1';
  const groups = await db.query<TotalsRow & { key: string | null }>(`SELECT ${group} AS key, ${TOTALS} FROM usage_log WHERE ${where.sql} GROUP BY 1 ORDER BY ${order} LIMIT ${GROUPS_MAX + 1}`, params);
  const listed = groups.rows.slice(0, GROUPS_MAX).map((row) => ({ key: row.key, ...totalsOf(row) }));
  const truncated = groups.rows.length > GROUPS_MAX;
  // Every group listed: their sums are the totals, without reading the rows a second time.
  const totals = truncated ? totalsOf((await db.query<TotalsRow>(`SELECT ${TOTALS} FROM usage_log WHERE ${where.sql}`, where.params)).rows[0]) : sumOf(listed);
  return { groups: listed, totals, truncated };
}
