import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleAbandonedRunCalls } from '../../src/billing/lease-sql.ts';
import { writeSettlementBatch } from '../../src/billing/settlement-batch-sql.ts';
import type { Settlement } from '../../src/billing/settlement.ts';
import { DEFAULT_PARTITION, keepUsagePartitions, MONTHS_AHEAD, monthPartition, usagePartitions } from '../../src/billing/usage-partitions.ts';
import type { UsageRecord } from '../../src/billing/usage-record.ts';
import { monthlySpend } from '../../src/billing/usage-rollups.ts';
import { listUsage } from '../../src/billing/usage-repository.ts';
import type { Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { migrationsBefore } from '../support/earlier-migrations.ts';
import { freshStorage } from '../support/test-database.ts';
import { usageRecordFixture } from '../support/usage-record-fixture.ts';

/**
 * The usage log's monthly partitions (migration 0032, src/billing/usage-partitions.ts):
 * rows land in their month, or in the default partition when no month holds them; a
 * retention drops whole months and the rollups the Overview reads keep their totals; the
 * log's key (id, created_at) makes a replayed settlement or a reclaimer's row meet the row
 * already written. On PGlite, and on PostgreSQL with DATABASE_URL.
 */
let app: TestApp;
let db: Database;
let accountId: string;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  app = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  db = app.services.db;
  accountId = app.services.defaultAccount.id;
});
afterAll(async () => {
  await app?.close();
});

const settled = (usage: UsageRecord): Settlement => ({ usage, keyId: usage.keyId, accountId, spendMicros: usage.costMicros, keyLeaseMicros: 0, accountLeaseMicros: 0 });
const row = (createdAt: Date, overrides: Partial<UsageRecord> = {}) => usageRecordFixture({ accountId, keyId: null }, { createdAt, ...overrides });
const write = (rows: UsageRecord[]) => writeSettlementBatch(db, rows.map(settled), [], undefined, new Date());

/** The daily rollups' spend per day and model since `since`, as the retention must leave them. */
async function dailySpendByModel(since: Date): Promise<unknown[]> {
  const result = await db.query(`SELECT day::text AS day, model, sum(spend_micros)::bigint AS spend FROM usage_daily_rollups WHERE account_id = $1 AND day >= $2::date GROUP BY 1, 2 ORDER BY 1, 2`, [
    accountId,
    since.toISOString().slice(0, 10),
  ]);
  return result.rows;
}

async function partitionOf(id: string): Promise<string | undefined> {
  const result = await db.query<{ part: string }>('SELECT tableoid::regclass::text AS part FROM usage_log WHERE id = $1', [id]);
  return result.rows[0]?.part;
}

const accountUsage = async () => Number((await db.query<{ usage: number }>('SELECT usage_micros AS usage FROM accounts WHERE id = $1', [accountId])).rows[0]?.usage);

