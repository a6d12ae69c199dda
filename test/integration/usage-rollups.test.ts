import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { releaseHolderLeases } from '../../src/billing/lease-sql.ts';
import { writeSettlementBatch } from '../../src/billing/settlement-batch-sql.ts';
import type { Settlement } from '../../src/billing/settlement.ts';
import type { UsageRecord } from '../../src/billing/usage-record.ts';
import type { Database, Queryable } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { migrationsBefore } from '../support/earlier-migrations.ts';
import { freshStorage } from '../support/test-database.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { usageRecordFixture } from '../support/usage-record-fixture.ts';

/**
 * The daily rollups the console's Overview and Usage group-by read stay exact with the usage log: after
 * concurrent settlement batches, after a batch written again (a replayed journal, a retried
 * commit: rows already in the log add nothing), after 0021's backfill of a log written before
 * the rollups existed, and after 0036's split by agent of a log a retention cut. On PGlite,
 * and on PostgreSQL with DATABASE_URL.
 */
let app: TestApp;
let accountId: string;
let keys: string[];

const MODELS = ['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5', null];
const STATUSES: UsageRecord['status'][] = ['success', 'success', 'upstream_error', 'deferred_billing', 'rejected'];

beforeAll(async () => {
  app = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  accountId = app.services.defaultAccount.id;
  const create = async (name: string) => ((await runAdminCommand(app.services, { command: 'keys.create', kind: 'model', name })) as { data: { id: string } }).data.id;
  keys = [await create('rollup-a'), await create('rollup-b')];
});
afterAll(async () => {
  await app?.close();
});

/** The log's rows grouped as the rollups group them, next to the rollups themselves, both ordered alike. */
async function rollupAndLog(db: Queryable): Promise<{ rollup: unknown[]; log: unknown[] }> {
  const order = 'ORDER BY account_id, day, model, key_id NULLS FIRST, agent_id NULLS FIRST';
  const rollup = await db.query(
    `SELECT account_id, day::text AS day, model, key_id, agent_id, requests::int AS requests, errors::int AS errors, spend_micros::float8 AS spend,
       input_tokens::int AS input_tokens, output_tokens::int AS output_tokens
     FROM usage_daily_rollups ${order}`,
  );
  const log = await db.query(
    `SELECT account_id, (created_at AT TIME ZONE 'UTC')::date::text AS day, COALESCE(model, requested_model, 'unknown') AS model, key_id, agent_id,
       count(*)::int AS requests, (count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')))::int AS errors, sum(cost_micros)::float8 AS spend,
       sum(input_tokens)::int AS input_tokens, sum(output_tokens)::int AS output_tokens
     FROM usage_log GROUP BY 1, 2, 3, 4, 5 ${order}`,
  );
  return { rollup: rollup.rows, log: log.rows };
}

/** Rows over three UTC days, three models (one without a served model), both keys and none, three agents and none, every kind of status. */
function varied(count: number, seed: number): UsageRecord[] {
  return Array.from({ length: count }, (_, index) => {
    const n = index + seed;
    const model = MODELS[n % MODELS.length] ?? null;
    return usageRecordFixture(
      { accountId, keyId: n % 3 === 2 ? null : (keys[n % 2] ?? null) },
      {
        model,
        requestedModel: model ?? (n % 2 ? 'openai/unknown-one' : null),
        status: STATUSES[n % STATUSES.length] ?? 'success',
        costMicros: (n * 37) % 1_000,
        inputTokens: (n * 13) % 500,
        outputTokens: (n * 7) % 300,
        agentId: n % 4 === 0 ? null : `agent-${n % 3}`,
        createdAt: new Date(Date.UTC(2026, 10, 27 + (n % 3), 23, 59, 59, n % 1_000)),
      },
    );
  });
}

const settled = (usage: UsageRecord): Settlement => ({ usage, keyId: usage.keyId, accountId, spendMicros: usage.costMicros, keyLeaseMicros: 0, accountLeaseMicros: 0 });

