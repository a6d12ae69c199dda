import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { TEST_CONFIG, UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';

/**
 * `kill -9` of a server on the embedded store (PGlite in a data folder) in the middle of
 * a burst of calls. The next start opens the store (PostgreSQL's crash recovery, in
 * WASM) and finds every write the first server had acknowledged: the keys made before,
 * each call whose usage row the first server had read back from the database. And every
 * settlement batch is whole: the key's spend is the sum of its usage rows' costs, so no
 * batch landed half-written. Each of those writes was fsynced before it was acknowledged
 * (the server's count of the store's fsyncs grows by at least one per confirmed call), so
 * they would outlive the machine's power too. PGlite only: crash-mid-stream.test.ts kills a
 * server on PostgreSQL. Figure to reach: every confirmed row, spend equal to the rows' sum.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const CONFIRMED_CALLS = 40;
const BURST_CALLS = 400;
const BURST_CONCURRENCY = 16;
const enabled = !process.env.DATABASE_URL;
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let folder: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  if (!enabled) return;
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai });
  folder = mkdtempSync(join(tmpdir(), 'junction-embedded-kill-'));
  env = {
    ...process.env,
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: join(folder, 'store'),
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    JUNCTION_CONFIG: TEST_CONFIG,
    JUNCTION_AGENTS_DIR: join(folder, 'agents'),
    JUNCTION_TOOLS_DIR: join(folder, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(folder, 'knowledge'),
  };
});
afterAll(async () => {
  if (!enabled) return;
  await upstream.close();
  rmSync(folder, { recursive: true, force: true });
});

const cliWith = async (cliEnv: NodeJS.ProcessEnv, ...args: string[]) => (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env: cliEnv, timeout: 60_000 })).stdout;
const cli = (...args: string[]) => cliWith(env, ...args);
const toMicros = (usd: number) => Math.round(usd * 1_000_000);

async function getJson<T>(url: string, key: string): Promise<{ status: number; body: T }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as T };
}

/** One chat call; its generation id, or undefined when the server died under it. */
async function chat(baseUrl: string, key: string, text: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/test-echo', messages: [{ role: 'user', content: text }] }),
    });
    const body = (await response.json()) as { id?: string };
    return response.status === 200 ? body.id : undefined;
  } catch {
    return undefined;
  }
}

