import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HALF_HOUR_ROLLUP_DAYS, sweepHalfHourRollups, sweepQuarterHourRollups } from '../../src/billing/half-hour-rollup-retention.ts';
import type { Database, Queryable } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { migrationsBefore } from '../support/earlier-migrations.ts';
import { freshStorage } from '../support/test-database.ts';

/**
 * The half-hour rollups the Overview and the Usage page's days read (migrations 0035 and
 * 0037, and 0039's quarter hours per key, model and agent) stay exact with the usage log,
 * half hour by half hour, tokens included: backfilled
 * from a log written before them (its last 62 days), kept with every statement's rows
 * after, concurrent ones too, and swept when older than their retention. On PGlite, and on
 * PostgreSQL with DATABASE_URL.
 */
let storage: Awaited<ReturnType<typeof freshStorage>>;
let db: Database;
let earlier: ReturnType<typeof migrationsBefore>;
let beforeTokens: ReturnType<typeof migrationsBefore>;
let beforeQuarterHours: ReturnType<typeof migrationsBefore>;
const owners = [randomUUID(), randomUUID()];
const DAY_MS = 86_400_000;

beforeAll(async () => {
  storage = await freshStorage();
  db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir: storage.dataDir });
  earlier = migrationsBefore(35);
  beforeTokens = migrationsBefore(37);
  beforeQuarterHours = migrationsBefore(39);
});
afterAll(async () => {
  await db?.close();
  await storage?.drop();
  earlier?.remove();
  beforeTokens?.remove();
  beforeQuarterHours?.remove();
});

/** Each half hour of the rollups since the UTC day `since` (its running sums differenced), next to the log's rows grouped the same way, ordered alike. */
async function rollupsAndLog(reads: Queryable, since: string): Promise<{ rollups: unknown[]; log: unknown[] }> {
  const order = 'ORDER BY account_id, day, half_hour, dimension, name';
  const rollups = await reads.query(
    `SELECT account_id, day::text AS day, i AS half_hour, dimension, name, (requests[i + 2] - requests[i + 1])::int AS requests,
       (errors[i + 2] - errors[i + 1])::int AS errors, (spend_micros[i + 2] - spend_micros[i + 1])::float8 AS spend,
       (input_tokens[i + 2] - input_tokens[i + 1])::int AS input_tokens, (output_tokens[i + 2] - output_tokens[i + 1])::int AS output_tokens
     FROM usage_half_hour_rollups CROSS JOIN generate_series(0, 47) AS i
     WHERE day >= $1::date AND requests[i + 2] > requests[i + 1] ${order}`,
    [since],
  );
  const log = await reads.query(
    `SELECT account_id, (created_at AT TIME ZONE 'UTC')::date::text AS day, (floor(extract(epoch FROM created_at) / 1800)::bigint % 48)::int AS half_hour,
       dimension, name, count(*)::int AS requests, (count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')))::int AS errors, sum(cost_micros)::float8 AS spend,
       sum(input_tokens)::int AS input_tokens, sum(output_tokens)::int AS output_tokens
     FROM usage_log
     CROSS JOIN LATERAL (VALUES ('model', COALESCE(model, requested_model, 'unknown')), ('key', COALESCE(key_id::text, '')), ('agent', agent_id)) AS d(dimension, name)
     WHERE name IS NOT NULL AND created_at >= $1::date::timestamp AT TIME ZONE 'UTC' GROUP BY 1, 2, 3, 4, 5 ${order}`,
    [since],
  );
  return { rollups: rollups.rows, log: log.rows };
}

/** Each quarter hour's totals since the UTC day `since`, next to the log's rows grouped by quarter hour, key, model and agent, ordered alike. */
async function quarterHoursAndLog(reads: Queryable, since: string): Promise<{ quarterHours: unknown[]; log: unknown[] }> {
  const order = 'ORDER BY 1, 2, 3, 4, 5, 6';
  const quarterHours = await reads.query(
    `SELECT account_id, day::text AS day, quarter_hour::int AS quarter_hour, key_name, model, agent_name, requests::int AS requests, errors::int AS errors, spend_micros::float8 AS spend,
       input_tokens::int AS input_tokens, output_tokens::int AS output_tokens
     FROM usage_quarter_hour_rollups WHERE day >= $1::date ${order}`,
    [since],
  );
  const log = await reads.query(
    `SELECT account_id, (created_at AT TIME ZONE 'UTC')::date::text AS day, (floor(extract(epoch FROM created_at) / 900)::bigint % 96)::int AS quarter_hour,
       COALESCE(key_id::text, '') AS key_name, COALESCE(model, requested_model, 'unknown') AS model, COALESCE(agent_id, '') AS agent_name, count(*)::int AS requests,
       (count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')))::int AS errors, sum(cost_micros)::float8 AS spend, sum(input_tokens)::int AS input_tokens, sum(output_tokens)::int AS output_tokens
     FROM usage_log WHERE created_at >= $1::date::timestamp AT TIME ZONE 'UTC' GROUP BY 1, 2, 3, 4, 5, 6 ${order}`,
    [since],
  );
  return { quarterHours: quarterHours.rows, log: log.rows };
}