describe('usage rollups', () => {
  it('count every row of concurrent settlement batches, in the statement that writes them', async () => {
    const batches = Array.from({ length: 8 }, (_, index) => varied(40, index * 40));
    await Promise.all(batches.map((rows) => writeSettlementBatch(app.services.db, rows.map(settled), [], undefined, new Date())));
    const { rollup, log } = await rollupAndLog(app.services.db);
    expect((log as Array<{ requests: number }>).reduce((sum, row) => sum + row.requests, 0)).toBe(320);
    expect(rollup).toEqual(log);
  });

  it('add nothing for rows already in the log when a batch is written again', async () => {
    const first = varied(30, 1_000);
    await writeSettlementBatch(app.services.db, first.map(settled), [], undefined, new Date());
    const before = await rollupAndLog(app.services.db);
    // The replayed batch holds the 30 stored rows and 5 new ones: only the new ones count.
    const again = [...first, ...varied(5, 2_000)];
    await writeSettlementBatch(app.services.db, again.map(settled), [], undefined, new Date());
    const after = await rollupAndLog(app.services.db);
    expect(after.rollup).toEqual(after.log);
    const total = (rows: unknown[]) => (rows as Array<{ requests: number }>).reduce((sum, row) => sum + row.requests, 0);
    expect(total(after.rollup) - total(before.rollup)).toBe(5);
  });
});

describe('usage rollups of calls a stopped process left open', () => {
  it('count the interrupted rows its release writes, in that statement', async () => {
    const holderId = randomUUID();
    await app.services.db.query('INSERT INTO lease_holders (id) VALUES ($1)', [holderId]);
    await app.services.db.query(
      `INSERT INTO open_calls (id, holder_id, account_id, key_id, request_id, endpoint, model, cost_micros, started_at)
       SELECT 'gen-open-' || g, $1::uuid, $2::uuid, CASE WHEN g % 2 = 0 THEN $3::uuid END, 'req', 'chat.completions', 'openai/gpt-4o-mini', 50 * g,
         timestamptz '2026-11-28T08:00:00Z' + g * interval '1 minute'
       FROM generate_series(1, 6) g`,
      [holderId, accountId, keys[0]],
    );
    const before = await rollupAndLog(app.services.db);
    await releaseHolderLeases(app.services.db, holderId);
    const after = await rollupAndLog(app.services.db);
    expect(after.rollup).toEqual(after.log);
    const errors = (rows: unknown[]) => (rows as Array<{ errors: number }>).reduce((sum, row) => sum + row.errors, 0);
    expect(errors(after.rollup) - errors(before.rollup)).toBe(6);
  });
});

describe('the rollup migration', () => {
  let storage: Awaited<ReturnType<typeof freshStorage>>;
  let db: Database;
  let earlier: ReturnType<typeof migrationsBefore>;

  beforeAll(async () => {
    storage = await freshStorage();
    db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir: storage.dataDir });
    earlier = migrationsBefore(21);
  });
  afterAll(async () => {
    await db?.close();
    await storage?.drop();
    earlier?.remove();
  });

  it('backfills the rollups from a log written before they existed, then keeps them with new rows', async () => {
    await migrate(db, earlier.dir);
    const owners = [randomUUID(), randomUUID()];
    await db.query(
      `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, model, requested_model, status, cost_micros, created_at)
       SELECT 'gen-old-' || g, ($1::uuid[])[1 + g % 2], CASE WHEN g % 3 = 0 THEN NULL ELSE ($2::uuid[])[1 + g % 2] END, 'req', 'chat.completions',
         CASE WHEN g % 4 = 0 THEN NULL ELSE 'model-' || (g % 5) END, CASE WHEN g % 8 = 0 THEN NULL ELSE 'asked-' || (g % 3) END,
         (ARRAY['success', 'upstream_error', 'rejected', 'deferred_billing', 'client_closed'])[1 + g % 5], (g * 7) % 500,
         timestamptz '2026-09-01T00:00:00Z' + g * interval '17 minutes'
       FROM generate_series(1, 5000) g`,
      [owners, [randomUUID(), randomUUID()]],
    );
    expect(await migrate(db)).toContain('0021_usage_rollups');
    const backfilled = await rollupAndLog(db);
    expect(backfilled.rollup.length).toBeGreaterThan(100);
    expect(backfilled.rollup).toEqual(backfilled.log);

    await db.query(
      `INSERT INTO usage_log (id, account_id, request_id, endpoint, model, status, cost_micros, created_at)
       SELECT 'gen-new-' || g, $1::uuid, 'req', 'chat.completions', 'model-1', 'success', 11, timestamptz '2026-09-02T10:00:00Z' FROM generate_series(1, 50) g`,
      [owners[0]],
    );
    const kept = await rollupAndLog(db);
    expect(kept.rollup).toEqual(kept.log);
  });
});