describe('the usage log by month', () => {
  it('has this month and the next ones from the start, and a default partition', async () => {
    const names = await usagePartitions(db);
    for (let offset = 0; offset <= MONTHS_AHEAD; offset += 1) expect(names).toContain(monthPartition(new Date(), offset).name);
    expect(names).toContain(DEFAULT_PARTITION);
  });

  it('puts each row in the month of its created_at, and a row older than every month in the default', async () => {
    const now = new Date();
    const next = monthPartition(now, 1);
    const rows = [row(now), row(new Date(next.from.getTime() + 3_600_000)), row(new Date(Date.UTC(1990, 0, 2)))];
    await write(rows);
    expect(await partitionOf(rows[0]?.id ?? '')).toBe(monthPartition(now).name);
    expect(await partitionOf(rows[1]?.id ?? '')).toBe(next.name);
    expect(await partitionOf(rows[2]?.id ?? '')).toBe(DEFAULT_PARTITION);
  });

  it('writes a replayed batch once: its rows and its spend', async () => {
    const rows = [row(new Date(), { costMicros: 700 }), row(new Date(), { costMicros: 300 })];
    const before = await accountUsage();
    await write(rows);
    await write(rows);
    const stored = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM usage_log WHERE id = ANY($1::text[])', [rows.map((usage) => usage.id)]);
    expect(stored.rows[0]?.count).toBe(2);
    expect((await accountUsage()) - before).toBe(1_000);
  });

  it('keeps one row when a call settled as interrupted by another process settles again at its start time', async () => {
    const startedAt = new Date(Date.now() - 5_000);
    const usage = row(startedAt, { agentRunId: `run-${randomUUID()}`, costMicros: 900 });
    const holder = randomUUID();
    // The call's journal row, as the pipeline journals it: started_at is the row's created_at.
    await writeSettlementBatch(db, [], [{ ...usage, inputTokens: 1, outputTokens: 0, costMicros: 400, startedAt: usage.createdAt, agentRunId: usage.agentRunId }], holder, new Date());
    const before = await accountUsage();
    expect(await settleAbandonedRunCalls(db, usage.agentRunId ?? '', randomUUID())).toBe(1);
    await write([usage]);
    const stored = await db.query<{ status: string }>('SELECT status FROM usage_log WHERE id = $1', [usage.id]);
    expect(stored.rows.map((found) => found.status)).toEqual(['interrupted']);
    expect((await accountUsage()) - before).toBe(400);
  });

  it('moves the rows the default took for a month into that month once it is created', async () => {
    const later = monthPartition(new Date(), MONTHS_AHEAD + 2);
    const early = row(new Date(later.from.getTime() + DAY_MS), { costMicros: 250 });
    await write([early]);
    expect(await partitionOf(early.id)).toBe(DEFAULT_PARTITION);
    const rollup = await monthlySpend(db, accountId, 100);
    const kept = await keepUsagePartitions(db, new Date(later.from.getTime() + DAY_MS), undefined);
    expect(kept.created).toContain(later.name);
    expect(await partitionOf(early.id)).toBe(later.name);
    expect(await monthlySpend(db, accountId, 100)).toEqual(rollup);
  });

  it('drops the months older than the retention and keeps the daily totals', async () => {
    const old = new Date(Date.UTC(2025, 0, 10, 12));
    const created = await keepUsagePartitions(db, old, undefined);
    expect(created.created).toContain('usage_log_y2025m01');
    const rows = [row(old, { costMicros: 1_234 }), row(new Date(old.getTime() + DAY_MS), { costMicros: 66 })];
    await write(rows);
    expect(await partitionOf(rows[0]?.id ?? '')).toBe('usage_log_y2025m01');
    const since = new Date(Date.UTC(1990, 0, 1));
    const daily = await dailySpendByModel(since);
    const months = await monthlySpend(db, accountId, 1_000);
    expect(months.find((month) => month.month === '2025-01')?.spend).toBeGreaterThanOrEqual(1_300);

    const now = new Date();
    const kept = await keepUsagePartitions(db, now, 60);
    expect(kept.dropped).toEqual(expect.arrayContaining(['usage_log_y2025m01', 'usage_log_y2025m02', 'usage_log_y2025m03']));
    // The default's rows older than the retention go too (the 1990 row above).
    expect(kept.defaultRowsDeleted).toBeGreaterThanOrEqual(1);
    const names = await usagePartitions(db);
    expect(names).not.toContain('usage_log_y2025m01');
    expect(names).toContain(monthPartition(now).name);
    const left = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM usage_log WHERE id = ANY($1::text[])', [rows.map((usage) => usage.id)]);
    expect(left.rows[0]?.count).toBe(0);
    expect(await dailySpendByModel(since)).toEqual(daily);
    expect(await monthlySpend(db, accountId, 1_000)).toEqual(months);
    // This month's rows stay, and a second upkeep has nothing to do.
    expect((await listUsage(db, accountId, { limit: 5 })).length).toBeGreaterThan(0);
    expect(await keepUsagePartitions(db, now, 60)).toEqual({ created: [], dropped: [], defaultRowsDeleted: 0 });
  });

  it('reads a time range from its months only, and pages by cursor without the months after it', async () => {
    const month = monthPartition(new Date());
    const plan = async (sql: string) => (await db.query<Record<string, string>>(`EXPLAIN ${sql}`)).rows.map((line) => Object.values(line)[0]).join('\n');
    const ranged = await plan(
      `SELECT id FROM usage_log WHERE account_id = '${accountId}' AND created_at >= '${month.from.toISOString()}' AND created_at < '${new Date(month.from.getTime() + DAY_MS).toISOString()}'
       ORDER BY created_at DESC, id DESC LIMIT 100`,
    );
    expect(ranged).toContain(month.name);
    expect(ranged).not.toContain(monthPartition(new Date(), 1).name);
    expect(ranged).not.toContain(DEFAULT_PARTITION);
    const paged = await plan(
      `SELECT id FROM usage_log WHERE account_id = '${accountId}' AND created_at <= '${month.from.toISOString()}' AND (created_at, id) < ('${month.from.toISOString()}', 'gen-x')
       ORDER BY created_at DESC, id DESC LIMIT 100`,
    );
    expect(paged).not.toContain(monthPartition(new Date(), 1).name);
  });
});

