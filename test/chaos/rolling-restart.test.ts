import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { TEST_CONFIG, UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { type RoundRobinProxy, startRoundRobinProxy } from '../support/round-robin-proxy.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { createScratchDatabase } from '../support/test-database.ts';

/**
 * Three hosts on one PostgreSQL behind a round-robin balancer that follows `/readyz`,
 * restarted one after another with SIGTERM while streams run through them. Figures to
 * reach: each host says "draining" before it stops taking connections, every stream and
 * call answered in full (none cut, none refused), and every one of them billed once.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const HOSTS = 3;
const STREAMS_PER_RESTART = 6;
const enabled = Boolean(process.env.DATABASE_URL);
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let folder: string;
let proxy: RoundRobinProxy | undefined;
const hosts: ServerProcess[] = [];
const hostEnv = (index: number): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: database.url,
  PORT: '0',
  LOG_LEVEL: 'info',
  JUNCTION_DATA_DIR: join(folder, `host-${index}`),
  JUNCTION_DRAIN_DELAY_MS: '800',
  OPENAI_API_KEY: UPSTREAM_KEYS.openai,
  OPENAI_BASE_URL: upstream.url,
  JUNCTION_CONFIG: TEST_CONFIG,
  JUNCTION_AGENTS_DIR: join(folder, 'agents'),
  JUNCTION_TOOLS_DIR: join(folder, 'tools'),
  JUNCTION_KNOWLEDGE_DIR: join(folder, 'knowledge'),
});

beforeAll(async () => {
  if (!enabled) return;
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 40 });
  database = await createScratchDatabase(process.env.DATABASE_URL as string, 'junction_rolling');
  folder = mkdtempSync(join(tmpdir(), 'junction-rolling-'));
});
afterAll(async () => {
  if (!enabled) return;
  await proxy?.close();
  for (const host of hosts) if (host.child.exitCode === null) host.child.kill('SIGKILL');
  await upstream.close();
  await database.drop();
  rmSync(folder, { recursive: true, force: true });
});

const cli = async (...args: string[]) => (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env: hostEnv(0), timeout: 60_000 })).stdout;

/** A streamed chat call through the balancer: its status and whether the stream ended with [DONE]. */
async function stream(url: string, key: string): Promise<{ status: number; complete: boolean }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/test-slow', stream: true, messages: [{ role: 'user', content: 'through a restart' }] }),
  });
  const text = await response.text().catch(() => '');
  return { status: response.status, complete: text.trimEnd().endsWith('data: [DONE]') };
}

async function call(url: string, key: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'during a drain' }] }),
  });
  await response.text();
  return response.status;
}

async function readiness(url: string): Promise<{ status: number; body: { status?: string } }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as { status?: string } };
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function billed(): Promise<{ rows: number; cost: number; spend: number }> {
  const client = new pg.Client({ connectionString: database.url });
  client.on('error', () => undefined); // the scratch database's drop may end it
  await client.connect();
  try {
    const result = await client.query<{ rows: string; cost: string | null; spend: string }>(
      "SELECT (SELECT count(*) FROM usage_log WHERE status = 'success') AS rows, (SELECT sum(cost_micros) FROM usage_log) AS cost, (SELECT sum(spend_total_micros) FROM api_keys) AS spend",
    );
    const row = result.rows[0];
    return { rows: Number(row?.rows), cost: Number(row?.cost ?? 0), spend: Number(row?.spend) };
  } finally {
    await client.end();
  }
}

describe.skipIf(!enabled)('rolling restart of three hosts behind a balancer (PostgreSQL)', () => {
  it('drains each host in turn without cutting a stream or refusing a call, and bills every one', async () => {
    for (let index = 0; index < HOSTS; index += 1) hosts.push(await startServerProcess(hostEnv(index)));
    const created = JSON.parse(await cli('keys', 'create', '--kind', 'model', '--name', 'rolling', '--json')) as { key: string };
    await cli('credits', 'grant', '--amount', '50', '--currency', 'USD');
    const balancer = await startRoundRobinProxy(hosts.map((host) => host.url));
    proxy = balancer;

    const streams: Array<{ status: number; complete: boolean }> = [];
    const calls: number[] = [];
    const drainingSeen: boolean[] = [];
    const exitCodes: Array<number | null> = [];
    for (let index = 0; index < HOSTS; index += 1) {
      const host = hosts[index] as ServerProcess;
      const running = Array.from({ length: STREAMS_PER_RESTART }, () => stream(balancer.url, created.key));
      await new Promise((resolve) => setTimeout(resolve, 300));
      host.child.kill('SIGTERM');
      drainingSeen.push(await waitFor(async () => (await readiness(host.url)).body.status === 'draining', 700));
      // Calls keep arriving through the balancer for the whole drain and the close after it.
      const drainEnds = Date.now() + 1_500;
      while (Date.now() < drainEnds) {
        calls.push(await call(balancer.url, created.key));
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      streams.push(...(await Promise.all(running)));
      if (host.child.exitCode === null) await once(host.child, 'exit');
      exitCodes.push(host.child.exitCode);
      const restarted = await startServerProcess(hostEnv(index));
      hosts[index] = restarted;
      balancer.setBackend(index, restarted.url);
      expect(await waitFor(async () => (await readiness(restarted.url)).status === 200, 10_000)).toBe(true);
    }
    const served = streams.length + calls.length;
    const landed = await waitFor(async () => (await billed()).rows === served, 10_000);
    const final = await billed();
    console.log(
      `[chaos] rolling restart of ${HOSTS} hosts: streams ${streams.filter((s) => s.complete).length}/${streams.length} complete, calls ${calls.filter((status) => status === 200).length}/${calls.length} answered 200, routed ${balancer.routed.join('/')}, rows ${final.rows} of ${served}`,
    );

    expect(drainingSeen).toEqual([true, true, true]);
    expect(exitCodes).toEqual([0, 0, 0]);
    expect(streams.filter((result) => result.status !== 200 || !result.complete)).toEqual([]);
    expect(calls.filter((status) => status !== 200)).toEqual([]);
    expect({ landed, rows: final.rows }).toEqual({ landed: true, rows: served });
    expect(final.spend).toBe(final.cost);
    expect(final.spend).toBeGreaterThan(0);
  }, 180_000);
});
