import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSegments, readSegment } from '../../src/billing/settlement-file-journal.ts';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { TEST_CONFIG, UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { createScratchDatabase } from '../support/test-database.ts';

/**
 * `kill -9` of a server on PostgreSQL while its database refuses connections: the calls it
 * served on a cached key meanwhile are in its settlement file journal, and the next start
 * on the same data folder writes them once the database takes connections again. Figure to
 * reach: every served call's usage row, spend equal to the rows' sum, no journal file left.
 * PostgreSQL only (the embedded store journals every call: embedded-store-kill.test.ts).
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const OUTAGE_CALLS = 8;
const enabled = Boolean(process.env.DATABASE_URL);
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let folder: string;
let env: NodeJS.ProcessEnv;
const servers: ServerProcess[] = [];

const databaseName = () => new URL(database.url).pathname.slice(1);

async function onServer<Row extends pg.QueryResultRow>(sql: string, params: unknown[] = [], url = process.env.DATABASE_URL): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  if (!enabled) return;
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai });
  database = await createScratchDatabase(process.env.DATABASE_URL as string, 'junction_refusal_kill');
  folder = mkdtempSync(join(tmpdir(), 'junction-refusal-kill-'));
  env = {
    ...process.env,
    DATABASE_URL: database.url,
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: join(folder, 'data'),
    JUNCTION_LEASE_TIMEOUT_SECONDS: '6',
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
  for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
  await upstream.close();
  await onServer(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS true`).catch(() => undefined);
  await database.drop();
  rmSync(folder, { recursive: true, force: true });
});

const cli = async (...args: string[]) => (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env, timeout: 60_000 })).stdout;

async function chat(url: string, key: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'kill during a refusal' }] }),
  });
  await response.text();
  return response.status;
}

async function journaled(): Promise<number> {
  let count = 0;
  for (const file of await leftoverSegments(join(folder, 'data', 'journal', 'settling'))) count += (await readSegment(file)).length;
  return count;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const usage = async () =>
  (
    await onServer<{ rows: string; cost: string | null; spend: string }>(
      "SELECT (SELECT count(*) FROM usage_log WHERE status = 'success') AS rows, (SELECT sum(cost_micros) FROM usage_log) AS cost, (SELECT sum(spend_total_micros) FROM api_keys) AS spend",
      [],
      database.url,
    )
  )[0];

describe.skipIf(!enabled)('kill -9 while the database refuses connections (PostgreSQL only: the embedded store journals every call)', () => {
  it('writes the calls served during the refusal at the next start', async () => {
    const first = await startServerProcess(env);
    servers.push(first);
    const created = JSON.parse(await cli('keys', 'create', '--kind', 'model', '--name', 'refusal-kill', '--json')) as { key: string };
    await cli('credits', 'grant', '--amount', '50', '--currency', 'USD');
    let served = 0;
    for (let index = 0; index < 3; index += 1) if ((await chat(first.url, created.key)) === 200) served += 1;
    // The calls before the refusal are written first: the journal then holds exactly the refusal's calls.
    const settledBefore = await waitFor(async () => Number((await usage())?.rows) === served, 5_000);
    expect(settledBefore).toBe(true);

    await onServer(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS false`);
    await onServer(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [databaseName()]);
    const outageStatuses: number[] = [];
    for (let index = 0; index < OUTAGE_CALLS; index += 1) outageStatuses.push(await chat(first.url, created.key));
    const servedInOutage = outageStatuses.filter((status) => status === 200).length;
    served += servedInOutage;
    const held = await waitFor(async () => (await journaled()) === servedInOutage, 10_000);
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    await onServer(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS true`);

    const second = await startServerProcess(env);
    servers.push(second);
    const landed = await waitFor(async () => Number((await usage())?.rows) === served, 10_000);
    const final = await usage();
    second.child.kill('SIGTERM');
    await once(second.child, 'exit');

    expect(outageStatuses).toEqual(Array.from({ length: OUTAGE_CALLS }, () => 200));
    expect(held).toBe(true);
    expect({ landed, rows: Number(final?.rows) }).toEqual({ landed: true, rows: served });
    expect(Number(final?.spend)).toBe(Number(final?.cost));
    expect(Number(final?.spend)).toBeGreaterThan(0);
    expect(await journaled()).toBe(0);
  }, 60_000);
});
