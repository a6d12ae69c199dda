import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSettlementBatch } from '../../src/billing/settlement-batch-sql.ts';
import type { Settlement } from '../../src/billing/settlement.ts';
import type { UsageRecord } from '../../src/billing/usage-record.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { USAGE_COLUMNS } from '../../src/billing/usage-record.ts';
import { USAGE_ROW_TYPES } from '../../src/billing/usage-row-type.ts';
import { usageRecordFixture } from '../support/usage-record-fixture.ts';

/**
 * Every usage column lands as it was settled, sent as one binary array of usage_row
 * (migration 0012): text the old array literals had to quote, NULLs, created_at to the
 * millisecond either side of PostgreSQL's epoch. On the real engine (PGlite, and
 * PostgreSQL with DATABASE_URL).
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
});
afterAll(async () => {
  await app?.close();
});

const settlementOf = (usage: UsageRecord): Settlement => ({ usage, keyId: null, accountId: usage.accountId, spendMicros: usage.costMicros, keyLeaseMicros: 0, accountLeaseMicros: 0 });

async function storedRows(ids: string[]): Promise<Array<Record<string, unknown>>> {
  const result = await app.services.db.query<Record<string, unknown>>('SELECT * FROM usage_log WHERE id = ANY($1::text[]) ORDER BY id', [ids]);
  return result.rows;
}

/** The row a usage record should become, in the table's column names. */
const expectedRow = (usage: UsageRecord) => ({
  id: usage.id,
  account_id: usage.accountId,
  key_id: usage.keyId,
  request_id: usage.requestId,
  endpoint: usage.endpoint,
  requested_model: usage.requestedModel,
  model: usage.model,
  provider: usage.provider,
  upstream_model: usage.upstreamModel,
  status: usage.status,
  http_status: usage.httpStatus,
  error_code: usage.errorCode,
  input_tokens: usage.inputTokens,
  output_tokens: usage.outputTokens,
  cached_input_tokens: usage.cachedInputTokens,
  reasoning_tokens: usage.reasoningTokens,
  units: usage.units,
  cost_micros: usage.costMicros,
  latency_ms: usage.latencyMs,
  attempts: usage.attempts,
  streamed: usage.streamed,
  agent_id: usage.agentId,
  agent_run_id: usage.agentRunId,
  agent_version: usage.agentVersion ?? null,
  created_at: usage.createdAt,
  cache_write_tokens: usage.cacheWriteTokens ?? 0,
  cache_hit: usage.cacheHit ?? false,
});

describe('a settlement batch’s usage columns', () => {
  it('stores every column of rows that mix set and NULL values, created_at to the millisecond', async () => {
    const accountId = app.services.defaultAccount.id;
    const full = usageRecordFixture(
      { accountId, keyId: null },
      {
        id: 'gen-columns-a',
        status: 'upstream_error',
        httpStatus: 502,
        errorCode: 'upstream_error',
        requestedModel: 'my "model", {v2} \\ NULL',
        requestId: 'req → 世界 🚀',
        units: { images: 2 },
        agentId: 'support',
        agentRunId: 'run_1',
        agentVersion: 'v3',
        streamed: true,
        cacheWriteTokens: 300,
        cacheHit: true,
        createdAt: new Date('2026-11-28T05:31:07.123Z'),
      },
    );
    const sparse = usageRecordFixture(
      { accountId, keyId: null },
      { id: 'gen-columns-b', requestedModel: null, model: null, provider: null, upstreamModel: null, httpStatus: null, latencyMs: null, createdAt: new Date('1999-12-31T23:59:59.999Z') },
    );
    await writeSettlementBatch(app.services.db, [settlementOf(full), settlementOf(sparse)], [], undefined, new Date());

    const rows = await storedRows([full.id, sparse.id]);
    expect(rows.map((row) => ({ ...row, created_at: (row.created_at as Date).toISOString() }))).toEqual(
      [full, sparse].map((usage) => ({ ...expectedRow(usage), created_at: usage.createdAt.toISOString() })),
    );
  });

  it('stores a batch whose optional columns are NULL in every row, every row of it', async () => {
    const accountId = app.services.defaultAccount.id;
    const batch = Array.from({ length: 5 }, (_, index) =>
      usageRecordFixture(
        { accountId, keyId: null },
        { id: `gen-columns-null-${index}`, errorCode: null, units: null, agentId: null, agentRunId: null, createdAt: new Date(1_764_300_000_000 + index) },
      ),
    );
    await writeSettlementBatch(app.services.db, batch.map(settlementOf), [], undefined, new Date());

    const rows = await storedRows(batch.map((usage) => usage.id));
    expect(rows).toHaveLength(5);
    expect(rows).toEqual(batch.map(expectedRow));
  });

  it('sends them as usage_row, whose columns are USAGE_COLUMNS with usage_log’s types', async () => {
    const columnsOf = async (relation: string) =>
      (
        await app.services.db.query<{ name: string; type: string }>(
          `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
           WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
          [relation],
        )
      ).rows;
    const rowType = await columnsOf('usage_row');
    const typeNames: Record<string, string> = { timestamptz: 'timestamp with time zone' };
    expect(rowType).toEqual(USAGE_COLUMNS.map((name, index) => ({ name, type: typeNames[USAGE_ROW_TYPES[index] ?? ''] ?? USAGE_ROW_TYPES[index] })));
    const logTypes = new Map((await columnsOf('usage_log')).map((column) => [column.name, column.type]));
    for (const column of rowType) expect({ column: column.name, type: logTypes.get(column.name) }).toEqual({ column: column.name, type: column.type });
  });
});
