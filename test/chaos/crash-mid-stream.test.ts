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
import { startServerProcess } from '../support/server-process.ts';
import { createScratchDatabase } from '../support/test-database.ts';

/**
 * `kill -9` with 30 streams open: the restarted server (or any live process) reclaims
 * the dead one's leases once its heartbeat is older than the lease timeout, and settles
 * each journaled call as `interrupted`, billed for the tokens streamed so far. Figure
 * to reach: 30 of 30 rows and the spend, within the lease timeout + 5 s of restart.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const LEASE_TIMEOUT_SECONDS = 6;
const STREAMS = 30;
const enabled = Boolean(process.env.DATABASE_URL);
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let dataDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  if (!enabled) return;
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 400 });
  database = await createScratchDatabase(process.env.DATABASE_URL as string, 'junction_chaos');
  dataDir = mkdtempSync(join(tmpdir(), 'junction-crash-'));
  env = {
    ...process.env,
    DATABASE_URL: database.url,
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: dataDir,
    JUNCTION_LEASE_TIMEOUT_SECONDS: String(LEASE_TIMEOUT_SECONDS),
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    JUNCTION_CONFIG: TEST_CONFIG,
    JUNCTION_AGENTS_DIR: join(dataDir, 'agents'),
    JUNCTION_TOOLS_DIR: join(dataDir, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(dataDir, 'knowledge'),
  };
});
afterAll(async () => {
  if (!enabled) return;
  await upstream.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const cli = async (...args: string[]) => (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env, timeout: 60_000 })).stdout;

describe.skipIf(!enabled)('kill -9 with streams open', () => {
  it('bills every open stream as interrupted after the restart', async () => {
    const first = await startServerProcess(env);
    const created = JSON.parse(await cli('keys', 'create', '--kind', 'model', '--name', 'crash', '--json')) as { key: string };
    await cli('credits', 'grant', '--amount', '50', '--currency', 'USD');

    const controller = new AbortController();
    const streams = await Promise.all(
      Array.from({ length: STREAMS }, async (_, index) => {
        const response = await fetch(`${first.url}/v1/chat/completions`, {
          method: 'POST',
          signal: controller.signal,
          headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'openai/test-slow', messages: [{ role: 'user', content: `stream number ${index}` }], stream: true }),
        });
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        await reader.read();
        // Keep reading so the server sees a healthy client until it dies.
        void (async () => {
          for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
        })();
        return response.status;
      }),
    );
    expect(streams.every((status) => status === 200)).toBe(true);
    // Older than 1 s, and long enough for one progress journal (every 2 s) to land.
    await new Promise((resolve) => setTimeout(resolve, 2_600));
    const exited = once(first.child, 'exit');
    first.child.kill('SIGKILL');
    await exited;
    controller.abort();

    const second = await startServerProcess(env);
    const restartedAt = Date.now();
    const client = new pg.Client(database.url);
    await client.connect();
    try {
      const keyRow = await client.query<{ id: string }>("SELECT id FROM api_keys WHERE name = 'crash'");
      const keyId = keyRow.rows[0]?.id;
      const read = async () => {
        const rows = await client.query<{ n: number; cost: number | null; output: number | null }>(
          "SELECT count(*)::int AS n, sum(cost_micros)::bigint AS cost, sum(output_tokens)::int AS output FROM usage_log WHERE key_id = $1 AND status = 'interrupted'",
          [keyId],
        );
        const key = await client.query<{ spend: number }>('SELECT spend_total_micros::bigint AS spend FROM api_keys WHERE id = $1', [keyId]);
        return { rows: rows.rows[0]?.n ?? 0, cost: Number(rows.rows[0]?.cost ?? 0), output: rows.rows[0]?.output ?? 0, spend: Number(key.rows[0]?.spend ?? 0) };
      };
      let found = await read();
      const deadline = restartedAt + (LEASE_TIMEOUT_SECONDS + 5) * 1000;
      while (found.rows < STREAMS && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        found = await read();
      }
      const openLeft = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM open_calls');
      console.log(
        `[chaos] kill -9 with ${STREAMS} open streams: interrupted rows expected ${STREAMS}, found ${found.rows} ` +
          `${Date.now() - restartedAt} ms after restart (limit ${(LEASE_TIMEOUT_SECONDS + 5) * 1000}); ` +
          `spend expected ${found.cost} µUSD, found ${found.spend}; output tokens billed ${found.output}; open calls left ${openLeft.rows[0]?.n}`,
      );
      expect(found.rows).toBe(STREAMS);
      expect(found.spend).toBe(found.cost);
      // Progress was journaled: the streamed tokens are billed, not only the input estimate.
      expect(found.output).toBeGreaterThan(0);
      expect(openLeft.rows[0]?.n).toBe(0);
    } finally {
      await client.end();
      second.child.kill('SIGTERM');
      await once(second.child, 'exit');
    }
  }, 90_000);
});