/** Every usage row of the account, through the paged log. */
async function allUsageRows(baseUrl: string, provisioningKey: string): Promise<Array<{ id: string; total_cost: number }>> {
  const rows: Array<{ id: string; total_cost: number }> = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { data: Array<{ id: string; total_cost: number }>; next_cursor: string | null } } = await getJson(
      `${baseUrl}/v1/usage?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      provisioningKey,
    );
    expect(page.status).toBe(200);
    rows.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return rows;
}

/** The server's count of the embedded store's fsyncs, from /metrics (loopback: no token needed). */
async function storeFsyncs(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(/^junction_embedded_store_fsyncs_total (\S+)$/m.exec(text)?.[1]);
}

/** Calls whose usage rows the server reads back (acknowledged as in the database): id → cost in µUSD. */
async function confirmedCalls(baseUrl: string, modelKey: string): Promise<Map<string, number>> {
  const confirmed = new Map<string, number>();
  for (let call = 0; call < CONFIRMED_CALLS; call += 1) {
    const id = await chat(baseUrl, modelKey, `confirmed call ${call}`);
    expect(id).toBeDefined();
    const read = await getJson<{ data: { total_cost: number } }>(`${baseUrl}/v1/generations/${id}`, modelKey);
    expect(read.status).toBe(200);
    confirmed.set(id as string, toMicros(read.body.data.total_cost));
  }
  return confirmed;
}

/** A burst of calls, and `kill -9` once a quarter of it has been answered (group commits are being written then); how many were answered. */
async function killDuringBurst(server: ServerProcess, modelKey: string): Promise<number> {
  let answered = 0;
  let next = 0;
  const burst = Promise.all(
    Array.from({ length: BURST_CONCURRENCY }, async () => {
      while (next < BURST_CALLS) {
        next += 1;
        if ((await chat(server.url, modelKey, `burst call ${next}`)) !== undefined) answered += 1;
      }
    }),
  );
  while (answered < BURST_CALLS / 4) await new Promise((resolve) => setTimeout(resolve, 5));
  await killNow(server);
  next = BURST_CALLS;
  await burst;
  return answered;
}

/** A server's log line as pino wrote it, or nothing for a line that is not JSON. */
function logLine(line: string): Array<{ msg?: string; replayed?: number }> {
  try {
    return [JSON.parse(line) as { msg?: string; replayed?: number }];
  } catch {
    return [];
  }
}

async function killNow(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = once(server.child, 'exit');
  server.child.kill('SIGKILL');
  await exited;
}

describe.skipIf(!enabled)('kill -9 on the embedded store', () => {
  it('keeps every acknowledged write, and every settlement batch whole', async () => {
    const first = await startServerProcess(env);
    let keys: { model: string; provisioning: string };
    let confirmed: Map<string, number>;
    let answered: number;
    let fsyncs: number;
    try {
      const created = async (kind: string, name: string) => (JSON.parse(await cli('keys', 'create', '--kind', kind, '--name', name, '--json')) as { key: string }).key;
      keys = { model: await created('model', 'embedded-kill'), provisioning: await created('provisioning', 'reader') };
      await cli('credits', 'grant', '--amount', '50', '--currency', 'USD');
      const fsyncsBefore = await storeFsyncs(first.url);
      confirmed = await confirmedCalls(first.url, keys.model);
      // One call at a time, each read back before the next: each one's settlement was a commit of its own.
      fsyncs = (await storeFsyncs(first.url)) - fsyncsBefore;
      answered = await killDuringBurst(first, keys.model);
    } finally {
      // A failure before the kill must not leave the first server holding the store.
      await killNow(first);
    }

    const restartedAt = Date.now();
    const second = await startServerProcess(env);
    try {
      const readyMs = Date.now() - restartedAt;
      let found = 0;
      for (const [id, costMicros] of confirmed) {
        const read = await getJson<{ data: { total_cost: number } }>(`${second.url}/v1/generations/${id}`, keys.model);
        if (read.status === 200 && toMicros(read.body.data.total_cost) === costMicros) found += 1;
      }
      const rows = await allUsageRows(second.url, keys.provisioning);
      const rowsMicros = rows.reduce((sum, row) => sum + toMicros(row.total_cost), 0);
      const key = await getJson<{ data: { usage: number } }>(`${second.url}/v1/key`, keys.model);
      expect(key.status).toBe(200);
      const spendMicros = toMicros(key.body.data.usage);
      console.log(
        `[chaos] kill -9 on the embedded store after ${answered} of ${BURST_CALLS} burst calls answered: restarted in ${readyMs} ms; ` +
          `confirmed rows expected ${confirmed.size}, found ${found}, fsyncs while confirming ${fsyncs}; usage rows ${rows.length} (${CONFIRMED_CALLS} confirmed + burst); ` +
          `key spend ${spendMicros} µUSD, rows' sum ${rowsMicros}`,
      );
      expect(found).toBe(confirmed.size);
      expect(fsyncs).toBeGreaterThanOrEqual(CONFIRMED_CALLS);
      expect(rows.length).toBeGreaterThanOrEqual(CONFIRMED_CALLS);
      // At most every answered call, and the calls in flight at the kill whose rows were written.
      expect(rows.length).toBeLessThanOrEqual(CONFIRMED_CALLS + answered + BURST_CONCURRENCY);
      expect(spendMicros).toBe(rowsMicros);
    } finally {
      second.child.kill('SIGTERM');
      await once(second.child, 'exit');
    }
  }, 120_000);

  it('keeps every call settled before the kill when the store had not been written yet: the settlement file journal', async () => {
    // The store is written once a minute here, so the calls below are in the file journal alone at the kill.
    const windowEnv = { ...env, JUNCTION_DATA_DIR: join(folder, 'store-window'), JUNCTION_EMBEDDED_SETTLEMENT_WINDOW_MS: '60000' };
    const first = await startServerProcess(windowEnv);
    const settled = new Map<string, number>();
    let keys: { model: string; provisioning: string };
    try {
      const created = async (kind: string, name: string) => (JSON.parse(await cliWith(windowEnv, 'keys', 'create', '--kind', kind, '--name', name, '--json')) as { key: string }).key;
      keys = { model: await created('model', 'window-kill'), provisioning: await created('provisioning', 'window-reader') };
      await cliWith(windowEnv, 'credits', 'grant', '--amount', '50', '--currency', 'USD');
      for (let call = 0; call < 20; call += 1) {
        const id = await chat(first.url, keys.model, `settled call ${call}`);
        expect(id).toBeDefined();
        settled.set(id as string, 0);
      }
      // Past the journal's 10 ms sync. (Reading the usage log here would write the queue to the store first.)
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await killNow(first);
    }

    const second = await startServerProcess({ ...windowEnv, JUNCTION_EMBEDDED_SETTLEMENT_WINDOW_MS: '100' });
    try {
      const rows = (await allUsageRows(second.url, keys.provisioning)).filter((row) => settled.has(row.id));
      const rowsMicros = rows.reduce((sum, row) => sum + toMicros(row.total_cost), 0);
      const key = await getJson<{ data: { usage: number } }>(`${second.url}/v1/key`, keys.model);
      // The restarted server wrote them from the first one's files: the first had not written them to the store.
      const replayed = second.logs.flatMap(logLine).find((line) => line.msg === 'replayed settlements from the settlement file journal');
      console.log(
        `[chaos] kill -9 with ${settled.size} settled calls in the file journal only: ${replayed?.replayed} replayed, ${rows.length} usage rows after the restart, key spend ${toMicros(key.body.data.usage)} µUSD, rows' sum ${rowsMicros}`,
      );
      expect(replayed?.replayed).toBe(settled.size);
      expect(rows).toHaveLength(settled.size);
      expect(rowsMicros).toBeGreaterThan(0);
      expect(toMicros(key.body.data.usage)).toBe(rowsMicros);
    } finally {
      second.child.kill('SIGTERM');
      await once(second.child, 'exit');
    }
  }, 120_000);
});
