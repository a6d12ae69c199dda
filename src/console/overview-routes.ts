import type { FastifyInstance } from 'fastify';
import { microsToUsd } from '../core/money.ts';
import { dailyRequests, dailySpendByKey, dailySpendByModel, spendTotals } from '../billing/usage-rollups.ts';
import { getCreditSummary } from '../credits/credit-repository.ts';
import type { Database } from '../store/database.ts';
import { reportingReadsOf } from '../store/reporting-reads.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import type { Overview } from './contract/overview.ts';

export type OverviewDeps = { db: Database; now: () => Date; settle: () => Promise<void> };

const DAYS = 30;
const dayKey = (date: Date): string => date.toISOString().slice(0, 10);

/** Balance, spend today and this month, and 30 days of spend (by model, by key), requests and errors, from the daily rollups. */
export async function overviewRoutes(app: FastifyInstance, deps: OverviewDeps): Promise<void> {
  app.get('/overview', { preHandler: requireConsoleUser(deps.db, deps.now) }, async (request): Promise<Overview> => {
    const accountId = consoleCaller(request).accountId;
    await deps.settle();
    const now = deps.now();
    const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const since = new Date(today.getTime() - (DAYS - 1) * 86_400_000);
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const days = Array.from({ length: DAYS }, (_, index) => dayKey(new Date(since.getTime() + index * 86_400_000)));

    // One reading connection for the page's queries, in turn: a page never takes several.
    const [credit, byModel, byKey, requests, spend] = await reportingReadsOf(deps.db).session(
      async (reads) =>
        [
          await getCreditSummary(reads, accountId),
          await dailySpendByModel(reads, accountId, since),
          await dailySpendByKey(reads, accountId, since),
          await dailyRequests(reads, accountId, since),
          await spendTotals(reads, accountId, today, monthStart),
        ] as const,
    );
    const point = (row: { day: string; name: string; spend: number }) => ({ day: row.day, name: row.name, spend_usd: microsToUsd(Number(row.spend)) });
    return {
      balance: {
        usd: microsToUsd(credit.grantedMicros - credit.usageMicros),
        granted_usd: microsToUsd(credit.grantedMicros),
        used_usd: microsToUsd(credit.usageMicros),
        reserved_usd: microsToUsd(credit.reservedMicros),
        by_currency: credit.byCurrency.map((entry) => ({ currency: entry.currency, amount: entry.amount, usd: microsToUsd(Number(entry.usdMicros)) })),
      },
      spend_today_usd: microsToUsd(spend.today),
      spend_month_usd: microsToUsd(spend.month),
      days,
      spend_by_model: byModel.map(point),
      spend_by_key: byKey.map(point),
      requests: requests.map((row) => ({ day: row.day, requests: Number(row.requests), errors: Number(row.errors) })),
    };
  });
}
