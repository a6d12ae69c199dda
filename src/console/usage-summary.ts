import { usageFiltersOf } from '../billing/usage-filter-schema.ts';
import { groupUsage, type UsageTotals } from '../billing/usage-groups.ts';
import { isTimeZone, localDays } from '../billing/local-days.ts';
import { JunctionError } from '../core/errors.ts';
import { microsToUsd } from '../core/money.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Queryable } from '../store/database.ts';
import { type UsageSummary, UsageSummaryQuerySchema } from './contract/usage.ts';

/** Without `from`, a group-by covers this many days before `to`. */
const DEFAULT_DAYS = 30;
/** A group-by sums the log's rows themselves where the daily rollups cannot answer, so its range is bounded. */
export const SUMMARY_MAX_DAYS = 366;
const DAY_MS = 86_400_000;

/** What rows without a key or without an agent are called, as the Overview names them. */
const NO_KEY = 'console and operator';
const NO_AGENT = 'no agent';

const totalsView = (totals: UsageTotals) => ({
  requests: totals.requests,
  input_tokens: totals.inputTokens,
  output_tokens: totals.outputTokens,
  cost_usd: microsToUsd(totals.costMicros),
});

/**
 * The Usage page's group-by: the rows the page's filters match, grouped by key, model,
 * agent or local day (every day of the range, empty ones too), with the totals of all.
 */
export async function usageSummary(db: Queryable, accountId: string, query: unknown, now: Date, keyNames: Map<string, string>): Promise<UsageSummary> {
  const input = parseInput(UsageSummaryQuerySchema, query, 'query string');
  if (!isTimeZone(input.time_zone)) throw new JunctionError('invalid_request', `Unknown time zone '${input.time_zone}'; send an IANA name such as Europe/Paris.`, { param: 'time_zone' });
  const filters = usageFiltersOf(input);
  const to = filters.to ?? now;
  const from = filters.from ?? new Date(to.getTime() - DEFAULT_DAYS * DAY_MS);
  if (to.getTime() - from.getTime() > SUMMARY_MAX_DAYS * DAY_MS) {
    throw new JunctionError('invalid_request', `Group at most ${SUMMARY_MAX_DAYS} days at a time; narrow 'from' and 'to'.`, { param: 'from' });
  }
  const range = { ...filters, from, to };
  if (input.group_by !== 'day') {
    const result = await groupUsage(db, accountId, range, input.group_by);
    const nameOf = (key: string | null): string => {
      if (input.group_by === 'key') return key === null ? NO_KEY : (keyNames.get(key) ?? key);
      return key ?? NO_AGENT;
    };
    return {
      group_by: input.group_by,
      groups: result.groups.map((group) => ({ key: group.key, name: nameOf(group.key), ...totalsView(group) })),
      totals: totalsView(result.totals),
      truncated: result.truncated,
    };
  }
  const days = localDays(input.time_zone, from, to, SUMMARY_MAX_DAYS + 1);
  const result = await groupUsage(db, accountId, range, 'day', days.starts, now);
  const byNumber = new Map(result.groups.map((group) => [Number(group.key), group]));
  const empty: UsageTotals = { requests: 0, inputTokens: 0, outputTokens: 0, costMicros: 0 };
  return {
    group_by: 'day',
    // width_bucket numbers the days from 1.
    groups: days.days.map((day, index) => ({ key: day, name: day, ...totalsView(byNumber.get(index + 1) ?? empty) })),
    totals: totalsView(result.totals),
    truncated: false,
  };
}
