import { once } from 'node:events';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { startTakeoverHarness, type TakeoverHarness, waitFor } from '../support/takeover-harness.ts';

/**
 * `kill -9` after a step was billed but before its checkpoint was written. The checkpoint
 * tables are locked from outside (PostgreSQL only: an embedded store has one process), so
 * the step's usage row commits and its checkpoint waits; the process then dies. The process
 * that takes the run over runs the step again, so the run has two billed steps, and the
 * response must count both: its usage is the sum of the run's usage rows.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const folders = runtimeFolders({ talker: 'name: Talker\nmodel: openai/test-slow\ninstructions: Talk slowly.\n' });
let harness: TakeoverHarness;
let upstream: TakeoverHarness['upstream'];
let storage: TakeoverHarness['storage'];
let dataDir: string;

beforeAll(async () => {
  if (!onPostgres) return;
  harness = await startTakeoverHarness({ folderEnv: folders.env, slowChunkDelayMs: 150, name: 'checkpoint-gap' });
  ({ upstream, storage, dataDir } = harness);
});
afterAll(async () => {
  await harness?.close();
  folders.remove();
});

const start = () => harness.start();
const cli = (...args: string[]) => harness.cli(...args);

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
