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
 * Where the series are summed from: the half-hour rollups when every day of the range and
 * `from` begin on a half hour (every zone whose offset is whole half hours, UTC included),
 * else the log itself (the few zones a quarter hour off).
 */
export type UsageSource = 'half_hours' | 'log';

export function usageSourceFor(starts: readonly Date[], from: Date): UsageSource {
  return [...starts, from].every((start) => start.getTime() % HALF_HOUR_MS === 0) ? 'half_hours' : 'log';
}

/** The rows of the account since `from` grouped into model, key and agent totals (0035's dimensions and names), from either source. */
const GROUPED: Record<UsageSource, string> = {
  half_hours: `SELECT width_bucket(period_start, $2::timestamptz[]) AS bucket, dimension, name, requests, errors, spend_micros AS spend
    FROM usage_half_hour_rollups WHERE account_id = $1 AND period_start >= $3`,
  log: `SELECT bucket, d.dimension, d.name, requests, errors, spend FROM (
      SELECT width_bucket(created_at, $2::timestamptz[]) AS bucket, COALESCE(model, requested_model, 'unknown') AS model,
        COALESCE(key_id::text, '') AS key_name, agent_id, count(*) AS requests,
        count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')) AS errors, COALESCE(sum(cost_micros), 0) AS spend
      FROM usage_log WHERE account_id = $1 AND created_at >= $3 GROUP BY 1, 2, 3, 4
    ) grouped
    CROSS JOIN LATERAL (VALUES ('model', grouped.model), ('key', grouped.key_name), ('agent', grouped.agent_id)) AS d(dimension, name)
    WHERE d.name IS NOT NULL`,
};

type Row = { bucket: number; dimension: 'model' | 'key' | 'agent'; name: string; requests: string | number; errors: string | number; spend: string | number };

/**
 * The Overview's series over local days: spend per day by model, by key name and by agent,
 * and requests and errors per day, from the account's rows since `from`. `days` and `starts`
 * name the days and the instants they begin, ascending; rows before the first day add to
 * `before`.
 */
export async function localDailyUsage(
  db: Queryable,
  accountId: string,
  days: { days: string[]; starts: Date[] },
  from: Date,
  source: UsageSource = usageSourceFor(days.starts, from),
): Promise<LocalDailyUsage> {
  const result = await db.query<Row>(
    `SELECT g.bucket, g.dimension, CASE WHEN g.dimension = 'key' THEN COALESCE(k.name, '${NO_KEY_NAME}') ELSE g.name END AS name,
       sum(g.requests)::bigint AS requests, sum(g.errors)::bigint AS errors, sum(g.spend)::bigint AS spend
     FROM (${GROUPED[source]}) g
     -- CASE keeps the cast away from model and agent names.
     LEFT JOIN api_keys k ON k.id = CASE WHEN g.dimension = 'key' AND g.name <> '' THEN g.name::uuid END
     GROUP BY 1, 2, 3`,
    [accountId, days.starts.map((start) => start.toISOString()), from.toISOString()],
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
