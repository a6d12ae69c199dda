import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { buildApp } from '../../../src/app.ts';
import { createServices, type Services } from '../../../src/assembly/services.ts';
import type { ModelDeployment } from '../../../src/catalog/types.ts';
import type { JunctionError } from '../../../src/core/errors.ts';
import { deploymentQuotas } from '../../../src/pipeline/deployment-quotas.ts';
import { type DeploymentQuota, DeploymentWindow, type QuotaReservation } from '../../../src/routing/deployment-window.ts';
import type { Database } from '../../../src/store/database.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { openPostgresDatabase } from '../../../src/store/postgres-database.ts';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { recordStatements } from '../../support/statement-recorder.ts';
import { bearer, startTestApp, type TestApp } from '../../support/test-app.ts';
import { createScratchDatabase } from '../../support/test-database.ts';
import { redisAnswers, TEST_REDIS_URL } from '../../support/redis-probe.ts';

/**
 * A deployment's `rpm`/`tpm` is its provider account's quota, so it holds however many
 * processes serve: on PostgreSQL the windows are rows every process takes slots from, with
 * REDIS_URL they are in Redis, and on PGlite (one process) they stay in memory. Two
 * services on one database stand for two processes; deployment names carry a suffix of
 * this run, so windows in a shared Redis are this run's own.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const REDIS_URL = TEST_REDIS_URL;
const run = randomUUID().slice(0, 8);

const redisAvailable = await redisAnswers();

const config = (upstream: string) => `
models:
  openai/dw-limited:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: limited-${run}, model: test-echo, base_url: ${upstream}, rpm: 10 }
  openai/dw-free:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: free-${run}, model: test-echo, base_url: ${upstream} }
      - { provider: openai, name: spare-${run}, model: test-echo, base_url: ${upstream}, priority: 1 }
`;

let fake: FakeOpenAIUpstream;
let folder: string;
let env: Record<string, string>;

beforeAll(async () => {
  fake = await startFakeOpenAIUpstream();
  folder = mkdtempSync(join(tmpdir(), 'junction-dwindows-'));
  const configPath = join(folder, 'junction.yaml');
  writeFileSync(configPath, config(fake.url));
  env = { JUNCTION_CONFIG: configPath, OPENAI_API_KEY: 'sk-dwindows' };
});
afterAll(async () => {
  await fake?.close();
  rmSync(folder, { recursive: true, force: true });
});

type Pair = { first: TestApp; second: FastifyInstance; secondServices: Services; key: string; close(): Promise<void> };

/** Two services on one database (and one Redis when `redis`), with credit and a key. */
async function startPair(redis: boolean): Promise<Pair> {
  const pairEnv = { ...env, ...(redis && { REDIS_URL }) };
  const first = await startTestApp(pairEnv, { env: pairEnv, loadAgents: false });
  await runAdminCommand(first.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  const secondServices = await createServices(first.config, { env: pairEnv, loadAgents: false });
  const second = await buildApp(secondServices);
  const key = await first.key('model');
  return {
    first,
    second,
    secondServices,
    key,
    async close() {
      await second.close();
      await secondServices.close();
      await first.close();
    },
  };
}

const chat = (app: FastifyInstance, key: string, model: string) =>
  app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] } });

/** 30 calls at once, alternating between the two services. */
async function burst(pair: Pair): Promise<Awaited<ReturnType<typeof chat>>[]> {
  return Promise.all(Array.from({ length: 30 }, (_, index) => chat(index % 2 === 0 ? pair.first.app : pair.second, pair.key, 'openai/dw-limited')));
}

function expectTenOfThirty(answers: Awaited<ReturnType<typeof chat>>[]): void {
  const statuses = answers.map((answer) => answer.statusCode);
  expect(statuses.filter((status) => status === 200)).toHaveLength(10);
  expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  const refused = answers.find((answer) => answer.statusCode === 429);
  expect(refused?.json()).toMatchObject({ error: { code: 'deployment_limits_reached', type: 'rate_limit_error' } });
  expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(refused?.headers['retry-after'])).toBeLessThanOrEqual(60);
}

const deploymentOf = (services: Services, model: string, index = 0): ModelDeployment => {
  const found = services.catalog.lookup.get(model)?.deployments?.[index];
  if (!found) throw new Error(`no deployment ${index} of ${model}`);
  return found;
};

const placed = (reservations: QuotaReservation[]) => reservations.filter((reservation) => reservation.placed).length;