describe('migration 0032', () => {
  let storage: Awaited<ReturnType<typeof freshStorage>>;
  let store: Database;
  let earlier: ReturnType<typeof migrationsBefore>;

  beforeAll(async () => {
    storage = await freshStorage();
    store = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir: storage.dataDir });
    earlier = migrationsBefore(32);
  });
  afterAll(async () => {
    await store?.close();
    await storage?.drop();
    earlier?.remove();
  });

  it('moves every row into its month with the rollups unchanged, then keeps them with new rows', async () => {
    await migrate(store, earlier.dir);
    const owner = randomUUID();
    await store.query(
      `INSERT INTO usage_log (id, account_id, request_id, endpoint, model, status, cost_micros, created_at)
       SELECT 'gen-old-' || g, $1::uuid, 'req', 'chat.completions', 'model-' || (g % 3), 'success', g % 100, timestamptz '2026-07-30T00:00:00Z' + g * interval '1 hour'
       FROM generate_series(1, 1000) g`,
      [owner],
    );
    const rollups = async () => (await store.query('SELECT day::text, model, requests::int, spend_micros::float8 FROM usage_daily_rollups ORDER BY 1, 2')).rows;
    const before = await rollups();
    expect(await migrate(store)).toContain('0032_usage_log_partitions');
    const counts = await store.query<{ part: string; count: number }>('SELECT tableoid::regclass::text AS part, count(*)::int AS count FROM usage_log GROUP BY 1 ORDER BY 1');
    expect(counts.rows).toEqual([
      { part: 'usage_log_y2026m07', count: 47 },
      { part: 'usage_log_y2026m08', count: 744 },
      { part: 'usage_log_y2026m09', count: 209 },
    ]);
    expect(await rollups()).toEqual(before);
    await store.query(
      `INSERT INTO usage_log (id, account_id, request_id, endpoint, model, status, cost_micros, created_at)
       VALUES ('gen-new', $1, 'req', 'chat.completions', 'model-1', 'success', 5, timestamptz '2026-08-02T00:00:00Z')`,
      [owner],
    );
    const after = (await rollups()) as Array<{ day: string; model: string; requests: number }>;
    expect(after.find((found) => found.day === '2026-08-02' && found.model === 'model-1')?.requests).toBe(
      ((before as Array<{ day: string; model: string; requests: number }>).find((found) => found.day === '2026-08-02' && found.model === 'model-1')?.requests ?? 0) + 1,
    );
    // The same id at another time is another call; at the same time, the same one.
    await expect(
      store.query(`INSERT INTO usage_log (id, account_id, request_id, endpoint, status, created_at) VALUES ('gen-new', $1, 'req', 'chat.completions', 'success', timestamptz '2026-08-02T00:00:00Z')`, [
        owner,
      ]),
    ).rejects.toMatchObject({ code: '23505' });
  });
});
