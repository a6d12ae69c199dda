import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { createServices, type Services } from '../../src/assembly/services.ts';
import { worstCaseChatCost } from '../../src/catalog/costs.ts';
import { resolveModel } from '../../src/catalog/lookup.ts';
import { readEnvConfig } from '../../src/config/env-config.ts';
import { createKey } from '../../src/keys/key-service.ts';
import type { KeySettings } from '../../src/keys/key-record.ts';
import { estimateInputTokens } from '../../src/pipeline/estimate-input-tokens.ts';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { TEST_CONFIG, UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { createScratchDatabase } from '../support/test-database.ts';

/**
 * Three server processes (each with its own data folder) on one PostgreSQL database,
 * without Redis: what one process enforces, the three enforce together under concurrent
 * load. A key's requests per minute, its spend limit and its account's credit are never
 * passed; sign-in guesses spread over the three get no more tries than on one; a plan
 * change and a key disabled through the store apply on all three at their next request.
 * PGlite is one process by design, so this runs in the PostgreSQL pass only.
 */
const enabled = Boolean(process.env.DATABASE_URL);
const SLOW_MODEL = 'openai/test-slow';
const MAX_TOKENS = 200;
const MESSAGE = 'count slowly please';
const PASSWORD = 'the right password 1';

let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let dataDir: string;
let admin: Services;
let servers: ServerProcess[] = [];

beforeAll(async () => {
  if (!enabled) return;
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 50 });
  database = await createScratchDatabase(process.env.DATABASE_URL as string, 'junction_three');
  dataDir = mkdtempSync(join(tmpdir(), 'junction-three-'));
  const env = (name: string): NodeJS.ProcessEnv => {
    mkdirSync(join(dataDir, name), { recursive: true });
    const { REDIS_URL: _none, ...rest } = process.env;
    return {
      ...rest,
      DATABASE_URL: database.url,
      PORT: '0',
      LOG_LEVEL: 'info',
      JUNCTION_DATA_DIR: join(dataDir, name),
      OPENAI_API_KEY: UPSTREAM_KEYS.openai,
      OPENAI_BASE_URL: upstream.url,
      JUNCTION_CONFIG: TEST_CONFIG,
      JUNCTION_AGENTS_DIR: join(dataDir, 'agents'),
      JUNCTION_TOOLS_DIR: join(dataDir, 'tools'),
      JUNCTION_KNOWLEDGE_DIR: join(dataDir, 'knowledge'),
    };
  };
  // The operator's side, as the CLI runs it: migrates the store before the servers start.
  const adminEnv = { ...env('admin'), LOG_LEVEL: 'silent' };
  admin = await createServices(readEnvConfig(adminEnv), { env: adminEnv, registerProcess: false, loadAgents: false });
  await runAdminCommand(admin, { command: 'credits.grant', amount: '100', currency: 'USD' });
  servers = await Promise.all(['a', 'b', 'c'].map((name) => startServerProcess(env(name))));
}, 120_000);
afterAll(async () => {
  if (!enabled) return;
  await Promise.all(
    servers.map(async (server) => {
      if (server.child.exitCode !== null) return;
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }),
  );
  await admin?.close();
  await upstream?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const keyOf = async (settings: Partial<KeySettings>, accountId = admin.defaultAccount.id): Promise<{ id: string; key: string }> => {
  const created = await createKey(admin.db, admin.hasher, { accountId, kind: 'model', settings: { name: 'three processes', ...settings } });
  return { id: created.record.id, key: created.plainKey };
};

/** One chat call on server `index % 3`; its HTTP status once the whole answer (or refusal) is read. */
async function call(key: string, index: number, model: string, stream = false): Promise<number> {
  const server = servers[index % servers.length] as ServerProcess;
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: MAX_TOKENS, stream, messages: [{ role: 'user', content: model === SLOW_MODEL ? MESSAGE : `call ${index}` }] }),
    signal: AbortSignal.timeout(60_000),
  });
  await response.arrayBuffer();
  return response.status;
}

/** `count` concurrent calls spread over the three processes. */
const burst = (key: string, count: number, model: string, stream = false): Promise<number[]> => Promise.all(Array.from({ length: count }, (_, index) => call(key, index, model, stream)));

const served = (statuses: number[]): number => statuses.filter((status) => status === 200).length;

function worstCaseMicros(): number {
  const model = resolveModel(admin.catalog, SLOW_MODEL);
  if (!model) throw new Error('test model missing');
  const inputTokens = estimateInputTokens({ messages: [{ role: 'user', content: [{ type: 'text', text: MESSAGE }] }] });
  return worstCaseChatCost(model, { inputTokens, maxOutputTokens: MAX_TOKENS });
}

