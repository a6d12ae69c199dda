import type { Queryable } from '../store/database.ts';
import type { DailyRequests, DailySpend } from './usage-rollups.ts';

export type LocalDailyUsage = {
  byModel: DailySpend[];
  byKey: DailySpend[];
  requests: DailyRequests[];
  /** Spend of the rows before the first day (from `from`): the part of the month the days leave out. */
  before: number;
};

type Row = { bucket: number; model: string; key_name: string; requests: string | number; errors: string | number; spend: string | number };

/**
 * The Overview's series over days that are not UTC days (the daily rollups hold UTC days
 * only): the usage log from `from`, grouped by the day each row falls in, by model and by
 * key name. `days` and `starts` name the days and the instants they begin, ascending.
 */
export async function localDailyUsage(db: Queryable, accountId: string, days: { days: string[]; starts: Date[] }, from: Date): Promise<LocalDailyUsage> {
  const result = await db.query<Row>(
    `SELECT width_bucket(u.created_at, $2::timestamptz[]) AS bucket, COALESCE(u.model, u.requested_model, 'unknown') AS model,
       COALESCE(k.name, 'console and operator') AS key_name, count(*)::bigint AS requests,
       count(*) FILTER (WHERE u.status NOT IN ('success', 'deferred_billing'))::bigint AS errors, COALESCE(sum(u.cost_micros), 0)::bigint AS spend
     FROM usage_log u LEFT JOIN api_keys k ON k.id = u.key_id
     WHERE u.account_id = $1 AND u.created_at >= $3
     GROUP BY 1, 2, 3`,
    [accountId, days.starts.map((start) => start.toISOString()), from.toISOString()],
  );
  const byModel = new Map<string, number>();
  const byKey = new Map<string, number>();
  const requests = new Map<string, { requests: number; errors: number }>();
  let before = 0;
  for (const row of result.rows) {
    const spend = Number(row.spend);
    // width_bucket numbers the days from 1; 0 is before the first.
    const day = days.days[Number(row.bucket) - 1];
    if (day === undefined) {
      before += spend;
      continue;
    }
    byModel.set(`${day}\u0000${row.model}`, (byModel.get(`${day}\u0000${row.model}`) ?? 0) + spend);
    byKey.set(`${day}\u0000${row.key_name}`, (byKey.get(`${day}\u0000${row.key_name}`) ?? 0) + spend);
    const counts = requests.get(day) ?? { requests: 0, errors: 0 };
    requests.set(day, { requests: counts.requests + Number(row.requests), errors: counts.errors + Number(row.errors) });
  }
  const points = (sums: Map<string, number>): DailySpend[] =>
    [...sums]
      .filter(([, spend]) => spend > 0)
      .map(([id, spend]) => {
        const [day = '', name = ''] = id.split('\u0000');
        return { day, name, spend };
      })
      .sort((a, b) => a.day.localeCompare(b.day) || a.name.localeCompare(b.name));
  return {
    byModel: points(byModel),
    byKey: points(byKey),
    requests: [...requests].map(([day, counts]) => ({ day, ...counts })).sort((a, b) => a.day.localeCompare(b.day)),
    before,
  };
}