describe('migration 0036 (the rollups by agent)', () => {
  let storage: Awaited<ReturnType<typeof freshStorage>>;
  let db: Database;
  let earlier: ReturnType<typeof migrationsBefore>;

  beforeAll(async () => {
    storage = await freshStorage();
    db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir: storage.dataDir });
    earlier = migrationsBefore(36);
  });
  afterAll(async () => {
    await db?.close();
    await storage?.drop();
    earlier?.remove();
  });

  /** The rollups summed over agents: what every reader before 0036 sums. */
  const byModelAndKey = async () =>
    (
      await db.query(
        `SELECT account_id, day::text AS day, model, key_id, sum(requests)::int AS requests, sum(errors)::int AS errors, sum(spend_micros)::float8 AS spend
         FROM usage_daily_rollups GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4 NULLS FIRST`,
      )
    ).rows;
  type Rollup = { day: string; agent_id: string | null; requests: number; input_tokens: number; output_tokens: number };
  const onOrAfter = (rows: unknown[], day: string) => (rows as Rollup[]).filter((row) => row.day >= day);
  const olderThan = (rows: unknown[], day: string) => (rows as Rollup[]).filter((row) => row.day < day);

  it('splits the days the log holds whole by agent with their tokens, and keeps the days a retention cut', async () => {
    await migrate(db, earlier.dir);
    const owners = [randomUUID(), randomUUID()];
    await db.query(
      `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, model, requested_model, status, cost_micros, input_tokens, output_tokens, agent_id, created_at)
       SELECT 'gen-old-' || g, ($1::uuid[])[1 + g % 2], CASE WHEN g % 3 = 0 THEN NULL ELSE ($2::uuid[])[1 + g % 2] END, 'req', 'chat.completions',
         CASE WHEN g % 4 = 0 THEN NULL ELSE 'model-' || (g % 5) END, CASE WHEN g % 8 = 0 THEN NULL ELSE 'asked-' || (g % 3) END,
         (ARRAY['success', 'upstream_error', 'rejected', 'deferred_billing', 'client_closed'])[1 + g % 5], (g * 7) % 500, g % 700, g % 300,
         CASE WHEN g % 4 = 1 THEN NULL ELSE 'agent-' || (g % 3) END, timestamptz '2026-09-01T00:00:00Z' + g * interval '7 minutes'
       FROM generate_series(0, 2999) g`,
      [owners, [randomUUID(), randomUUID()]],
    );
    // A retention: 1 September gone whole, 2 September up to noon; the rollups keep them.
    await db.query(`DELETE FROM usage_log WHERE created_at < timestamptz '2026-09-02T12:00:00Z'`);
    const totals = await byModelAndKey();

    expect(await migrate(db)).toContain('0036_usage_rollups_by_agent');
    // Every reader's sums are unchanged, on every day.
    expect(await byModelAndKey()).toEqual(totals);
    // The days the log holds whole are its rows, by agent, with their tokens.
    const migrated = await rollupAndLog(db);
    expect(onOrAfter(migrated.rollup, '2026-09-03').length).toBeGreaterThan(100);
    expect(onOrAfter(migrated.rollup, '2026-09-03')).toEqual(onOrAfter(migrated.log, '2026-09-03'));
    // The days it holds in part or not at all keep their rows as they were: no agent, no tokens.
    const kept = olderThan(migrated.rollup, '2026-09-03');
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((row) => row.agent_id === null && row.input_tokens === 0 && row.output_tokens === 0)).toBe(true);

    // New rows add to the rows by agent, on a whole day and on a day the retention cut.
    await db.query(
      `INSERT INTO usage_log (id, account_id, request_id, endpoint, model, status, cost_micros, input_tokens, output_tokens, agent_id, created_at)
       SELECT 'gen-new-' || g, $1::uuid, 'req', 'chat.completions', 'model-1', 'success', 11, 3, 2, 'agent-1', timestamptz '2026-09-02T10:00:00Z' + g * interval '1 day'
       FROM generate_series(0, 3) g`,
      [owners[0]],
    );
    const after = await rollupAndLog(db);
    expect(onOrAfter(after.rollup, '2026-09-03')).toEqual(onOrAfter(after.log, '2026-09-03'));
    const requests = (rows: unknown[]) => (rows as Array<{ requests: number }>).reduce((sum, row) => sum + row.requests, 0);
    expect(requests(olderThan(after.rollup, '2026-09-03')) - requests(kept)).toBe(1);
  });
});