const utcDay = (time: number): string => new Date(time).toISOString().slice(0, 10);

/** `count` rows of both accounts, a row every `stepMinutes` from `start`: models (one unnamed), keys and none, agents and none, every status. */
const insertRows = (prefix: string, count: number, start: Date, stepMinutes: number) =>
  db.query(
    `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, model, requested_model, status, cost_micros, input_tokens, output_tokens, agent_id, created_at)
     SELECT $1 || g, ($2::uuid[])[1 + g % 2], CASE WHEN g % 3 = 0 THEN NULL ELSE ($3::uuid[])[1 + g % 2] END, 'req', 'chat.completions',
       CASE WHEN g % 4 = 0 THEN NULL ELSE 'model-' || (g % 5) END, CASE WHEN g % 8 = 0 THEN NULL ELSE 'asked-' || (g % 3) END,
       (ARRAY['success', 'upstream_error', 'rejected', 'deferred_billing', 'client_closed'])[1 + g % 5], (g * 7) % 500, (g * 13) % 900, (g * 3) % 200,
       CASE WHEN g % 3 = 1 THEN NULL ELSE 'agent-' || (g % 4) END, $4::timestamptz + g * ($5 * interval '1 minute')
     FROM generate_series(1, $6::int) g`,
    [prefix, owners, [randomUUID(), randomUUID()], start, stepMinutes, count],
  );

describe('the half-hour rollups', () => {
  it('are backfilled from the last 62 days of an older log, tokens too, then kept with every statement', async () => {
    await migrate(db, earlier.dir);
    const now = Date.now();
    // 80 days of rows every 37 minutes: the backfill takes the newest 62 whole UTC days.
    await insertRows('old-', Math.floor((80 * 24 * 60) / 37), new Date(now - 80 * DAY_MS), 37);
    expect(await migrate(db, beforeTokens.dir)).toContain('0035_usage_half_hour_rollups');
    // Rows written before the rollups count tokens (0037), into the half hours of older ones: its backfill counts them all.
    await insertRows('untokened-', 2_000, new Date(now - 20 * DAY_MS), 11);
    expect(await migrate(db, beforeQuarterHours.dir)).toContain('0037_usage_half_hour_tokens');
    // Rows written before the quarter hours (0039), into the same half hours: its backfill counts them all.
    await insertRows('unjoined-', 2_000, new Date(now - 30 * DAY_MS), 7);
    expect(await migrate(db)).toContain('0039_usage_quarter_hour_rollups');
    const cutoff = utcDay(now - HALF_HOUR_ROLLUP_DAYS * DAY_MS);
    const backfilled = await rollupsAndLog(db, cutoff);
    expect(backfilled.rollups.length).toBeGreaterThan(1_000);
    expect(backfilled.rollups).toEqual(backfilled.log);
    const quarters = await quarterHoursAndLog(db, cutoff);
    expect(quarters.quarterHours.length).toBeGreaterThan(3_000);
    expect(quarters.quarterHours).toEqual(quarters.log);
    for (const table of ['usage_half_hour_rollups', 'usage_quarter_hour_rollups']) {
      const older = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${table} WHERE day < $1::date`, [cutoff]);
      expect(older.rows[0]?.count).toBe(0);
    }

    // Four statements at once, each into half hours the others write too.
    await Promise.all([0, 1, 2, 3].map((batch) => insertRows(`new-${batch}-`, 400, new Date(now - DAY_MS + batch * 60_000), 3)));
    const kept = await rollupsAndLog(db, cutoff);
    expect(kept.rollups).toEqual(kept.log);
    const keptQuarters = await quarterHoursAndLog(db, cutoff);
    expect(keptQuarters.quarterHours).toEqual(keptQuarters.log);
  });

  it('are swept when older than their retention, the newer ones left', async () => {
    const now = new Date();
    await insertRows('swept-', 400, new Date(now.getTime() - 70 * DAY_MS), 30);
    const cutoff = utcDay(now.getTime() - HALF_HOUR_ROLLUP_DAYS * DAY_MS);
    for (const [table, sweep] of [
      ['usage_half_hour_rollups', sweepHalfHourRollups],
      ['usage_quarter_hour_rollups', sweepQuarterHourRollups],
    ] as const) {
      const before = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${table}`);
      const old = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${table} WHERE day < $1::date`, [cutoff]);
      expect(old.rows[0]?.count).toBeGreaterThan(20);
      const swept = await sweep({ db, days: HALF_HOUR_ROLLUP_DAYS, now: () => now });
      expect(swept).toBe(old.rows[0]?.count);
      const after = await db.query<{ count: number; oldest: string }>(`SELECT count(*)::int AS count, min(day)::text AS oldest FROM ${table}`);
      expect(after.rows[0]?.count).toBe((before.rows[0]?.count ?? 0) - swept);
      expect((after.rows[0]?.oldest ?? '') >= cutoff).toBe(true);
    }
  });
});
