import { appendFileSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { leftoverSegments, SettlementFileJournal } from '../../src/billing/settlement-file-journal.ts';
import { replaySettlementFiles } from '../../src/billing/settlement-file-replay.ts';
import { SettlementQueue } from '../../src/billing/settlement-queue.ts';
import type { UsageRecord } from '../../src/billing/usage-record.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';
import { usageRecordFixture } from '../support/usage-record-fixture.ts';

/**
 * The settlement file journal's replay at start (both engines): the settlements a killed
 * process left in its files reach the usage log and the key's and account's spend once,
 * however many times the same settlement is replayed, and a file cut mid-line is read up
 * to its last whole line.
 */
let gateway: GatewayHarness;
let keyId: string;
let folder: string;

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  const key = await gateway.key('model');
  const status = await gateway.app.inject({ method: 'GET', url: '/v1/key', headers: bearer(key) });
  keyId = status.json<{ data: { id: string } }>().data.id;
  folder = mkdtempSync(join(tmpdir(), 'junction-settling-replay-'));
});
afterAll(async () => {
  await gateway?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const spend = async () => {
  const key = await gateway.services.db.query<{ total: string }>('SELECT spend_total_micros::text AS total FROM api_keys WHERE id = $1', [keyId]);
  const account = await gateway.services.db.query<{ usage: string }>('SELECT usage_micros::text AS usage FROM accounts WHERE id = $1', [gateway.services.defaultAccount.id]);
  return { key: Number(key.rows[0]?.total), account: Number(account.rows[0]?.usage) };
};

describe('settlement file replay', () => {
  it('bills what a killed process left in its files once, even when a settlement is in two files', async () => {
    const directory = join(folder, 'journal');
    // The process that died: it recorded three settled calls and synced them, and its database never got them.
    const dead = new SettlementFileJournal(directory);
    const usage: UsageRecord[] = [1_000, 2_000, 3_000].map((costMicros) => usageRecordFixture({ accountId: gateway.services.defaultAccount.id, keyId }, { costMicros }));
    for (const row of usage) dead.record({ usage: row, keyId, accountId: row.accountId, spendMicros: row.costMicros, keyLeaseMicros: 50, accountLeaseMicros: 50 });
    await dead.sync();
    const [file] = await leftoverSegments(directory);
    // The same settlements in a second file (as after a replay cut short), and a last line cut mid-write.
    copyFileSync(file as string, (file as string).replace(/\.jsonl$/, '-again.jsonl'));
    appendFileSync(file as string, '{"usage":{"id":"gen-cut-short","accountId":"');

    const before = await spend();
    // The dead process observed these calls (its metrics counted them): a replay is not observed again.
    const observed: UsageRecord[] = [];
    const queue = new SettlementQueue(gateway.services.db, undefined, { onError: () => undefined, onUsage: (row) => observed.push(row) });
    expect(await replaySettlementFiles(directory, queue)).toBe(6);
    expect(observed).toEqual([]);

    const rows = await gateway.services.db.query<{ id: string; cost_micros: string }>('SELECT id, cost_micros::text FROM usage_log WHERE id = ANY($1::text[]) ORDER BY cost_micros', [
      usage.map((row) => row.id),
    ]);
    expect(rows.rows.map((row) => [row.id, Number(row.cost_micros)])).toEqual(usage.map((row) => [row.id, row.costMicros]));
    const after = await spend();
    expect(after.key - before.key).toBe(6_000);
    expect(after.account - before.account).toBe(6_000);
    // Replayed files are gone; a second start replays nothing.
    expect(await leftoverSegments(directory)).toEqual([]);
    expect(await replaySettlementFiles(directory, queue)).toBe(0);
    expect(await spend()).toEqual(after);
    // The dead process's file handle, which a real death would have closed.
    await dead.close();
  });

  it('holds journaled calls for the long window, and writes within 10 ms what the journal cannot hold', async () => {
    const owner = { accountId: gateway.services.defaultAccount.id, keyId };
    const settled = (costMicros: number) => {
      const usage = usageRecordFixture(owner, { costMicros });
      return { usage, keyId, accountId: usage.accountId, spendMicros: costMicros, keyLeaseMicros: 0, accountLeaseMicros: 0 };
    };
    const inLog = async (id: string) => (await gateway.services.db.query('SELECT 1 FROM usage_log WHERE id = $1', [id])).rows.length === 1;
    const eventually = async (check: () => Promise<boolean>) => {
      const deadline = Date.now() + 5_000;
      while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      return check();
    };

    // A journal that works: its calls wait for the minute-long window (or a drain).
    const working = new SettlementFileJournal(join(folder, 'working'));
    const queue = new SettlementQueue(gateway.services.db, undefined, () => undefined, { journal: working, windowMs: 60_000 });
    const held = settled(11);
    queue.add(held);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await inLog(held.usage.id)).toBe(false);
    // Spend without a usage row is not in the journal: it keeps the 10 ms window (and takes the held call along).
    const before = await spend();
    queue.add({ keyId, accountId: owner.accountId, spendMicros: 500, keyLeaseMicros: 0, accountLeaseMicros: 0 });
    expect(await eventually(async () => (await spend()).key - before.key === 511)).toBe(true);
    expect(await inLog(held.usage.id)).toBe(true);
    await queue.close();

    // A journal that cannot write (a file where its folder should be): from then on, 10 ms.
    writeFileSync(join(folder, 'broken'), 'not a folder');
    const broken = new SettlementFileJournal(join(folder, 'broken'), { onError: () => undefined });
    const fallback = new SettlementQueue(gateway.services.db, undefined, () => undefined, { journal: broken, windowMs: 60_000 });
    const first = settled(13);
    fallback.add(first);
    await broken.sync();
    expect(broken.healthy).toBe(false);
    const second = settled(17);
    fallback.add(second);
    expect(await eventually(async () => (await inLog(first.usage.id)) && inLog(second.usage.id))).toBe(true);
    await fallback.close();
  });
});