/** A deployment with limits of its own, as the catalog builds one, for windows tested without the app. */
const limitedDeployment = (services: Services, limits: { rpm?: number; tpm?: number }): ModelDeployment => ({
  ...deploymentOf(services, 'openai/dw-limited'),
  adapterKey: `openai/dw-limited#${randomUUID()}`,
  rpm: limits.rpm,
  tpm: limits.tpm,
});

describe.skipIf(onPostgres)('deployment windows on PGlite', () => {
  it('stay in the one process, without a statement', async () => {
    const app = await startTestApp(env, { env, loadAgents: false });
    try {
      expect(deploymentQuotas(undefined, app.services.db, Date.now)).toBeUndefined();
      const model = app.services.catalog.lookup.get('openai/dw-limited');
      if (!model) throw new Error('model missing');
      expect(app.services.router.windowOf(model, deploymentOf(app.services, 'openai/dw-limited'))).toBeInstanceOf(DeploymentWindow);
    } finally {
      await app.close();
    }
  });
});

describe.skipIf(!onPostgres)('deployment windows on PostgreSQL without Redis', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair(false);
  });
  afterAll(async () => pair?.close());

  it('two processes serve exactly rpm calls of a deployment together: 30 at once on rpm 10, 10 served', async () => {
    const before = fake.attempts('test-echo');
    expectTenOfThirty(await burst(pair));
    expect(fake.attempts('test-echo') - before).toBe(10);
    const rows = await pair.first.services.db.query<{ used: number }>("SELECT used FROM deployment_rate_windows WHERE measure = 'requests' AND deployment = $1", [
      deploymentOf(pair.first.services, 'openai/dw-limited').adapterKey,
    ]);
    expect(rows.rows.map((row) => row.used)).toEqual([10]);
  });

  it('costs a deployment without limits no statement', async () => {
    await chat(pair.first.app, pair.key, 'openai/dw-free');
    const recorder = recordStatements(pair.first.services.db);
    try {
      for (let index = 0; index < 3; index += 1) expect((await chat(pair.first.app, pair.key, 'openai/dw-free')).statusCode).toBe(200);
    } finally {
      recorder.stop();
    }
    expect(recorder.statements.filter((sql) => sql.includes('rate_windows'))).toEqual([]);
    const model = pair.first.services.catalog.lookup.get('openai/dw-free');
    if (!model) throw new Error('model missing');
    expect(pair.first.services.router.windowOf(model, deploymentOf(pair.first.services, 'openai/dw-free'))).toBeUndefined();
  });

  it('hands out tokens per minute exactly over two processes, and gives back what a call did not use', async () => {
    const { db } = pair.first.services;
    const deployment = limitedDeployment(pair.first.services, { tpm: 1_000 });
    const windows = [deploymentQuotas(undefined, db, Date.now), deploymentQuotas(undefined, db, Date.now)].map((quotaOf) => quotaOf?.(deployment) as DeploymentQuota);
    const reserve = (window: DeploymentQuota, tokens: number) => Promise.resolve(window.reserve(Date.now(), tokens));
    const first = await Promise.all(Array.from({ length: 10 }, (_, index) => reserve(windows[index % 2] as DeploymentQuota, 300)));
    // Nothing answered yet: 3 calls of 300 fit in 1,000, wherever they came from.
    expect(placed(first)).toBe(3);
    const answered = first.find((reservation) => reservation.placed);
    const owner = windows[first.indexOf(answered as QuotaReservation) % 2] as DeploymentQuota;
    const other = windows.find((window) => window !== owner) as DeploymentQuota;
    if (answered?.placed) answered.reckon(100);
    // The 200 it did not use are its process's: with the 100 left in the window, one more call of 300 fits there, none elsewhere.
    expect((await reserve(other, 300)).placed).toBe(false);
    expect((await reserve(owner, 300)).placed).toBe(true);
    expect((await reserve(owner, 300)).placed).toBe(false);
    const row = await db.query<{ used: number }>("SELECT used FROM deployment_rate_windows WHERE measure = 'tokens' AND deployment = $1", [deployment.adapterKey]);
    expect(row.rows[0]?.used).toBe(1_000);
  });

  it('gives a request back when the tokens do not fit, so a smaller call still gets it', async () => {
    const { db } = pair.first.services;
    const deployment = limitedDeployment(pair.first.services, { rpm: 2, tpm: 500 });
    const window = deploymentQuotas(undefined, db, Date.now)?.(deployment) as DeploymentQuota;
    expect((await window.reserve(Date.now(), 400)).placed).toBe(true);
    const refused = await window.reserve(Date.now(), 400);
    expect(refused).toMatchObject({ placed: false });
    expect((refused as { waitMs: number }).waitMs).toBeGreaterThan(0);
    expect(window.waitMs(Date.now(), 400)).toBeGreaterThan(0);
    expect((await window.reserve(Date.now(), 100)).placed).toBe(true);
    expect(window.requestsUsed(Date.now())).toBe(2);
    expect(window.tokensUsed(Date.now())).toBe(500);
  });
});

