import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.ts';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { freshStorage } from '../support/test-database.ts';

/**
 * `kill -9` after a step was billed but before its checkpoint was written. The checkpoint
 * tables are locked from outside (PostgreSQL only: an embedded store has one process), so
 * the step's usage row commits and its checkpoint waits; the process then dies. The process
 * that takes the run over runs the step again, so the run has two billed steps, and the
 * response must count both: its usage is the sum of the run's usage rows.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const onPostgres = Boolean(process.env.DATABASE_URL);
const folders = runtimeFolders({ talker: 'name: Talker\nmodel: openai/test-slow\ninstructions: Talk slowly.\n' });
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let storage: Awaited<ReturnType<typeof freshStorage>>;
let dataDir: string;
let env: NodeJS.ProcessEnv;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 150 });
  storage = await freshStorage();
  dataDir = mkdtempSync(join(tmpdir(), 'junction-checkpoint-gap-'));
  env = {
    ...process.env,
    DATABASE_URL: storage.databaseUrl,
    ...folders.env,
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: dataDir,
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    JUNCTION_RUN_LEASE_SECONDS: '2',
  };
});
afterAll(async () => {
  if (!onPostgres) return folders.remove();
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
const waitFor = async <T>(read: () => Promise<T | undefined>, what: string): Promise<T> => {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const value = await read();
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
};

type Resource = { id: string; status: string; usage: { input_tokens: number; output_tokens: number; cost: number } | null };
type UsageRow = { status: string; input_tokens: number; output_tokens: number; cost_micros: number };

describe.skipIf(!onPostgres)('kill -9 between a billed step and its checkpoint (PostgreSQL)', () => {
  it('the step run again is billed twice and the response counts both', async () => {
    const first = await start();
    const key = JSON.parse(await cli('keys', 'create', '--kind', 'agent', '--name', 'checkpoint-gap', '--json')).key as string;
    await cli('credits', 'grant', '--amount', '5', '--currency', 'USD');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ model: 'talker', input: 'tell me a story', background: true });
    const created = (await (await fetch(`${first.url}/agents/v1/responses`, { method: 'POST', headers, body })).json()) as Resource;
    expect(created.status).toBe('queued');

    const outside = new pg.Client({ connectionString: storage.databaseUrl });
    await outside.connect();
    try {
      // The run's first checkpoint is written before its model call: lock once the upstream is asked.
      await waitFor(async () => (upstream.requests.length > 0 ? true : undefined), 'the model call');
      const runId = (await outside.query<{ id: string }>('SELECT id FROM agent_runs WHERE response_id = $1', [created.id])).rows[0]?.id;
      await outside.query('BEGIN');
      await outside.query('LOCK TABLE agent_checkpoints, agent_checkpoint_blobs, agent_checkpoint_writes IN SHARE MODE');
      const reader = new pg.Client({ connectionString: storage.databaseUrl });
      await reader.connect();
      try {
        await waitFor(async () => {
          const rows = await reader.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE agent_run_id = $1 AND status = 'success'`, [runId]);
          return (rows.rows[0]?.n ?? 0) > 0 ? true : undefined;
        }, 'the step’s usage row');
      } finally {
        await reader.end();
      }
      const exited = once(first.child, 'exit');
      first.child.kill('SIGKILL');
      await exited;
      // The dead process's checkpoint statement is still queued on the lock in its backend,
      // which would commit it once the lock goes: end those backends first, as a lost host's would be.
      await outside.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
      await outside.query('ROLLBACK');
    } finally {
      await outside.end();
    }
    expect(upstream.requests).toHaveLength(1);

    const second = await start();
    const done = await waitFor(async () => {
      const resource = (await (await fetch(`${second.url}/agents/v1/responses/${created.id}`, { headers })).json()) as Resource;
      return resource.status === 'queued' || resource.status === 'in_progress' ? undefined : resource;
    }, 'the response to finish');
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(upstream.requests).toHaveLength(2);
    const stopped = once(second.child, 'exit');
    second.child.kill('SIGTERM');
    await stopped;

    const db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir });
    try {
      const runs = await db.query<{ id: string }>('SELECT id FROM agent_runs WHERE response_id = $1', [created.id]);
      const rows = (await db.query<UsageRow>('SELECT status, input_tokens, output_tokens, cost_micros FROM usage_log WHERE agent_run_id = $1', [runs.rows[0]?.id])).rows;
      expect(rows.map((row) => row.status)).toEqual(['success', 'success']);
      const sum = (field: 'input_tokens' | 'output_tokens' | 'cost_micros') => rows.reduce((total, row) => total + Number(row[field]), 0);
      expect(done.usage?.input_tokens).toBe(sum('input_tokens'));
      expect(done.usage?.output_tokens).toBe(sum('output_tokens'));
      expect(Math.round((done.usage?.cost ?? 0) * 1_000_000)).toBe(sum('cost_micros'));
      const stored = await db.query<{ cost_micros: string }>('SELECT cost_micros FROM responses WHERE id = $1', [created.id]);
      expect(Number(stored.rows[0]?.cost_micros)).toBe(sum('cost_micros'));
    } finally {
      await db.close();
    }
  }, 180_000);
});
