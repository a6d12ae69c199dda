import type { FastifyInstance } from 'fastify';
import { microsToUsd } from '../core/money.ts';
import { getCreditSummary } from '../credits/credit-repository.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import type { Overview } from './contract/overview.ts';

export type OverviewDeps = { db: Database; now: () => Date; settle: () => Promise<void> };

const DAYS = 30;
const dayKey = (date: Date): string => date.toISOString().slice(0, 10);

/** Balance, spend today and this month, and 30 days of spend (by model, by key), requests and errors. */
export async function overviewRoutes(app: FastifyInstance, deps: OverviewDeps): Promise<void> {
  app.get('/overview', { preHandler: requireConsoleUser(deps.db, deps.now) }, async (request): Promise<Overview> => {
    const accountId = consoleCaller(request).accountId;
    await deps.settle();
    const now = deps.now();
    const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const since = new Date(today.getTime() - (DAYS - 1) * 86_400_000);
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const days = Array.from({ length: DAYS }, (_, index) => dayKey(new Date(since.getTime() + index * 86_400_000)));

    const [credit, byModel, byKey, requests, spend] = await Promise.all([
      getCreditSummary(deps.db, accountId),
      deps.db.query<{ day: string; name: string; spend: number }>(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, COALESCE(model, requested_model, 'unknown') AS name, sum(cost_micros)::bigint AS spend
         FROM usage_log WHERE account_id = $1 AND created_at >= $2 AND cost_micros > 0 GROUP BY 1, 2 ORDER BY 1, 2`,
        [accountId, since],
      ),
      deps.db.query<{ day: string; name: string; spend: number }>(
        `SELECT to_char(u.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, COALESCE(k.name, 'console and operator') AS name, sum(u.cost_micros)::bigint AS spend
         FROM usage_log u LEFT JOIN api_keys k ON k.id = u.key_id
         WHERE u.account_id = $1 AND u.created_at >= $2 AND u.cost_micros > 0 GROUP BY 1, 2 ORDER BY 1, 2`,
        [accountId, since],
      ),
      deps.db.query<{ day: string; requests: number; errors: number }>(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS requests,
           (count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')))::int AS errors
         FROM usage_log WHERE account_id = $1 AND created_at >= $2 GROUP BY 1 ORDER BY 1`,
        [accountId, since],
      ),
      deps.db.query<{ today: number; month: number }>(
        `SELECT COALESCE(sum(cost_micros) FILTER (WHERE created_at >= $2), 0)::bigint AS today, COALESCE(sum(cost_micros), 0)::bigint AS month
         FROM usage_log WHERE account_id = $1 AND created_at >= $3`,
        [accountId, today, monthStart],
      ),
    ]);
    const point = (row: { day: string; name: string; spend: number }) => ({ day: row.day, name: row.name, spend_usd: microsToUsd(Number(row.spend)) });
    return {
      balance: {
        usd: microsToUsd(credit.grantedMicros - credit.usageMicros),
        granted_usd: microsToUsd(credit.grantedMicros),
        used_usd: microsToUsd(credit.usageMicros),
        reserved_usd: microsToUsd(credit.reservedMicros),
        by_currency: credit.byCurrency.map((entry) => ({ currency: entry.currency, amount: entry.amount, usd: microsToUsd(Number(entry.usdMicros)) })),
      },
      spend_today_usd: microsToUsd(Number(spend.rows[0]?.today ?? 0)),
      spend_month_usd: microsToUsd(Number(spend.rows[0]?.month ?? 0)),
      days,
      spend_by_model: byModel.rows.map(point),
      spend_by_key: byKey.rows.map(point),
      requests: requests.rows.map((row) => ({ day: row.day, requests: row.requests, errors: row.errors })),
    };
  });
}
