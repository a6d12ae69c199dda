import type { Queryable } from '../store/database.ts';

/** Spend of one day under one name (a model, a key or an agent). */
export type DailySpend = { day: string; name: string; spend: number };
export type DailyRequests = { day: string; requests: number; errors: number };

export type LocalDailyUsage = {
  byModel: DailySpend[];
  byKey: DailySpend[];
  byAgent: DailySpend[];
  requests: DailyRequests[];
  /** Spend of the rows before the first day (from `from`): the part of the month the days leave out. */
  before: number;
};

/** What rows without a key are called, as the console names them everywhere. */
export const NO_KEY_NAME = 'console and operator';

/** The length of a period of usage_half_hour_rollups (migration 0035). */
export const HALF_HOUR_MS = 1_800_000;

/**
 * The half hours a day boundary (or `from`) falls inside rather than at their start: their
 * rows are split between two days, so they are read from the log, and every other half hour
 * from the rollups. None in a zone whose offset is whole half hours (UTC included); one a
 * day in the zones a quarter hour off.
 */
export function cutHalfHours(starts: readonly Date[], from: Date): Date[] {
  const cut = [...starts, from].map((start) => start.getTime()).filter((time) => time % HALF_HOUR_MS !== 0);
  return [...new Set(cut.map((time) => Math.floor(time / HALF_HOUR_MS) * HALF_HOUR_MS))].map((time) => new Date(time));
}

/**
 * The account's rows since $3 grouped into model, key and agent totals (0035's dimensions and
 * names) by day ($2 the days' starts): the rollups' whole half hours from $4 (the half hour
 * holding $3) except the cut ones ($5), and the log's rows in the cut ones.
 */
const GROUPED = `SELECT width_bucket(period_start, $2::timestamptz[]) AS bucket, dimension, name, requests, errors, spend_micros AS spend
    FROM usage_half_hour_rollups WHERE account_id = $1 AND period_start >= $4 AND period_start <> ALL ($5::timestamptz[])
  UNION ALL
  SELECT bucket, d.dimension, d.name, requests, errors, spend FROM (
      SELECT width_bucket(u.created_at, $2::timestamptz[]) AS bucket, COALESCE(u.model, u.requested_model, 'unknown') AS model,
        COALESCE(u.key_id::text, '') AS key_name, u.agent_id, count(*) AS requests,
        count(*) FILTER (WHERE u.status NOT IN ('success', 'deferred_billing')) AS errors, COALESCE(sum(u.cost_micros), 0) AS spend
      FROM unnest($5::timestamptz[]) AS cut(start)
      JOIN usage_log u ON u.account_id = $1 AND u.created_at >= cut.start AND u.created_at < cut.start + interval '30 minutes' AND u.created_at >= $3
      GROUP BY 1, 2, 3, 4
    ) grouped
    CROSS JOIN LATERAL (VALUES ('model', grouped.model), ('key', grouped.key_name), ('agent', grouped.agent_id)) AS d(dimension, name)
    WHERE d.name IS NOT NULL`;

type Row = { bucket: number; dimension: 'model' | 'key' | 'agent'; name: string; requests: string | number; errors: string | number; spend: string | number };

/**
 * The Overview's series over local days: spend per day by model, by key name and by agent,
 * and requests and errors per day, from the account's rows since `from`. `days` and `starts`
 * name the days and the instants they begin, ascending; rows before the first day add to
 * `before`.
 */
export async function localDailyUsage(db: Queryable, accountId: string, days: { days: string[]; starts: Date[] }, from: Date): Promise<LocalDailyUsage> {
  const fromHalfHour = new Date(Math.floor(from.getTime() / HALF_HOUR_MS) * HALF_HOUR_MS);
  const result = await db.query<Row>(
    `SELECT g.bucket, g.dimension, CASE WHEN g.dimension = 'key' THEN COALESCE(k.name, '${NO_KEY_NAME}') ELSE g.name END AS name,
       sum(g.requests)::bigint AS requests, sum(g.errors)::bigint AS errors, sum(g.spend)::bigint AS spend
     FROM (${GROUPED}) g
     -- CASE keeps the cast away from model and agent names.
     LEFT JOIN api_keys k ON k.id = CASE WHEN g.dimension = 'key' AND g.name <> '' THEN g.name::uuid END
     GROUP BY 1, 2, 3`,
    [accountId, days.starts.map((start) => start.toISOString()), from.toISOString(), fromHalfHour.toISOString(), cutHalfHours(days.starts, from).map((start) => start.toISOString())],
  );
  const spend = { model: new Map<string, number>(), key: new Map<string, number>(), agent: new Map<string, number>() };
  const requests = new Map<string, { requests: number; errors: number }>();
  let before = 0;
  for (const row of result.rows) {
    // width_bucket numbers the days from 1; 0 is before the first.
    const day = days.days[Number(row.bucket) - 1];
    if (day === undefined) {
      // Each row of the log is in every dimension's totals: its model's holds them all once.
      if (row.dimension === 'model') before += Number(row.spend);
      continue;
    }
    const id = `${day}\u0000${row.name}`;
    spend[row.dimension].set(id, (spend[row.dimension].get(id) ?? 0) + Number(row.spend));
    if (row.dimension !== 'model') continue;
    const counts = requests.get(day) ?? { requests: 0, errors: 0 };
    requests.set(day, { requests: counts.requests + Number(row.requests), errors: counts.errors + Number(row.errors) });
  }
  const points = (sums: Map<string, number>): DailySpend[] =>
    [...sums]
      .filter(([, total]) => total > 0)
      .map(([id, total]) => {
        const [day = '', name = ''] = id.split('\u0000');
        return { day, name, spend: total };
      })
      .sort((a, b) => a.day.localeCompare(b.day) || a.name.localeCompare(b.name));
  return {
    byModel: points(spend.model),
    byKey: points(spend.key),
    byAgent: points(spend.agent),
    requests: [...requests].map(([day, counts]) => ({ day, ...counts })).sort((a, b) => a.day.localeCompare(b.day)),
    before,
  };
}