describe.skipIf(!onPostgres)('deployment windows while PostgreSQL refuses', () => {
  it("answer 503 with Retry-After, never a window of the process's own", async () => {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL as string, 'junction_dwindows_outage');
    const name = new URL(scratch.url).pathname.slice(1);
    const superuser = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await superuser.connect();
    let db: Database | undefined;
    try {
      db = await openPostgresDatabase(scratch.url, 2);
      await migrate(db);
      const window = deploymentQuotas(undefined, db, Date.now)?.({ adapterKey: `outage#${run}`, rpm: 5, tpm: undefined } as ModelDeployment) as DeploymentQuota;
      expect((await window.reserve(Date.now(), 0)).placed).toBe(true);
      await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      // Each cut connection ends before this returns, so none is still in the pool when the database is back.
      await superuser.query('SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1', [name]);
      const refused = await Promise.resolve(window.reserve(Date.now(), 0)).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(Number((refused as JunctionError).headers?.['retry-after'])).toBeGreaterThan(0);
      await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      expect((await window.reserve(Date.now(), 0)).placed).toBe(true);
      expect(window.requestsUsed(Date.now())).toBe(2);
    } finally {
      await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await superuser.end();
      await db?.close();
      await scratch.drop();
    }
  }, 60_000);
});

describe.skipIf(!redisAvailable)('deployment windows in Redis', () => {
  const clients: Redis[] = [];
  afterAll(() => {
    for (const client of clients) client.disconnect();
  });

  const redisWindows = (services: Services, deployment: ModelDeployment): DeploymentQuota[] =>
    [new Redis(REDIS_URL), new Redis(REDIS_URL)].map((client) => {
      clients.push(client);
      return deploymentQuotas(client, services.db, Date.now)?.(deployment) as DeploymentQuota;
    });

  it('two processes share each window: rpm 10 of 30 at once, tpm 3 calls of 300 in 1,000', async () => {
    const app = await startTestApp(env, { env, loadAgents: false });
    try {
      const requests = redisWindows(app.services, limitedDeployment(app.services, { rpm: 10 }));
      const answered = await Promise.all(Array.from({ length: 30 }, (_, index) => (requests[index % 2] as DeploymentQuota).reserve(Date.now(), 0)));
      expect(placed(answered)).toBe(10);
      const tokens = redisWindows(app.services, limitedDeployment(app.services, { tpm: 1_000 }));
      const reserved = await Promise.all(Array.from({ length: 10 }, (_, index) => (tokens[index % 2] as DeploymentQuota).reserve(Date.now(), 300)));
      expect(placed(reserved)).toBe(3);
    } finally {
      await app.close();
    }
  });

  it('answer 503 with Retry-After when Redis does not answer, never skipping the limit', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 1, retryStrategy: () => 50, lazyConnect: true });
    unreachable.on('error', () => undefined);
    clients.push(unreachable);
    const app = await startTestApp(env, { env, loadAgents: false });
    try {
      const window = deploymentQuotas(unreachable, app.services.db, Date.now)?.(limitedDeployment(app.services, { rpm: 5 })) as DeploymentQuota;
      const refused = await Promise.resolve(window.reserve(Date.now(), 0)).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect((refused as JunctionError).headers['retry-after']).toBe('2');
    } finally {
      await app.close();
    }
  });

  it.skipIf(!onPostgres)('two servers with REDIS_URL serve exactly rpm calls of a deployment: 30 at once on rpm 10, 10 served', async () => {
    const pair = await startPair(true);
    try {
      const before = fake.attempts('test-echo');
      expectTenOfThirty(await burst(pair));
      expect(fake.attempts('test-echo') - before).toBe(10);
      const probe = new Redis(REDIS_URL);
      clients.push(probe);
      expect(await probe.get(`junction-deployment-rpm-10:${deploymentOf(pair.first.services, 'openai/dw-limited').adapterKey}`)).toBe('10');
    } finally {
      await pair.close();
    }
  });
});
