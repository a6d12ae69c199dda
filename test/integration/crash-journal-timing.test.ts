import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { JOURNAL_START_MS, type OpenCall } from '../../src/billing/open-call.ts';
import { TEST_CONFIG } from '../support/gateway-harness.ts';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';
import { usageRecordFixture } from '../support/usage-record-fixture.ts';

/**
 * The crash journal (open_calls) holds calls that have lasted JOURNAL_START_MS: a
 * shorter call never costs a journal row, even when group commits happen while it runs;
 * a longer one is journaled while open and its row goes when it settles. Journaling a
 * call does not hold back its usage row: that goes with the next group commit. When the
 * queue is driven directly, its clock and timers are vitest's, moved on by the test.
 */
let app: TestApp;
let upstream: Server;
let key: string;
/** Answers of held calls, released by the test. */
const held: ServerResponse[] = [];

const completion = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'test-echo',
  choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
});
const answer = (response: ServerResponse) => response.writeHead(200, { 'content-type': 'application/json' }).end(completion);

beforeAll(async () => {
  // "hold" waits for the test; anything else is answered after 150 ms (many group commits, far below JOURNAL_START_MS).
  upstream = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => (body.includes('hold') ? held.push(response) : setTimeout(() => answer(response), 150)));
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  const env = { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: url, JUNCTION_CONFIG: TEST_CONFIG };
  app = await startTestApp(env, { env });
  key = await app.key('model');
  await runAdminCommand(app.services, { command: 'credits.grant', amount: '5', currency: 'USD' });
  // Every row ever written to the journal, whatever happens to it afterwards.
  await app.services.db.query('CREATE TABLE test_journal_writes (id text NOT NULL)');
  await app.services.db.query(
    `CREATE FUNCTION test_record_journal_write() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN INSERT INTO test_journal_writes VALUES (NEW.id); RETURN NEW; END $$`,
  );
  await app.services.db.query('CREATE TRIGGER test_journal_writes AFTER INSERT ON open_calls FOR EACH ROW EXECUTE FUNCTION test_record_journal_write()');
});
afterAll(async () => {
  for (const response of held) answer(response);
  await app.close();
  upstream.close();
});

afterEach(() => {
  vi.useRealTimers();
});

const chat = (content: string) => app.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model: 'openai/test-echo', messages: [{ role: 'user', content }] } });
const count = async (sql: string) => (await app.services.db.query<{ n: number }>(sql)).rows[0]?.n ?? -1;
const journalRows = (id: string) => count(`SELECT count(*)::int AS n FROM open_calls WHERE id = '${id}'`);
const usage = (id: string) => usageRecordFixture({ accountId: app.services.defaultAccount.id, keyId: null }, { id, streamed: true });
const openCall = (id: string, startedAt: Date, outputTokens = 1): OpenCall => ({ ...usage(id), inputTokens: 5, outputTokens, costMicros: 10, startedAt });
const settlement = (id: string) => ({ usage: usage(id), keyId: null, accountId: app.services.defaultAccount.id, spendMicros: 10, keyLeaseMicros: 0, accountLeaseMicros: 0 });
const twoPeriodsAgo = () => new Date(Date.now() - 2 * JOURNAL_START_MS);

describe('crash journal timing', () => {
  it('never journals calls that settle within JOURNAL_START_MS', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => chat('quick')));
    expect(answers.map((response) => response.statusCode)).toEqual(Array(8).fill(200));
    await app.services.settlements.drain();
    expect(await count("SELECT count(*)::int AS n FROM usage_log WHERE status = 'success'")).toBe(8);
    expect(await count('SELECT count(*)::int AS n FROM test_journal_writes')).toBe(0);
  });

  it('journals a call still open after JOURNAL_START_MS, and drops its row when it settles', async () => {
    const pending = chat('hold');
    for (let attempt = 0; attempt < 400 && (await count('SELECT count(*)::int AS n FROM open_calls')) === 0; attempt += 1) {
      await new Promise((done) => setTimeout(done, 25));
    }
    expect(await count('SELECT count(*)::int AS n FROM open_calls')).toBe(1);
    for (const response of held.splice(0)) answer(response);
    const response = await pending;
    expect(response.statusCode).toBe(200);
    await app.services.settlements.drain();
    expect(await count('SELECT count(*)::int AS n FROM open_calls')).toBe(0);
    const id = (response.json() as { id: string }).id;
    expect(await count(`SELECT count(*)::int AS n FROM test_journal_writes WHERE id = '${id}'`)).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM usage_log WHERE id = '${id}' AND status = 'success'`)).toBe(1);
  });

  it('writes the journal row when the call has lasted JOURNAL_START_MS, not a millisecond before', async () => {
    const queue = app.services.settlements;
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    queue.journal(openCall('gen-journal-due', new Date()));
    await vi.advanceTimersByTimeAsync(JOURNAL_START_MS - 1);
    await queue.flush();
    expect(await journalRows('gen-journal-due')).toBe(0);
    // Its timer fires now and writes it.
    await vi.advanceTimersByTimeAsync(1);
    await queue.drain();
    expect(await journalRows('gen-journal-due')).toBe(1);
    queue.add(settlement('gen-journal-due'));
    await queue.drain();
    expect(await journalRows('gen-journal-due')).toBe(0);
  });

  it("writes a settled call's usage row with the next group commit, not when the journal would have been due", async () => {
    // A non-streamed call is journaled at its start, which sets a flush for when it will have
    // lasted JOURNAL_START_MS. Its usage row must not wait for that flush: a kill -9 in
    // between would lose the row (it is already out of the journal).
    const queue = app.services.settlements;
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    queue.journal(openCall('gen-journal-settled', new Date()));
    await vi.advanceTimersByTimeAsync(150);
    queue.add(settlement('gen-journal-settled'));
    expect(queue.pendingCount).toBe(1);
    // One group-commit window later, far from the journal's due time, the row is on its way.
    await vi.advanceTimersByTimeAsync(10);
    expect(queue.pendingCount).toBe(0);
    await queue.drain();
    expect(await count("SELECT count(*)::int AS n FROM usage_log WHERE id = 'gen-journal-settled'")).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM test_journal_writes WHERE id = 'gen-journal-settled'")).toBe(0);
  });

  it('drops the row of a journaled call whose progress was queued again when it settled, and only rows that were written', async () => {
    const queue = app.services.settlements;
    const settle = (id: string) => queue.add(settlement(id));

    // Journaled (due at once: it started two journal periods ago), then its progress queued again.
    queue.journal(openCall('gen-journal-progress', twoPeriodsAgo(), 1));
    await queue.flush();
    expect(await journalRows('gen-journal-progress')).toBe(1);
    queue.journal(openCall('gen-journal-progress', twoPeriodsAgo(), 40));
    settle('gen-journal-progress');
    // A call journaled but settled before any flush took its row: it never had one.
    queue.journal(openCall('gen-journal-unwritten', twoPeriodsAgo(), 1));
    settle('gen-journal-unwritten');
    await queue.drain();

    expect(await journalRows('gen-journal-progress')).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM test_journal_writes WHERE id = 'gen-journal-unwritten'")).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM usage_log WHERE id IN ('gen-journal-progress', 'gen-journal-unwritten')")).toBe(2);
  });
});