/** Waits until the three processes have written a usage row for each of `calls` calls of `keyId`. */
async function settled(keyId: string, calls: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const rows = await admin.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_log WHERE key_id = $1', [keyId]);
    if ((rows.rows[0]?.n ?? 0) >= calls || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Calls on an unlimited key, six at a time over the three processes, until stopped: the load the other checks run under. */
function backgroundLoad(key: string): { stop(): Promise<number[]> } {
  let stopping = false;
  const statuses: number[] = [];
  const lanes = Array.from({ length: 6 }, async (_, lane) => {
    for (let index = lane; !stopping; index += 6) statuses.push(await call(key, index, 'openai/test-echo'));
  });
  return {
    async stop() {
      stopping = true;
      await Promise.all(lanes);
      return statuses;
    },
  };
}

describe.skipIf(!enabled)('three processes on one PostgreSQL, no Redis', () => {
  it('serve exactly rate_limit_rpm calls of a key: 30 at once on rpm 10, 10 served', async () => {
    const { key } = await keyOf({ rateLimitRpm: 10 });
    const before = upstream.attempts('test-echo');
    const statuses = await burst(key, 30, 'openai/test-echo');
    expect(served(statuses)).toBe(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect(upstream.attempts('test-echo') - before).toBe(10);
    // The window is full everywhere, not only where it filled.
    for (let index = 0; index < 3; index += 1) expect(await call(key, index, 'openai/test-echo')).toBe(429);
  });

  it('never pass a key spend limit or an account credit under 30 concurrent streams', async () => {
    const worst = worstCaseMicros();
    const limitMicros = 10 * worst;
    const capped = await keyOf({ totalLimitMicros: limitMicros });
    const account = await createAccount(admin.db, 'three-processes-credit');
    await runAdminCommand(admin, { command: 'credits.grant', account: account.id, amount: (limitMicros / 1e6).toFixed(6), currency: 'USD' });
    const broke = await keyOf({}, account.id);
    const before = upstream.attempts('test-slow');
    const [keyLimited, creditLimited] = await Promise.all([burst(capped.key, 30, SLOW_MODEL, true), burst(broke.key, 30, SLOW_MODEL, true)]);
    await Promise.all([settled(capped.id, 30), settled(broke.id, 30)]);
    const spend = await admin.db.query<{ spend_total_micros: number }>('SELECT spend_total_micros FROM api_keys WHERE id = $1', [capped.id]);
    const balance = await admin.db.query<{ granted_micros: number; usage_micros: number }>('SELECT granted_micros, usage_micros FROM accounts WHERE id = $1', [account.id]);
    console.log(
      `[three processes] 30 streams on a key limited to 10 worst cases: served ${served(keyLimited)}, spend ${spend.rows[0]?.spend_total_micros} of ${limitMicros} µUSD; ` +
        `30 on credit for 10: served ${served(creditLimited)}, balance ${(balance.rows[0]?.granted_micros ?? 0) - (balance.rows[0]?.usage_micros ?? 0)} µUSD`,
    );
    for (const statuses of [keyLimited, creditLimited]) {
      // Budget a process holds but cannot use (less than one worst case) idles until its lease returns: at most 10, nearly all.
      expect(served(statuses)).toBeLessThanOrEqual(10);
      expect(served(statuses)).toBeGreaterThanOrEqual(7);
    }
    expect(keyLimited.filter((status) => status !== 200).every((status) => status === 403)).toBe(true);
    expect(creditLimited.filter((status) => status !== 200).every((status) => status === 402)).toBe(true);
    expect(upstream.attempts('test-slow') - before).toBe(served(keyLimited) + served(creditLimited));
    expect(spend.rows[0]?.spend_total_micros).toBeLessThanOrEqual(limitMicros);
    const row = balance.rows[0];
    expect(row && row.granted_micros - row.usage_micros).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('apply a plan change and a disabled key on all three at their next request, under load', async () => {
    const load = backgroundLoad((await keyOf({})).key);
    const account = await createAccount(admin.db, 'three-processes-plan');
    await runAdminCommand(admin, { command: 'credits.grant', account: account.id, amount: '10', currency: 'USD' });
    const { id, key } = await keyOf({}, account.id);
    // Each process has the key and the account's plan cached from a served call.
    for (let index = 0; index < 3; index += 1) expect(await call(key, index, 'openai/test-tool')).toBe(200);
    await runAdminCommand(admin, { command: 'accounts.set-plan', account: account.id, plan: 'echo-only' });
    for (let index = 0; index < 3; index += 1) {
      expect(await call(key, index, 'openai/test-tool')).toBe(403);
      expect(await call(key, index, 'openai/test-echo')).toBe(200);
    }
    await runAdminCommand(admin, { command: 'keys.set-disabled', account: account.id, id, disabled: true });
    for (let index = 0; index < 3; index += 1) expect(await call(key, index, 'openai/test-echo')).toBe(401);
    const loadStatuses = await load.stop();
    expect(loadStatuses.length).toBeGreaterThan(0);
    expect(loadStatuses.every((status) => status === 200)).toBe(true);
  }, 120_000);

  it('give sign-in guesses spread over the three no more tries than one process gives', async () => {
    await runAdminCommand(admin, { command: 'users.create', email: 'guarded@example.com', password: PASSWORD, role: 'member' });
    const signIn = async (index: number, password: string) => {
      const server = servers[index % servers.length] as ServerProcess;
      const response = await fetch(`${server.url}/console/api/session`, {
        method: 'POST',
        headers: { origin: new URL(server.url).origin, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'guarded@example.com', password }),
      });
      return { status: response.status, body: (await response.json()) as { ok?: boolean } };
    };
    const guesses = [];
    for (let index = 0; index < 12; index += 1) guesses.push(await signIn(index, `wrong guess ${index}`));
    expect(guesses.slice(0, 10).every((guess) => guess.status === 200 && guess.body.ok === false)).toBe(true);
    expect(guesses.slice(10).map((guess) => guess.status)).toEqual([429, 429]);
    // Even the right password waits out the window, on every process.
    for (let index = 0; index < 3; index += 1) expect((await signIn(index, PASSWORD)).status).toBe(429);
  });
});
