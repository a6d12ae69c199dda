import type { FastifyInstance } from 'fastify';
import { isTimeZone, localDays } from '../billing/local-days.ts';
import { type DailySpend, localDailyUsage } from '../billing/local-daily-usage.ts';
import { JunctionError } from '../core/errors.ts';
import { microsToUsd } from '../core/money.ts';
import { getCreditSummary } from '../credits/credit-repository.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database, Queryable } from '../store/database.ts';
import { accountReadsOf } from '../store/reporting-reads.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { type Overview, OverviewQuerySchema } from './contract/overview.ts';

export type OverviewDeps = { db: Database; now: () => Date; settle: () => Promise<void> };

const DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * The last 30 days of `zone` (today last), and the instant its month began. Computed from
 * a few more days back, so a clock change in between never leaves one out.
 */
function daysOf(zone: string, now: Date): { days: string[]; starts: Date[]; monthStart: Date } {
  const all = localDays(zone, new Date(now.getTime() - (DAYS + 3) * DAY_MS), now, DAYS + 10);
  const today = all.days.at(-1) ?? '';
  const monthStart = all.starts[all.days.indexOf(`${today.slice(0, 7)}-01`)] ?? all.starts[0] ?? now;
  return { days: all.days.slice(-DAYS), starts: all.starts.slice(-DAYS), monthStart };
}

/** The series, with spend today and this month: the month may begin before the 30 days do. */
async function seriesOf(reads: Queryable, accountId: string, range: { days: string[]; starts: Date[]; monthStart: Date }) {
  const from = new Date(Math.min(range.monthStart.getTime(), (range.starts[0] as Date).getTime()));
  const usage = await localDailyUsage(reads, accountId, range, from);
  const today = range.days.at(-1);
  const monthFirst = `${today?.slice(0, 7)}-01`;
  const sum = (predicate: (day: string) => boolean) => usage.byModel.filter((point) => predicate(point.day)).reduce((total, point) => total + point.spend, 0);
  return { ...usage, today: sum((day) => day === today), month: usage.before + sum((day) => day >= monthFirst) };
}

/** Balance, spend today and this month, and 30 days of spend (by model, by key, by agent), requests and errors, in the browser's days. */
export async function overviewRoutes(app: FastifyInstance, deps: OverviewDeps): Promise<void> {
  app.get('/overview', { preHandler: requireConsoleUser(deps.db, deps.now) }, async (request): Promise<Overview> => {
    const accountId = consoleCaller(request).accountId;
    const { time_zone: zone } = parseInput(OverviewQuerySchema, request.query, 'query string');
    if (!isTimeZone(zone)) throw new JunctionError('invalid_request', `Unknown time zone '${zone}'; send an IANA name such as Europe/Paris.`, { param: 'time_zone' });
    await deps.settle();
    const range = daysOf(zone, deps.now());

    // One reading connection for the page's queries, in turn: a page never takes several.
    const [credit, series] = await accountReadsOf(deps.db, accountId).session(async (reads) => [await getCreditSummary(reads, accountId), await seriesOf(reads, accountId, range)] as const);
    const point = (row: DailySpend) => ({ day: row.day, name: row.name, spend_usd: microsToUsd(Number(row.spend)) });
    return {
      balance: {
        usd: microsToUsd(credit.grantedMicros - credit.usageMicros),
        granted_usd: microsToUsd(credit.grantedMicros),
        used_usd: microsToUsd(credit.usageMicros),
        reserved_usd: microsToUsd(credit.reservedMicros),
        by_currency: credit.byCurrency.map((entry) => ({ currency: entry.currency, amount: entry.amount, usd: microsToUsd(Number(entry.usdMicros)) })),
      },
      spend_today_usd: microsToUsd(series.today),
      spend_month_usd: microsToUsd(series.month),
      days: range.days,
      spend_by_model: series.byModel.map(point),
      spend_by_key: series.byKey.map(point),
      spend_by_agent: series.byAgent.map(point),
      requests: series.requests.map((row) => ({ day: row.day, requests: Number(row.requests), errors: Number(row.errors) })),
    };
  });
}
