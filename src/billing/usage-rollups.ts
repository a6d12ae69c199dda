import type { Queryable } from '../store/database.ts';

/**
 * Reads of usage_daily_rollups (migrations 0021, 0036): per account, UTC day, model, key and
 * agent, the requests, errors, spend and tokens of the usage log, kept exact with it in the
 * statements that write it. A month of one account is at most days × models × keys × agents
 * rows; the reads here sum over agents. The Usage page's group-by reads them too
 * (usage-groups.ts).
 */

export type DailySpend = { day: string; name: string; spend: number };
export type DailyRequests = { day: string; requests: number; errors: number };
export type SpendTotals = { today: number; month: number };

const DAY = `to_char(day, 'YYYY-MM-DD')`;

/** Spend per day and model (the name the log's row gives, else its requested model) since `since`, days with spend only. */
export async function dailySpendByModel(db: Queryable, accountId: string, since: Date): Promise<DailySpend[]> {
  const result = await db.query<DailySpend>(
    `SELECT ${DAY} AS day, model AS name, sum(spend_micros)::bigint AS spend
     FROM usage_daily_rollups WHERE account_id = $1 AND day >= $2::date
     GROUP BY day, model HAVING sum(spend_micros) > 0 ORDER BY 1, 2`,
    [accountId, isoDay(since)],
  );
  return result.rows;
}

/** Spend per day and key name ("console and operator" for rows without a key) since `since`, days with spend only. */
export async function dailySpendByKey(db: Queryable, accountId: string, since: Date): Promise<DailySpend[]> {
  const result = await db.query<DailySpend>(
    `SELECT ${DAY} AS day, COALESCE(k.name, 'console and operator') AS name, sum(r.spend_micros)::bigint AS spend
     FROM usage_daily_rollups r LEFT JOIN api_keys k ON k.id = r.key_id
     WHERE r.account_id = $1 AND r.day >= $2::date
     GROUP BY 1, 2 HAVING sum(r.spend_micros) > 0 ORDER BY 1, 2`,
    [accountId, isoDay(since)],
  );
  return result.rows;
}

/** Requests and errors per day since `since`, days with requests only. */
export async function dailyRequests(db: Queryable, accountId: string, since: Date): Promise<DailyRequests[]> {
  const result = await db.query<DailyRequests>(
    `SELECT ${DAY} AS day, sum(requests)::int AS requests, sum(errors)::int AS errors
     FROM usage_daily_rollups WHERE account_id = $1 AND day >= $2::date GROUP BY day ORDER BY 1`,
    [accountId, isoDay(since)],
  );
  return result.rows;
}

/** Spend on the UTC day `today` and in the month from `monthStart`. */
export async function spendTotals(db: Queryable, accountId: string, today: Date, monthStart: Date): Promise<SpendTotals> {
  const result = await db.query<SpendTotals>(
    `SELECT COALESCE(sum(spend_micros) FILTER (WHERE day >= $2::date), 0)::bigint AS today, COALESCE(sum(spend_micros), 0)::bigint AS month
     FROM usage_daily_rollups WHERE account_id = $1 AND day >= $3::date`,
    [accountId, isoDay(today), isoDay(monthStart)],
  );
  const row = result.rows[0];
  return { today: Number(row?.today ?? 0), month: Number(row?.month ?? 0) };
}

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
