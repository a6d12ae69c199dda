import { execFile, type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/store/open-database.ts';
import { startFakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { UPSTREAM_KEYS } from '../../support/gateway-harness.ts';
import { runtimeFolders } from '../../support/runtime-fixtures.ts';
import { SERVER_ARGS } from '../../support/server-process.ts';
import { engineName, freshStorage } from '../../support/test-database.ts';

/**
 * A background run whose process is killed (-9) mid-run is taken over by another
 * process once its lease runs out, resumed from its last checkpoint (the finished
 * steps are not run or billed again), and finishes once.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');
const folders = runtimeFolders({ worker: 'name: Worker\nmodel: openai/test-tool-slow\ninstructions: Use your tool.\ntools: [echo_upper]\n' });
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let storage: Awaited<ReturnType<typeof freshStorage>>;
let dataDir: string;
let env: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 60 });
  storage = await freshStorage();
  dataDir = mkdtempSync(join(tmpdir(), 'junction-resume-'));
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
  };
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await upstream.close();
  await storage.drop();
  rmSync(dataDir, { recursive: true, force: true });
  folders.remove();
});

async function startProcess(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, SERVER_ARGS, { env, stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
  children.push(child);
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    const match = /"url":"(http:[^"]+)"/.exec(line);
    if (match?.[1]) return { child, url: match[1] };
  }
  throw new Error('the server exited before it was ready');
}
const cli = async (...args: string[]) => (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env, timeout: 60_000 })).stdout;

type Resource = { id: string; status: string; output: Array<{ type: string; output?: string | null }>; usage: { cost_details: { tool_cost: number; model_cost: number } } | null };

describe(`background run on ${engineName()}`, () => {
  it('is resumed from its last checkpoint by a second process after the first is killed, and finishes once', async () => {
    const first = await startProcess();
    const key = JSON.parse(await cli('keys', 'create', '--kind', 'agent', '--name', 'resume', '--json')).key as string;
    await cli('credits', 'grant', '--amount', '5', '--currency', 'USD');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = (await (
      await fetch(`${first.url}/agents/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'worker', input: 'make it loud', background: true }) })
    ).json()) as Resource;
    expect(created.status).toBe('queued');

    // Kill it once the tool step is checkpointed, while the second model step streams (the slow fake pads each step with text).
    let seen: Resource | undefined;
    // Generous deadlines: these are real processes on a shared, loaded machine.
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && !seen?.output.some((item) => item.type === 'junction:tool_call' && typeof item.output === 'string'); ) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      seen = (await (await fetch(`${first.url}/agents/v1/responses/${created.id}`, { headers })).json()) as Resource;
    }
    expect(seen?.status).toBe('in_progress');
    // The tool's usage row is written by the settlement group commit a few ms after the
    // tool returns; kill only once it is durable (queue depth 0 counts the batch in
    // flight too), so the test checks the resume, not that window.
    let durable = false;
    for (const deadline = Date.now() + 10_000; !durable && Date.now() < deadline; ) {
      const metrics = await (await fetch(`${first.url}/metrics`)).text();
      durable = /^junction_settlement_queue_depth 0$/m.test(metrics);
      if (!durable) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(durable).toBe(true);
    const exited = once(first.child, 'exit');
    first.child.kill('SIGKILL');
    await exited;
    const firstStepCalls = upstream.requests.filter((request) => !JSON.stringify(request.body).includes('"role":"tool"')).length;
    expect(firstStepCalls).toBe(1);

    const second = await startProcess();
    let done: Resource | undefined;
    for (const deadline = Date.now() + 90_000; Date.now() < deadline && (!done || done.status === 'in_progress' || done.status === 'queued'); ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      done = (await (await fetch(`${second.url}/agents/v1/responses/${created.id}`, { headers })).json()) as Resource;
    }
    expect(done?.status).toBe('completed');
    expect(done?.output.map((item) => item.type)).toEqual(['message', 'junction:tool_call', 'message']);
    expect(done?.usage?.cost_details.tool_cost).toBe(0.002);
    // The first model step ran once: the resumed run went on from the checkpoint after the tool.
    expect(upstream.requests.filter((request) => !JSON.stringify(request.body).includes('"role":"tool"')).length).toBe(1);

    // The replayed stream is one coherent stream: contiguous numbers, each item once, one terminal event.
    const replay = (await (await fetch(`${second.url}/agents/v1/responses/${created.id}?stream=true`, { headers })).text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('event:'))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { type: string; sequence_number: number; item?: { type: string } });
    expect(replay.map((event) => event.sequence_number)).toEqual(replay.map((_, index) => index));
    expect(replay.filter((event) => event.type === 'response.output_item.added').map((event) => event.item?.type)).toEqual(['message', 'junction:tool_call', 'message']);
    expect(replay.filter((event) => event.type.startsWith('response.completed')).length).toBe(1);

    const stopped = once(second.child, 'exit');
    second.child.kill('SIGTERM');
    await stopped;
    const db = await openDatabase({ ...(storage.databaseUrl && { databaseUrl: storage.databaseUrl }), dataDir });
    try {
      const runs = await db.query<{ status: string; attempts: number; id: string }>('SELECT id, status, attempts FROM agent_runs WHERE response_id = $1', [created.id]);
      expect(runs.rows[0]).toMatchObject({ status: 'completed', attempts: 2 });
      const usage = await db.query<{ requested_model: string; n: number }>('SELECT requested_model, count(*)::int AS n FROM usage_log WHERE agent_run_id = $1 GROUP BY requested_model', [
        runs.rows[0]?.id,
      ]);
      // The tool ran (and was billed) once; the model rows are the first step and the resumed second step.
      expect(Object.fromEntries(usage.rows.map((row) => [row.requested_model, row.n]))).toEqual({ 'tool:echo_upper': 1, 'openai/test-tool-slow': 2 });
      const stored = await db.query('SELECT 1 FROM responses WHERE id = $1', [created.id]);
      expect(stored.rows).toHaveLength(1);
    } finally {
      await db.close();
    }
  }, 240_000);
});
