import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTextTokens } from '../../src/core/estimate-text-tokens.ts';
import type { ModelMessage } from '../../src/core/model-types.ts';
import { estimateInputTokens } from '../../src/pipeline/estimate-input-tokens.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { engineName, freshStorage } from '../support/test-database.ts';

/**
 * `kill -9` in the middle of a background response's model step. The process that takes
 * the run over settles the step the dead one had under way as `interrupted` (its crash
 * journal: the input estimated from the request sent upstream, the output streamed so far)
 * before it runs the step again, so the finished response's usage is the sum of the run's
 * usage rows, the interrupted one included — without waiting for the dead process's
 * heartbeat to go stale (30 s here, longer than the test).
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const folders = runtimeFolders({ talker: 'name: Talker\nmodel: openai/test-slow\ninstructions: Talk slowly.\n' });
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let storage: Awaited<ReturnType<typeof freshStorage>>;
let dataDir: string;
let env: NodeJS.ProcessEnv;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  // About 33 chunks at 150 ms: a step of 5 s, journaled after 1 s.
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 150 });
  storage = await freshStorage();
  dataDir = mkdtempSync(join(tmpdir(), 'junction-resume-usage-'));
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  env = {
    ...rest,
    ...(storage.databaseUrl && { DATABASE_URL: storage.databaseUrl }),
    ...folders.env,
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: dataDir,
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    JUNCTION_RUN_LEASE_SECONDS: '2',
    JUNCTION_LEASE_TIMEOUT_SECONDS: '30',
  };
});
afterAll(async () => {
  for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
  await upstream.close();
  await storage.drop();
  rmSync(dataDir, { recursive: true, force: true });
  folders.remove();
});

const start = async () => {
  const server = await startServerProcess(env);
  servers.push(server);
  return server;
};
const cli = async (...args: string[]) => (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env, timeout: 60_000 })).stdout;

type WireUsage = { input_tokens: number; output_tokens: number; cost: number };
type Resource = { id: string; status: string; output: Array<{ type: string; content?: Array<{ text: string }> }>; usage: WireUsage | null };
type UsageRow = { status: string; input_tokens: number; output_tokens: number; cost_micros: number };
type SentBody = { model: string; messages: Array<{ role: string; content: string | Array<{ text: string }> }> };

/** The canonical form of what the fake upstream received (system and user text only: this agent has no tools). */
const canonical = (body: SentBody): ModelMessage[] =>
  body.messages.map((message) => {
    const text = typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('');
    return message.role === 'system' ? { role: 'system', content: text } : { role: 'user', content: [{ type: 'text', text }] };
  });

describe(`kill -9 mid-step of a background response on ${engineName()}`, () => {
  it('the resumed response counts the interrupted step: its usage is the sum of the run’s usage rows', async () => {
    const first = await start();
    const key = JSON.parse(await cli('keys', 'create', '--kind', 'agent', '--name', 'resume-usage', '--json')).key as string;
    await cli('credits', 'grant', '--amount', '5', '--currency', 'USD');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = (await (
      await fetch(`${first.url}/agents/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'talker', input: 'tell me a long story', background: true }) })
    ).json()) as Resource;
    expect(created.status).toBe('queued');

    // Past the journal's first write (1 s into the stream) and well before the step ends (5 s).
    for (const deadline = Date.now() + 30_000; upstream.requests.length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const exited = once(first.child, 'exit');
    first.child.kill('SIGKILL');
    await exited;
    expect(upstream.requests).toHaveLength(1);
    const sent = upstream.requests[0]?.body as SentBody;

    const second = await start();
    let done: Resource | undefined;
    for (const deadline = Date.now() + 90_000; Date.now() < deadline && (!done || done.status === 'in_progress' || done.status === 'queued'); ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      done = (await (await fetch(`${second.url}/agents/v1/responses/${created.id}`, { headers })).json()) as Resource;
    }
    expect(done?.status, JSON.stringify(done)).toBe('completed');
    expect(upstream.requests).toHaveLength(2);
    const stopped = once(second.child, 'exit');
    second.child.kill('SIGTERM');
    await stopped;

    const db = await openDatabase({ ...(storage.databaseUrl && { databaseUrl: storage.databaseUrl }), dataDir });
    try {
      const runs = await db.query<{ id: string }>('SELECT id FROM agent_runs WHERE response_id = $1', [created.id]);
      const rows = (await db.query<UsageRow>('SELECT status, input_tokens, output_tokens, cost_micros FROM usage_log WHERE agent_run_id = $1 ORDER BY status', [runs.rows[0]?.id])).rows;
      expect(rows.map((row) => row.status)).toEqual(['interrupted', 'success']);
      const [interrupted] = rows as [UsageRow, UsageRow];
      // The interrupted step: its input estimated from the request the dead process sent, its output what had streamed.
      expect(interrupted.input_tokens).toBe(Math.ceil(estimateInputTokens({ messages: canonical(sent) }) / 4));
      expect(interrupted.output_tokens).toBeGreaterThan(0);
      const answer = done?.output.find((item) => item.type === 'message')?.content?.[0]?.text ?? '';
      expect(interrupted.output_tokens).toBeLessThan(estimateTextTokens(answer));
      expect(interrupted.cost_micros).toBe(interrupted.input_tokens * 10 + interrupted.output_tokens * 20);

      const sum = (field: 'input_tokens' | 'output_tokens' | 'cost_micros') => rows.reduce((total, row) => total + row[field], 0);
      expect(done?.usage?.input_tokens).toBe(sum('input_tokens'));
      expect(done?.usage?.output_tokens).toBe(sum('output_tokens'));
      expect(Math.round((done?.usage?.cost ?? 0) * 1_000_000)).toBe(sum('cost_micros'));
      // The stored response says the same, and so does the key's spend (the row is billed, once).
      const stored = await db.query<{ cost_micros: number }>('SELECT cost_micros FROM responses WHERE id = $1', [created.id]);
      expect(stored.rows[0]?.cost_micros).toBe(sum('cost_micros'));
      const open = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM open_calls WHERE agent_run_id = $1', [runs.rows[0]?.id]);
      expect(open.rows[0]?.n).toBe(0);
    } finally {
      await db.close();
    }
  }, 180_000);
});
