import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { writeSettlementBatch } from '../../src/billing/settlement-batch-sql.ts';
import type { OpenCall } from '../../src/billing/open-call.ts';
import type { Settlement } from '../../src/billing/settlement.ts';
import type { UsageRecord } from '../../src/billing/usage-record.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { usageRecordFixture } from '../support/usage-record-fixture.ts';

/**
 * A settlement batch is written in its fresh form (spend summed by the caller, a plain
 * INSERT) and, when one of its usage rows is already in the log, in its replay-safe form
 * (spend summed from the rows actually inserted). Either way every key and account ends
 * with the same spend, lease and last use, and a stored row is never billed twice. On the
 * real engine (PGlite, and PostgreSQL with DATABASE_URL).
 */
let app: TestApp;
let accountId: string;
let keyA: string;
let keyB: string;

const LEASED = 1_000_000;
/** Every batch here settles on one UTC day, so the day window's sums compare whatever the clock says. */
const BATCH_TIME = new Date('2026-11-28T12:00:00.000Z');

beforeAll(async () => {
  app = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  accountId = app.services.defaultAccount.id;
  const create = async (name: string) => ((await runAdminCommand(app.services, { command: 'keys.create', kind: 'model', name })) as { data: { id: string } }).data.id;
  keyA = await create('batch-forms-a');
  keyB = await create('batch-forms-b');
  // Budget these batches hand back, as if leased by the process that made the calls.
  await app.services.db.query('UPDATE api_keys SET leased_micros = $1 WHERE id = ANY($2::uuid[])', [LEASED, [keyA, keyB]]);
  await app.services.db.query('UPDATE accounts SET leased_micros = $1 WHERE id = $2', [LEASED, accountId]);
});
afterAll(async () => {
  await app?.close();
});

type KeyState = { spend_total: number; spend_day: number; leased: number; last_used: Date | null };
type AccountState = { usage: number; leased: number };

async function keyState(id: string): Promise<KeyState> {
  const result = await app.services.db.query<KeyState>(
    'SELECT spend_total_micros::float8 AS spend_total, spend_day_micros::float8 AS spend_day, leased_micros::float8 AS leased, last_used_at AS last_used FROM api_keys WHERE id = $1',
    [id],
  );
  return result.rows[0] as KeyState;
}

async function accountState(): Promise<AccountState> {
  const result = await app.services.db.query<AccountState>('SELECT usage_micros::float8 AS usage, leased_micros::float8 AS leased FROM accounts WHERE id = $1', [accountId]);
  return result.rows[0] as AccountState;
}

async function storedCount(ids: string[]): Promise<number> {
  const result = await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_log WHERE id = ANY($1::text[])', [ids]);
  return result.rows[0]?.n ?? 0;
}

const row = (keyId: string | null, costMicros: number, createdAt: Date): UsageRecord => usageRecordFixture({ accountId, keyId }, { costMicros, createdAt });

/** A settled call: its row, and the lease it gives back to its key and account. */
const settled = (usage: UsageRecord, lease: number): Settlement => ({
  usage,
  keyId: usage.keyId,
  accountId,
  spendMicros: usage.costMicros,
  keyLeaseMicros: usage.keyId ? lease : 0,
  accountLeaseMicros: lease,
});

/** Spend and lease that came without a usage row (a returned lease, a tool's charge). */
const withoutRow = (keyId: string, spendMicros: number, lease: number): Settlement => ({ keyId, accountId, spendMicros, keyLeaseMicros: lease, accountLeaseMicros: lease });

async function snapshot() {
  return { a: await keyState(keyA), b: await keyState(keyB), account: await accountState() };
}

