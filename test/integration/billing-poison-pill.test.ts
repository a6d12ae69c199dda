import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { replayShutdownJournals, writeShutdownJournal } from '../../src/billing/shutdown-journal.ts';
import type { UsageRecord } from '../../src/billing/usage-record.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';
import { usageRecordFixture } from '../support/usage-record-fixture.ts';

/**
 * One bad request never stops billing: text that cannot be stored is refused at the
 * edge (400) or made storable in the usage row, and a batch that fails for one row is
 * split so every other row lands.
 */
let gateway: GatewayHarness;
let key: string;
let keyId: string;

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  key = await gateway.key('model', { totalLimitMicros: 5_000_000 });
  const status = await gateway.app.inject({ method: 'GET', url: '/v1/key', headers: bearer(key) });
  keyId = status.json<{ data: { id: string } }>().data.id;
});
afterAll(async () => gateway?.close());

const chat = (model: string) =>
  gateway.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: { model, messages: [{ role: 'user', content: 'hello' }] },
  });

const usageRow = (overrides: Partial<UsageRecord>): UsageRecord => usageRecordFixture({ accountId: gateway.services.defaultAccount.id, keyId }, overrides);

describe('poison pills', () => {
  it('refuses a lone surrogate at the edge with 400 naming the field, and billing goes on', async () => {
    const bad = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: '{"model":"x\\udc39","messages":[{"role":"user","content":"hello"}]}',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ error: { param: string } }>().error.param).toBe('model');
    const good = await chat('openai/test-echo');
    expect(good.statusCode).toBe(200);
    await gateway.settle();
    const rows = await gateway.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_log WHERE key_id = $1 AND status = 'success'", [keyId]);
    expect(rows.rows[0]?.n).toBe(1);
  });

  it('stores a refused call’s requested model bounded, not at full length', async () => {
    const long = `m${'x'.repeat(200_000)}`;
    const refused = await chat(long);
    expect(refused.statusCode).toBe(404);
    await gateway.settle();
    const rows = await gateway.services.db.query<{ length: number }>("SELECT length(requested_model) AS length FROM usage_log WHERE key_id = $1 AND status = 'rejected'", [keyId]);
    expect(rows.rows[0]?.length).toBeLessThanOrEqual(256);
  });

  it('counts the batch being written as not yet in the database', async () => {
    const queue = gateway.services.settlements;
    await queue.drain();
    // A transaction holding the key's row makes the settlement statement wait (on PGlite,
    // any statement waits for an open transaction): the batch is in flight.
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holding = gateway.services.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM api_keys WHERE id = $1 FOR UPDATE', [keyId]);
      locked();
      await gate;
    });
    await lockTaken;
    queue.add({ usage: usageRow({}), keyId, accountId: gateway.services.defaultAccount.id, spendMicros: 100, keyLeaseMicros: 0, accountLeaseMicros: 0 });
    const flushing = queue.flush();
    expect(queue.pendingCount).toBe(0);
    expect(queue.backlog().depth).toBe(1);
    release();
    await holding;
    await flushing;
    expect(queue.backlog()).toEqual({ depth: 0, oldestPendingAgeMs: 0 });
  });

  it('stores client-chosen text exactly, whatever array or JSON syntax it holds, with every column', async () => {
    // Usage rows travel as one array per column: these must not be read as array syntax.
    const texts = ['NULL', '', 'a,"b\\c{d}\'e', ' spaced ', '{}', 'null', 'ünï 字'];
    const createdAt = new Date('2026-11-27T09:15:42.123Z');
    const rows = texts.map((text, index) =>
      usageRow({
        requestedModel: text,
        requestId: `req_${index}`,
        errorCode: index === 0 ? null : text,
        units: index === 1 ? { images: 2, 'odd "unit"': 0.5 } : null,
        agentVersion: index === 2 ? 'v3' : null,
        streamed: index % 2 === 0,
        costMicros: 9_007_199_254 + index,
        createdAt,
      }),
    );
    const queue = gateway.services.settlements;
    for (const usage of rows) queue.add({ usage, keyId, accountId: gateway.services.defaultAccount.id, spendMicros: 0, keyLeaseMicros: 0, accountLeaseMicros: 0 });
    await queue.drain();
    const stored = await gateway.services.db.query<Record<string, unknown>>(
      `SELECT id, requested_model, error_code, units, agent_version, streamed, cost_micros, created_at, request_id
       FROM usage_log WHERE id = ANY($1) ORDER BY request_id`,
      [rows.map((row) => row.id)],
    );
    expect(stored.rows).toEqual(
      rows.map((row) => ({
        id: row.id,
        requested_model: row.requestedModel,
        error_code: row.errorCode,
        units: row.units,
        agent_version: row.agentVersion,
        streamed: row.streamed,
        cost_micros: row.costMicros,
        created_at: createdAt,
        request_id: row.requestId,
      })),
    );
  });

  it('makes a malformed usage row storable and splits a batch around a row that still fails', async () => {
    const queue = gateway.services.settlements;
    const before = await gateway.services.db.query<{ spend: number }>('SELECT spend_total_micros AS spend FROM api_keys WHERE id = $1', [keyId]);
    const settlements = Array.from({ length: 9 }, (_, index) => ({
      usage: usageRow(index === 4 ? { requestedModel: 'bad\udc39\u0000model' } : {}),
      keyId,
      accountId: gateway.services.defaultAccount.id,
      spendMicros: 100,
      keyLeaseMicros: 0,
      accountLeaseMicros: 0,
    }));
    // Rows no write can take (an account, a key that does not exist): they must not hold the others back.
    const orphan = { usage: usageRow({ accountId: randomUUID(), keyId: null }), keyId: null, accountId: null, spendMicros: 100, keyLeaseMicros: 0, accountLeaseMicros: 0 };
    const keyOrphan = { usage: usageRow({ keyId: randomUUID() }), keyId: null, accountId: null, spendMicros: 100, keyLeaseMicros: 0, accountLeaseMicros: 0 };
    for (const settlement of [...settlements.slice(0, 5), orphan, ...settlements.slice(5, 7), keyOrphan, ...settlements.slice(7)]) queue.add(settlement);
    await queue.drain();
    const written = await gateway.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_log WHERE id = ANY($1)', [settlements.map((settlement) => settlement.usage.id)]);
    const after = await gateway.services.db.query<{ spend: number }>('SELECT spend_total_micros AS spend FROM api_keys WHERE id = $1', [keyId]);
    const stored = await gateway.services.db.query<{ requested_model: string }>('SELECT requested_model FROM usage_log WHERE id = $1', [settlements[4]?.usage.id]);
    console.log(
      `[chaos] poison pill: rows expected 9, found ${written.rows[0]?.n}; spend added ${Number(after.rows[0]?.spend) - Number(before.rows[0]?.spend)} µUSD of 900; kept aside ${queue.poisonedCount} of 2`,
    );
    expect(written.rows[0]?.n).toBe(9);
    expect(Number(after.rows[0]?.spend) - Number(before.rows[0]?.spend)).toBe(900);
    expect(stored.rows[0]?.requested_model).toBe('bad\ufffdmodel');
    const orphans = await gateway.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_log WHERE id = ANY($1)', [[orphan.usage.id, keyOrphan.usage.id]]);
    expect(orphans.rows[0]?.n).toBe(0);
    expect(queue.poisonedCount).toBe(2);
    expect(queue.pendingCount).toBe(0);
  });

  it('journals unwritten settlements to a private file at shutdown and bills them once at the next start', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'junction-journal-'));
    try {
      const settlements = Array.from({ length: 3 }, () => ({
        usage: usageRow({}),
        keyId,
        accountId: gateway.services.defaultAccount.id,
        spendMicros: 100,
        keyLeaseMicros: 0,
        accountLeaseMicros: 0,
      }));
      const spend = async () => Number((await gateway.services.db.query<{ spend: number }>('SELECT spend_total_micros AS spend FROM api_keys WHERE id = $1', [keyId])).rows[0]?.spend);
      const before = await spend();
      const file = await writeShutdownJournal(directory, 'holder-test', settlements);
      expect(readdirSync(directory)).toEqual([basename(file)]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const ids = settlements.map((settlement) => settlement.usage.id);
      expect(await replayShutdownJournals(directory, gateway.services.settlements)).toBe(3);
      // Replayed again (as if the file had stayed): the rows are already there, nothing is added.
      await writeShutdownJournal(directory, 'holder-test', settlements);
      expect(await replayShutdownJournals(directory, gateway.services.settlements)).toBe(3);
      const written = await gateway.services.db.query<{ n: number; created: Date }>('SELECT count(*)::int AS n, min(created_at) AS created FROM usage_log WHERE id = ANY($1)', [ids]);
      expect(written.rows[0]?.n).toBe(3);
      expect((await spend()) - before).toBe(300);
      expect(new Date(written.rows[0]?.created ?? 0).getTime()).toBe(Math.min(...settlements.map((settlement) => settlement.usage.createdAt.getTime())));
      expect(readdirSync(directory)).toEqual([]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('agent input that cannot be stored', () => {
  let agents: GatewayHarness;
  let agentKey: string;

  beforeAll(async () => {
    const fixtures = `${import.meta.dirname}/../fixtures/agents-e2e`;
    agents = await startGateway({ JUNCTION_AGENTS_DIR: `${fixtures}/agents`, JUNCTION_TOOLS_DIR: `${fixtures}/tools`, JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
    await runAdminCommand(agents.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
    agentKey = await agents.key('agent');
  });
  afterAll(async () => agents?.close());

  it('answers 400, not 500, to a lone surrogate and to a turn too large to store', async () => {
    const surrogate = await agents.app.inject({
      method: 'POST',
      url: '/agents/v1/chat/completions',
      headers: { ...bearer(agentKey), 'content-type': 'application/json' },
      payload: '{"model":"echo","messages":[{"role":"user","content":"bad \\ud800 text"}]}',
    });
    expect(surrogate.statusCode).toBe(400);
    expect(surrogate.json<{ error: { param: string } }>().error.param).toBe('messages.0.content');
    const huge = await agents.app.inject({
      method: 'POST',
      url: '/agents/v1/chat/completions',
      headers: bearer(agentKey),
      payload: { model: 'echo', messages: Array.from({ length: 50_000 }, () => ({ role: 'user', content: 'x' })) },
    });
    expect(huge.statusCode).toBe(400);
    expect(huge.json<{ error: { param: string } }>().error.param).toBe('messages');
    const responses = await agents.app.inject({
      method: 'POST',
      url: '/agents/v1/responses',
      headers: bearer(agentKey),
      payload: { model: 'echo', input: Array.from({ length: 50_000 }, () => ({ role: 'user', content: 'x' })) },
    });
    expect(responses.statusCode).toBe(400);
    const fine = await agents.app.inject({
      method: 'POST',
      url: '/agents/v1/chat/completions',
      headers: bearer(agentKey),
      payload: { model: 'echo', messages: [{ role: 'user', content: 'still fine' }] },
    });
    expect(fine.statusCode).toBe(200);
  });

  it('refuses a key name holding NUL with 400', async () => {
    const provisioning = await agents.key('provisioning');
    const created = await agents.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'bad\u0000name' } });
    expect(created.statusCode).toBe(400);
    expect(created.json<{ error: { param: string } }>().error.param).toBe('name');
  });
});
