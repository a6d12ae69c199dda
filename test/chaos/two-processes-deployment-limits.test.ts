import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { createServices, type Services } from '../../src/assembly/services.ts';
import { readEnvConfig } from '../../src/config/env-config.ts';
import { createKey } from '../../src/keys/key-service.ts';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { createScratchDatabase } from '../support/test-database.ts';
import { redisAnswers, TEST_REDIS_URL } from '../support/redis-probe.ts';

/**
 * Two server processes on one PostgreSQL database serve a deployment with `rpm: 10` as its
 * provider counts it: 30 calls at once, 10 sent upstream, the rest 429
 * `deployment_limits_reached`; without Redis (rows in the database) and with it. The
 * deployment's name carries this run's suffix, so its windows in a shared Redis are its own.
 * PGlite is one process by design, so this runs in the PostgreSQL pass only.
 */
const enabled = Boolean(process.env.DATABASE_URL);
const REDIS_URL = TEST_REDIS_URL;
const run = randomUUID().slice(0, 8);

const redisAvailable = enabled && (await redisAnswers());

let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let dataDir: string;
let admin: Services;
let key: string;
const started: ServerProcess[] = [];

function envOf(name: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  mkdirSync(join(dataDir, name), { recursive: true });
  const { REDIS_URL: _none, ...rest } = process.env;
  return {
    ...rest,
    DATABASE_URL: database.url,
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: join(dataDir, name),
    OPENAI_API_KEY: 'sk-two-processes',
    JUNCTION_CONFIG: join(dataDir, 'junction.yaml'),
    JUNCTION_AGENTS_DIR: join(dataDir, 'agents'),
    JUNCTION_TOOLS_DIR: join(dataDir, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(dataDir, 'knowledge'),
    ...extra,
  };
}

beforeAll(async () => {
  if (!enabled) return;
  upstream = await startFakeOpenAIUpstream();
  database = await createScratchDatabase(process.env.DATABASE_URL as string, 'junction_two_deployments');
  dataDir = mkdtempSync(join(tmpdir(), 'junction-two-deployments-'));
  writeFileSync(
    join(dataDir, 'junction.yaml'),
    `models:
  openai/quota:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: quota-${run}, model: test-echo, base_url: ${upstream.url}, rpm: 10 }
`,
  );
  const adminEnv = { ...envOf('admin'), LOG_LEVEL: 'silent' };
  admin = await createServices(readEnvConfig(adminEnv), { env: adminEnv, registerProcess: false, loadAgents: false });
  await runAdminCommand(admin, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = (await createKey(admin.db, admin.hasher, { accountId: admin.defaultAccount.id, kind: 'model', settings: { name: 'two processes' } })).plainKey;
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  await Promise.all(
    started.map(async (server) => {
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

async function call(server: ServerProcess): Promise<{ status: number; code: string | undefined }> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/quota', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: body.error?.code };
}

/** 30 calls at once over the two servers; the upstream's count of what was sent. */
async function burst(servers: ServerProcess[]): Promise<{ served: number; refusedCodes: Set<string | undefined>; sent: number }> {
  const before = upstream.attempts('test-echo');
  const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => call(servers[index % 2] as ServerProcess)));
  return {
    served: answers.filter((answer) => answer.status === 200).length,
    refusedCodes: new Set(answers.filter((answer) => answer.status !== 200).map((answer) => answer.code)),
    sent: upstream.attempts('test-echo') - before,
  };
}

const startTwo = async (name: string, extra: Record<string, string> = {}): Promise<ServerProcess[]> => {
  const servers = await Promise.all([startServerProcess(envOf(`${name}-a`, extra)), startServerProcess(envOf(`${name}-b`, extra))]);
  started.push(...servers);
  return servers;
};

describe.skipIf(!enabled)('two server processes and a deployment with rpm 10', () => {
  it('serve 10 of 30 calls at once with the window in PostgreSQL', async () => {
    const outcome = await burst(await startTwo('postgres'));
    expect(outcome).toEqual({ served: 10, refusedCodes: new Set(['deployment_limits_reached']), sent: 10 });
  }, 120_000);

  it.skipIf(!redisAvailable)(
    'serve 10 of 30 calls at once with the window in Redis',
    async () => {
      await admin.db.query('DELETE FROM deployment_rate_windows');
      const outcome = await burst(await startTwo('redis', { REDIS_URL }));
      expect(outcome).toEqual({ served: 10, refusedCodes: new Set(['deployment_limits_reached']), sent: 10 });
      // The window was Redis's: no row of it in the database.
      expect((await admin.db.query('SELECT 1 FROM deployment_rate_windows')).rows).toEqual([]);
    },
    120_000,
  );
});