describe('a settlement batch', () => {
  it('adds every owner’s spend, lease and last use when its rows are new', async () => {
    const before = await snapshot();
    const now = new Date();
    const early = new Date(now.getTime() - 60_000);
    const rows = [row(keyA, 100, early), row(keyA, 250, now), row(keyB, 40, early), row(null, 7, now)];
    await writeSettlementBatch(app.services.db, [...rows.map((usage) => settled(usage, 1_000)), withoutRow(keyA, 30, 500)], [], undefined, BATCH_TIME);

    expect(await storedCount(rows.map((usage) => usage.id))).toBe(4);
    const after = await snapshot();
    expect(after.a.spend_total - before.a.spend_total).toBe(100 + 250 + 30);
    expect(after.a.spend_day - before.a.spend_day).toBe(100 + 250 + 30);
    expect(after.a.leased - before.a.leased).toBe(-(1_000 + 1_000 + 500));
    expect(after.a.last_used?.getTime()).toBe(now.getTime());
    expect(after.b.spend_total - before.b.spend_total).toBe(40);
    expect(after.b.leased - before.b.leased).toBe(-1_000);
    expect(after.b.last_used?.getTime()).toBe(early.getTime());
    expect(after.account.usage - before.account.usage).toBe(100 + 250 + 40 + 7 + 30);
    expect(after.account.leased - before.account.leased).toBe(-(4 * 1_000 + 500));
  });

  it('bills only the rows not yet in the log when some already are, and hands every lease back once', async () => {
    const now = new Date();
    const stored = [row(keyA, 500, now), row(keyB, 60, now)];
    await writeSettlementBatch(
      app.services.db,
      stored.map((usage) => settled(usage, 0)),
      [],
      undefined,
      BATCH_TIME,
    );
    const before = await snapshot();

    const later = new Date(now.getTime() + 1_000);
    const fresh = [row(keyA, 11, later), row(null, 3, later)];
    // The stored rows come again (a replayed journal), with a new row and spend without one.
    const batch = [...stored.map((usage) => settled(usage, 200)), ...fresh.map((usage) => settled(usage, 100)), withoutRow(keyB, 5, 50)];
    await writeSettlementBatch(app.services.db, batch, [], undefined, BATCH_TIME);

    expect(await storedCount([...stored, ...fresh].map((usage) => usage.id))).toBe(4);
    const after = await snapshot();
    expect(after.a.spend_total - before.a.spend_total).toBe(11);
    expect(after.a.last_used?.getTime()).toBe(later.getTime());
    expect(after.b.spend_total - before.b.spend_total).toBe(5);
    // B's stored row adds nothing: its last use stays that row's.
    expect(after.b.last_used?.getTime()).toBe(now.getTime());
    expect(after.account.usage - before.account.usage).toBe(11 + 3 + 5);
    // Leases are the process's, not the rows': they go back whether or not a row was new.
    expect(after.a.leased - before.a.leased).toBe(-(200 + 100));
    expect(after.b.leased - before.b.leased).toBe(-(200 + 50));
    expect(after.account.leased - before.account.leased).toBe(-(200 * 2 + 100 * 2 + 50));

    // The whole batch again: every row is stored, so only the spend without a row is added.
    await writeSettlementBatch(
      app.services.db,
      batch.map((settlement) => ({ ...settlement, keyLeaseMicros: 0, accountLeaseMicros: 0 })),
      [],
      undefined,
      BATCH_TIME,
    );
    const again = await snapshot();
    expect(again.a.spend_total).toBe(after.a.spend_total);
    expect(again.b.spend_total - after.b.spend_total).toBe(5);
    expect(again.account.usage - after.account.usage).toBe(5);
  });

  it('fails with 23503 and writes nothing when a row names a key that does not exist, in either form', async () => {
    const missingKey = '00000000-0000-4000-8000-000000000001';
    const before = await snapshot();
    const good = row(keyA, 9, new Date());
    const orphan = row(missingKey, 9, new Date());
    await expect(writeSettlementBatch(app.services.db, [settled(good, 0), settled(orphan, 0)], [], undefined, BATCH_TIME)).rejects.toMatchObject({ code: '23503' });
    expect(await storedCount([good.id, orphan.id])).toBe(0);

    // With a stored row beside it, the replay-safe form refuses it the same way.
    const stored = row(keyA, 9, new Date());
    await writeSettlementBatch(app.services.db, [settled(stored, 0)], [], undefined, BATCH_TIME);
    const afterStored = await snapshot();
    expect(afterStored.a.spend_total - before.a.spend_total).toBe(9);
    await expect(writeSettlementBatch(app.services.db, [settled(stored, 0), settled(orphan, 0)], [], undefined, BATCH_TIME)).rejects.toMatchObject({ code: '23503' });
    expect(await storedCount([orphan.id])).toBe(0);
    expect((await snapshot()).a.spend_total).toBe(afterStored.a.spend_total);
  });

  it('fails with 23503 when a row names an account that does not exist', async () => {
    const orphan = usageRecordFixture({ accountId: '00000000-0000-4000-8000-000000000002', keyId: null }, { costMicros: 9, createdAt: new Date() });
    const good = row(keyA, 9, new Date());
    await expect(writeSettlementBatch(app.services.db, [settled(good, 0), { ...settled(orphan, 0), accountId: orphan.accountId }], [], undefined, BATCH_TIME)).rejects.toMatchObject({ code: '23503' });
    expect(await storedCount([good.id, orphan.id])).toBe(0);
  });

  it('journals calls under way and removes settled ones in every shape of batch: with either, both or neither', async () => {
    const holderId = crypto.randomUUID();
    await app.services.db.query('INSERT INTO lease_holders (id) VALUES ($1)', [holderId]);
    const journaled = async (ids: string[]) =>
      (await app.services.db.query<{ id: string; output_tokens: number }>('SELECT id, output_tokens FROM open_calls WHERE id = ANY($1::text[]) ORDER BY id', [ids])).rows;
    const openCall = (id: string, outputTokens: number): OpenCall => ({
      id,
      accountId,
      keyId: keyA,
      requestId: `req-${id}`,
      endpoint: 'chat.completions',
      requestedModel: 'm',
      model: 'm',
      provider: 'p',
      upstreamModel: 'u',
      inputTokens: 5,
      outputTokens,
      costMicros: 10,
      streamed: true,
      agentId: null,
      agentRunId: null,
      startedAt: new Date(),
    });
    const first = row(keyA, 1, new Date());
    const second = row(keyA, 1, new Date());
    const ids = [first.id, second.id];

    // Journal rows only: both calls under way (no usage rows, nothing closed).
    await writeSettlementBatch(app.services.db, [], [openCall(first.id, 1), openCall(second.id, 1)], holderId, BATCH_TIME, []);
    expect(await journaled(ids)).toEqual(
      [
        { id: first.id, output_tokens: 1 },
        { id: second.id, output_tokens: 1 },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    // Both: the first settles (its journal row goes) while the second progresses.
    await writeSettlementBatch(app.services.db, [settled(first, 0)], [openCall(second.id, 7)], holderId, BATCH_TIME, [first.id]);
    expect(await journaled(ids)).toEqual([{ id: second.id, output_tokens: 7 }]);
    // Closed calls only: the second settles.
    await writeSettlementBatch(app.services.db, [settled(second, 0)], [], holderId, BATCH_TIME, [second.id]);
    expect(await journaled(ids)).toEqual([]);
    // Neither: a call never journaled settles.
    const third = row(keyA, 1, new Date());
    await writeSettlementBatch(app.services.db, [settled(third, 0)], [], holderId, BATCH_TIME, []);
    expect(await storedCount([...ids, third.id])).toBe(3);
  });
});

describe('a settlement batch after the usage_row type is made again', () => {
  it('writes, as when a schema is restored under a running server and the type gets a new id', async () => {
    const before = await snapshot();
    const first = row(keyA, 13, new Date());
    await writeSettlementBatch(app.services.db, [settled(first, 0)], [], undefined, BATCH_TIME);
    const oldOid = (await app.services.db.query<{ oid: number }>(`SELECT 'usage_row'::regtype::oid::integer AS oid`)).rows[0]?.oid;

    // The type as the migrations make it: created in 0012, grown by later ALTER TYPE statements.
    const migrations = new URL('../../migrations/', import.meta.url);
    const later = readdirSync(migrations)
      .filter((name) => name > '0012')
      .sort()
      .flatMap((name) => readFileSync(new URL(name, migrations), 'utf8').match(/^ALTER TYPE usage_row [^;]*;/gm) ?? []);
    const typeDefinition = [readFileSync(new URL('0012_usage_row_type.sql', migrations), 'utf8'), ...later].join('\n');
    await app.services.db.exec(`DROP TYPE usage_row; ${typeDefinition}`);
    const newOid = (await app.services.db.query<{ oid: number }>(`SELECT 'usage_row'::regtype::oid::integer AS oid`)).rows[0]?.oid;
    expect(newOid).not.toBe(oldOid);

    // Both forms: a fresh batch, then one with a stored row beside a new one.
    const second = row(keyA, 17, new Date());
    await writeSettlementBatch(app.services.db, [settled(second, 0)], [], undefined, BATCH_TIME);
    const third = row(keyB, 19, new Date());
    await writeSettlementBatch(app.services.db, [settled(second, 0), settled(third, 0)], [], undefined, BATCH_TIME);

    expect(await storedCount([first.id, second.id, third.id])).toBe(3);
    const after = await snapshot();
    expect(after.a.spend_total - before.a.spend_total).toBe(13 + 17);
    expect(after.b.spend_total - before.b.spend_total).toBe(19);
  });
});
