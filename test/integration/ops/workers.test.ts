import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOCATOR_ENV } from '../../../src/ops/allocator-env.ts';
import { startFakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { TEST_CONFIG, UPSTREAM_KEYS } from '../../support/gateway-harness.ts';
import { environmentOf, withoutAllocatorSettings } from '../../support/process-environment.ts';
import { createScratchDatabase } from '../../support/test-database.ts';

/** `npx junction serve --workers 2`: two processes on one port and one database, limits exact across them; PGlite refused. */
const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../../bin/junction.js');
const enabled = Boolean(process.env.DATABASE_URL);
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let primary: ChildProcess | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'junction-workers-'));
  if (!enabled) return;
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai });
  database = await createScratchDatabase(process.env.DATABASE_URL as string, 'junction_workers');
  env = {
    ...process.env,
    DATABASE_URL: database.url,
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_LOG_FORMAT: 'json',
    JUNCTION_DATA_DIR: dataDir,
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    JUNCTION_CONFIG: TEST_CONFIG,
    JUNCTION_AGENTS_DIR: join(dataDir, 'agents'),
    JUNCTION_TOOLS_DIR: join(dataDir, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(dataDir, 'knowledge'),
  };
});
afterAll(async () => {
  if (primary && primary.exitCode === null) {
    primary.kill('SIGTERM');
    await once(primary, 'exit');
  }
  if (enabled) {
    await upstream.close();
    await database.drop();
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('--workers', () => {
  it('refuses more than one worker on the embedded store, with the reason', async () => {
    const { DATABASE_URL: _ignored, ...rest } = process.env;
    const outcome = await run(process.execPath, [BIN, 'serve', '--workers', '2'], { env: { ...rest, JUNCTION_DATA_DIR: dataDir, PORT: '0' }, timeout: 60_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(outcome.code).not.toBe(0);
    expect(outcome.stderr).toMatch(/DATABASE_URL/);
  });

  it.skipIf(!enabled)(
    'serves from two processes on one port and keeps a key limit exact across them',
    async ({ onTestFailed }) => {
      // The workers log to the piped stdout: on a failure, show where it stood and what they said.
      const output: string[] = [];
      let phase = 'starting';
      onTestFailed(() => console.error(`[workers] failed while ${phase}; last output:\n${output.slice(-40).join('\n')}`));
      // The key and the credits are made by the CLI while the workers start (the store is
      // shared and migrations take an advisory lock): five Node processes in sequence are
      // too slow on a loaded 2-core CI machine.
      const created = run(process.execPath, [BIN, 'keys', 'create', '--kind', 'model', '--name', 'workers', '--total-limit-usd', '0.002', '--json'], { env, timeout: 120_000 });
      const granted = run(process.execPath, [BIN, 'credits', 'grant', '--amount', '5', '--currency', 'USD'], { env, timeout: 120_000 });
      // Awaited further down; until then an early failure must not count as an unhandled rejection.
      for (const pending of [created, granted]) pending.catch(() => undefined);
      primary = spawn(process.execPath, [BIN, 'serve', '--workers', '2'], { env: withoutAllocatorSettings(env), stdio: ['ignore', 'pipe', 'inherit'] });
      // Each worker logs "junction is ready" with the URL; both share the one port. The
      // output keeps being read afterwards: a closed pipe would kill the workers (EPIPE).
      const lines = createInterface({ input: primary.stdout as NodeJS.ReadableStream });
      const ready = await new Promise<Array<{ url: string; pid: number }>>((resolve) => {
        const workers: Array<{ url: string; pid: number }> = [];
        lines.on('line', (line) => {
          output.push(line);
          const url = /"url":"(http:[^"]+)"/.exec(line)?.[1];
          const pid = Number(/"pid":(\d+)/.exec(line)?.[1]);
          if (url && line.includes('junction is ready')) workers.push({ url, pid });
          if (workers.length === 2) resolve(workers);
        });
      });
      phase = 'checking the workers';
      const readyUrls = ready.map((worker) => worker.url);
      expect(new Set(readyUrls).size).toBe(1);
      // The primary was started without glibc's allocator settings; it gives them to its workers.
      for (const { pid } of ready) expect(environmentOf(pid)).toMatchObject(ALLOCATOR_ENV);
      const url = readyUrls[0] as string;
      const client = new pg.Client(database.url);
      await client.connect();
      try {
        const holders = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM lease_holders');
        expect(holders.rows[0]?.n).toBe(2);
        phase = 'waiting for the CLI';
        const [made] = await Promise.all([created, granted]);
        phase = 'calling';
        const key = (JSON.parse(made.stdout) as { key: string }).key;
        const statuses = await Promise.all(
          Array.from({ length: 80 }, (_, index) =>
            fetch(`${url}/v1/chat/completions`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ model: 'openai/test-echo', max_tokens: 16, messages: [{ role: 'user', content: `worker call ${index}` }] }),
              signal: AbortSignal.timeout(60_000),
            }).then((response) => response.status),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const spend = await client.query<{ spend: number }>("SELECT COALESCE(sum(cost_micros), 0)::bigint AS spend FROM usage_log WHERE status = 'success'");
        const served = statuses.filter((status) => status === 200).length;
        console.log(`[workers] 2 workers, 80 calls on a $0.002 key: served ${served}, refused ${statuses.length - served}, spend ${spend.rows[0]?.spend} µUSD`);
        expect(served).toBeGreaterThan(0);
        expect(served).toBeLessThan(80);
        expect(Number(spend.rows[0]?.spend)).toBeLessThanOrEqual(2_000);
      } finally {
        await client.end();
      }
    },
    180_000,
  );
});
