import type { Queryable } from '../store/database.ts';
import { cutQuarterHours, daySegments, quarterHourAt } from './half-hour-segments.ts';

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

/** The rollups' pieces of UTC days ($2: days ascending, $3…$5: first and past half hours, day numbers) in model, key and agent totals (0035's dimensions and names). */
const FROM_ROLLUPS = `SELECT s.bucket, r.dimension, r.name, r.requests[s.past + 1] - r.requests[s.first + 1] AS requests,
      r.errors[s.past + 1] - r.errors[s.first + 1] AS errors, r.spend_micros[s.past + 1] - r.spend_micros[s.first + 1] AS spend
    FROM unnest($2::date[], $3::int[], $4::int[], $5::int[]) AS s(day, first, past, bucket)
    -- The days' range as well, so the rollups are read by index from the first day to the last.
    JOIN usage_half_hour_rollups r ON r.account_id = $1 AND r.day = s.day AND r.day BETWEEN ($2::date[])[1] AND ($2::date[])[array_length($2::date[], 1)]
    WHERE r.requests[s.past + 1] > r.requests[s.first + 1]`;

/** Totals per day number, model, key name ('' for none) and agent, under each of 0035's dimensions and names. */
const perDimension = (grouped: string) => `SELECT bucket, d.dimension, d.name, requests, errors, spend FROM (${grouped}) grouped
    CROSS JOIN LATERAL (VALUES ('model', grouped.model), ('key', grouped.key_name), ('agent', grouped.agent_id)) AS d(dimension, name)
    WHERE d.name IS NOT NULL`;

/** The quarter-hour rollups' rows of the cut half hours' whole quarter hours (`quarters`), numbered by the days' starts (`starts`). */
const fromWholeQuarterHours = (quarters: string, starts: string) =>
  perDimension(`SELECT width_bucket(q.start, ${starts}) AS bucket, r.model, r.key_name, NULLIF(r.agent_name, '') AS agent_id,
      sum(r.requests) AS requests, sum(r.errors) AS errors, sum(r.spend_micros) AS spend
    FROM unnest(${quarters}) AS q(start)
    JOIN usage_quarter_hour_rollups r ON r.account_id = $1 AND ${quarterHourAt('q.start')}
    GROUP BY 1, 2, 3, 4`);

/**
 * The log's rows since `from` in the quarter hours it cuts (`quarters`), numbered by the days'
 * starts: one index range of the log per quarter hour.
 */
const fromPartialQuarterHours = (quarters: string, starts: string, from: string) =>
  perDimension(`SELECT width_bucket(u.created_at, ${starts}) AS bucket, COALESCE(u.model, u.requested_model, 'unknown') AS model,
      COALESCE(u.key_id::text, '') AS key_name, u.agent_id, count(*) AS requests,
      count(*) FILTER (WHERE u.status NOT IN ('success', 'deferred_billing')) AS errors, COALESCE(sum(u.cost_micros), 0) AS spend
    FROM unnest(${quarters}) AS cut(start)
    CROSS JOIN LATERAL (
      SELECT created_at, model, requested_model, key_id, agent_id, status, cost_micros FROM usage_log
      WHERE account_id = $1 AND created_at >= cut.start AND created_at < cut.start + interval '15 minutes' AND created_at >= ${from}
      -- OFFSET 0 keeps the subquery apart, so it stays one index range per quarter hour.
      OFFSET 0
    ) u
    GROUP BY 1, 2, 3, 4`);

/** One day's total under one name: [day number, dimension, name, requests, errors, spend]. */
type Total = [number, 'model' | 'key' | 'agent', string, number, number, number];

/**
 * The Overview's series over local days: spend per day by model, by key name and by agent,
 * and requests and errors per day, from the account's rows since `from`. `days` and `starts`
 * name the days and the instants they begin, ascending; rows before the first day add to
 * `before`.
 */
export async function localDailyUsage(db: Queryable, accountId: string, days: { days: string[]; starts: Date[] }, from: Date): Promise<LocalDailyUsage> {
  const segments = daySegments(days.starts, from);
  const cut = cutQuarterHours(days.starts, from);
  const params: unknown[] = [
    accountId,
    segments.map((segment) => segment.day),
    segments.map((segment) => segment.first),
    segments.map((segment) => segment.past),
    segments.map((segment) => segment.bucket),
  ];
  // Only zones a quarter hour off cut half hours: the others read the running sums alone.
  const parts = [FROM_ROLLUPS];
  let startsParam: string | undefined;
  const starts = () => (startsParam ??= `$${params.push(days.starts.map((start) => start.toISOString()))}::timestamptz[]`);
  const instants = (quarters: Date[]) => `$${params.push(quarters.map((start) => start.toISOString()))}::timestamptz[]`;
  if (cut.whole.length > 0) parts.push(fromWholeQuarterHours(instants(cut.whole), starts()));
  if (cut.partial.length > 0) parts.push(fromPartialQuarterHours(instants(cut.partial), starts(), `$${params.push(from.toISOString())}::timestamptz`));
  // One JSON value, not a row per total: on the embedded engine, handing over two thousand
  // rows took several times as long as computing them, and the gateway's statements wait
  // behind it.
  const result = await db.query<{ totals: string }>(
    `SELECT COALESCE(json_agg(json_build_array(bucket, dimension, name, requests, errors, spend)), '[]')::text AS totals FROM (
       SELECT g.bucket, g.dimension, CASE WHEN g.dimension = 'key' THEN COALESCE(k.name, '${NO_KEY_NAME}') ELSE g.name END AS name,
         sum(g.requests) AS requests, sum(g.errors) AS errors, sum(g.spend) AS spend
       FROM (${parts.join(' UNION ALL ')}) g
       -- CASE keeps the cast away from model and agent names.
       LEFT JOIN api_keys k ON k.id = CASE WHEN g.dimension = 'key' AND g.name <> '' THEN g.name::uuid END
       GROUP BY 1, 2, 3
     ) totals`,
    params,
  );
  const spend = { model: new Map<string, number>(), key: new Map<string, number>(), agent: new Map<string, number>() };
  const requests = new Map<string, { requests: number; errors: number }>();
  let before = 0;
  for (const [bucket, dimension, name, dayRequests, dayErrors, daySpend] of JSON.parse(result.rows[0]?.totals ?? '[]') as Total[]) {
    // width_bucket numbers the days from 1; 0 is before the first.
    const day = days.days[bucket - 1];
    if (day === undefined) {
      // Each row of the log is in every dimension's totals: its model's holds them all once.
      if (dimension === 'model') before += daySpend;
      continue;
    }
    // Two keys may share a name: their totals add up under it.
    const id = `${day}\u0000${name}`;
    spend[dimension].set(id, (spend[dimension].get(id) ?? 0) + daySpend);
    if (dimension !== 'model') continue;
    const counts = requests.get(day) ?? { requests: 0, errors: 0 };
    requests.set(day, { requests: counts.requests + dayRequests, errors: counts.errors + dayErrors });
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
