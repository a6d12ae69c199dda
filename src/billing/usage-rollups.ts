import type { Queryable } from '../store/database.ts';

/**
 * Reads of usage_daily_rollups (migrations 0021, 0036): per account, UTC day, model, key and
 * agent, the requests, errors, spend and tokens of the usage log, kept exact with it in the
 * statements that write it. A month of one account is at most days × models × keys × agents
 * rows; the reads here sum over agents. The Usage page's group-by reads them too
 * (usage-groups.ts); the Overview reads the half-hour rollups (local-daily-usage.ts).
 */

/**
 * The model names (as the rollups name them: COALESCE(model, requested_model, 'unknown'))
 * of the account's rows between `from` and `to` that contain `text` in any case, at most
 * `limit`: a substring search over the few distinct names instead of over every row.
 */
export async function modelNamesMatching(db: Queryable, accountId: string, text: string, range: { from?: Date; to?: Date }, limit: number): Promise<string[]> {
  const params: unknown[] = [accountId, text, limit];
  let days = '';
  // A row's UTC day lies between the UTC days of the range's ends.
  if (range.from) days += ` AND day >= $${params.push(isoDay(range.from))}::date`;
  if (range.to) days += ` AND day <= $${params.push(isoDay(range.to))}::date`;
  const result = await db.query<{ model: string }>(`SELECT DISTINCT model FROM usage_daily_rollups WHERE account_id = $1 AND strpos(lower(model), lower($2)) > 0${days} LIMIT $3`, params);
  return result.rows.map((row) => row.model);
}

const isoDay = (date: Date): string => date.toISOString().slice(0, 10);

export type MonthlySpend = { month: string; requests: number; spend: number };

/** Requests and spend per UTC month, newest first, at most `months` of them (months with requests only). */
export async function monthlySpend(db: Queryable, accountId: string, months: number): Promise<MonthlySpend[]> {
  const result = await db.query<MonthlySpend>(
    `SELECT to_char(date_trunc('month', day), 'YYYY-MM') AS month, sum(requests)::bigint AS requests, sum(spend_micros)::bigint AS spend
     FROM usage_daily_rollups WHERE account_id = $1 GROUP BY 1 ORDER BY 1 DESC LIMIT $2`,
    [accountId, months],
  );
  return result.rows.map((row) => ({ month: row.month, requests: Number(row.requests), spend: Number(row.spend) }));
}
