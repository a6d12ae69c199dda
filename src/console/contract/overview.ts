import { z } from 'zod';

export const DailySeriesPointSchema = z.object({ day: z.string(), name: z.string(), spend_usd: z.number() });
export const DailyRequestsSchema = z.object({ day: z.string(), requests: z.number(), errors: z.number() });

export const OverviewSchema = z.object({
  balance: z.object({
    usd: z.number(),
    granted_usd: z.number(),
    used_usd: z.number(),
    reserved_usd: z.number(),
    by_currency: z.array(z.object({ currency: z.string(), amount: z.string(), usd: z.number() })),
  }),
  spend_today_usd: z.number(),
  spend_month_usd: z.number(),
  /** The last 30 days of the query's time zone, oldest first (`YYYY-MM-DD`). */
  days: z.array(z.string()),
  spend_by_model: z.array(DailySeriesPointSchema),
  spend_by_key: z.array(DailySeriesPointSchema),
  /** Spend of agents' calls by agent id (calls made outside an agent are in no series here). */
  spend_by_agent: z.array(DailySeriesPointSchema),
  requests: z.array(DailyRequestsSchema),
});
export type Overview = z.infer<typeof OverviewSchema>;

/** The browser's time zone (an IANA name): days, today and this month are its own. */
export const OverviewQuerySchema = z.object({ time_zone: z.string().max(64).default('UTC') });
