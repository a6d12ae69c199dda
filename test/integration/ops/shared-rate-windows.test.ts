import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { buildApp } from '../../../src/app.ts';
import { createServices, type Services } from '../../../src/assembly/services.ts';
import { JunctionError } from '../../../src/core/errors.ts';
import { KeyRateLimiter } from '../../../src/pipeline/rate-limiter.ts';
import type { Database } from '../../../src/store/database.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { openPostgresDatabase } from '../../../src/store/postgres-database.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { recordStatements } from '../../support/statement-recorder.ts';
import { createScratchDatabase } from '../../support/test-database.ts';
import { bearer } from '../../support/test-app.ts';

/**
 * `rate_limit_rpm` without Redis: on PostgreSQL the window is a row every process counts in
 * (one statement per call of a rate-limited key, none for a key without a limit), so two
 * processes admit exactly what one would; on PGlite, one process by design, it stays in
 * memory with no statement at all.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
let gateway: GatewayHarness;

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
});
afterAll(async () => gateway?.close());

const chat = (app: FastifyInstance, key: string) =>
  app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model: 'openai/test-echo', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] } });

const windowStatements = (statements: string[]) => statements.filter((sql) => sql.includes('INSERT INTO key_rate_windows'));

describe.skipIf(onPostgres)('rate windows on PGlite', () => {
  it('stay in the one process: exact, and without a statement', async () => {
    expect(gateway.services.rateLimiter.inProcess).toBe(true);
    const key = await gateway.key('model', { rateLimitRpm: 3 });
    const recorder = recordStatements(gateway.services.db);
    const statuses = [];
    for (let index = 0; index < 5; index += 1) statuses.push((await chat(gateway.app, key)).statusCode);
    recorder.stop();
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(recorder.statements.filter((sql) => sql.includes('key_rate_windows'))).toEqual([]);
  });
});

describe.skipIf(!onPostgres)('rate windows on PostgreSQL without Redis', () => {
  let secondServices: Services;
  let second: FastifyInstance;

  beforeAll(async () => {
    secondServices = await createServices(gateway.config, { env: gateway.env, loadAgents: false });
    second = await buildApp(secondServices);
  });
  afterAll(async () => {
    await second?.close();
    await secondServices?.close();
  });

  it('two processes admit exactly rpm calls of a key together, each refusal with Retry-After', async () => {
    expect(gateway.services.rateLimiter.inProcess).toBe(false);
    const key = await gateway.key('model', { rateLimitRpm: 10 });
    const before = gateway.openai.attempts('test-echo');
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => chat(index % 2 === 0 ? gateway.app : second, key)));
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect(gateway.openai.attempts('test-echo') - before).toBe(10);
    const refused = answers.find((answer) => answer.statusCode === 429);
    expect(refused?.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused?.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused?.headers['x-ratelimit-remaining-requests']).toBe('0');
  });

  it('costs a key without a limit no statement, a limited call one, and a window seen full none', async () => {
    const unlimited = await gateway.key('model');
    const limited = await gateway.key('model', { rateLimitRpm: 2 });
    await chat(gateway.app, unlimited);
    const recorder = recordStatements(gateway.services.db);
    try {
      expect((await chat(gateway.app, unlimited)).statusCode).toBe(200);
      expect(windowStatements(recorder.statements)).toHaveLength(0);
      expect((await chat(gateway.app, limited)).headers['x-ratelimit-remaining-requests']).toBe('1');
      expect(windowStatements(recorder.statements)).toHaveLength(1);
      expect((await chat(gateway.app, limited)).headers['x-ratelimit-remaining-requests']).toBe('0');
      // The second call filled the window: this process refuses until it ends, without asking.
      for (let index = 0; index < 3; index += 1) expect((await chat(gateway.app, limited)).statusCode).toBe(429);
      expect(windowStatements(recorder.statements)).toHaveLength(2);
    } finally {
      recorder.stop();
    }
  });

  it('takes slots in slices on a high limit: exact over two processes, a statement per slice', async () => {
    const db = gateway.services.db;
    const limiters = [new KeyRateLimiter(undefined, db), new KeyRateLimiter(undefined, db)];
    const keyId = randomUUID();
    const recorder = recordStatements(db);
    let admitted = 0;
    try {
      for (let index = 0; index < 6_500; index += 1) {
        const outcome = await (limiters[index % 2] as KeyRateLimiter).consume(keyId, 6_400).catch((error: unknown) => error);
        if (!(outcome instanceof JunctionError)) admitted += 1;
        else expect(outcome.code).toBe('rate_limit_exceeded');
      }
    } finally {
      recorder.stop();
    }
    // Both kept asking, so every slot either took was used: exactly the limit, in about 380 statements rather than 6,400.
    expect(admitted).toBe(6_400);
    expect(windowStatements(recorder.statements).length).toBeLessThan(500);
    const row = await db.query<{ used: number }>('SELECT used FROM key_rate_windows WHERE key_id = $1', [keyId]);
    expect(row.rows[0]?.used).toBe(6_400);
  });

  it('opens a new window when the last one ended or the limit changed', async () => {
    const db = gateway.services.db;
    const keyId = randomUUID();
    expect(await new KeyRateLimiter(undefined, db).consume(keyId, 1)).toMatchObject({ limit: 1, remaining: 0 });
    // A process that never saw the window still finds it full.
    await expect(new KeyRateLimiter(undefined, db).consume(keyId, 1)).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
    expect(await new KeyRateLimiter(undefined, db).consume(keyId, 2)).toMatchObject({ limit: 2, remaining: 1 });
    await db.query("UPDATE key_rate_windows SET ends_at = now() - interval '1 second' WHERE key_id = $1", [keyId]);
    const reopened = await new KeyRateLimiter(undefined, db).consume(keyId, 1);
    expect(reopened).toMatchObject({ limit: 1, remaining: 0 });
    expect(reopened?.resetMs).toBeGreaterThan(55_000);
    expect(reopened?.resetMs).toBeLessThanOrEqual(60_000);
  });

  it('answers 503 with Retry-After while the database refuses, never a window of its own', async () => {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL as string, 'junction_rpm_outage');
    const name = new URL(scratch.url).pathname.slice(1);
    const superuser = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await superuser.connect();
    let db: Database | undefined;
    try {
      db = await openPostgresDatabase(scratch.url, 2);
      await migrate(db);
      const limiter = new KeyRateLimiter(undefined, db);
      const keyId = randomUUID();
      expect(await limiter.consume(keyId, 5)).toMatchObject({ remaining: 4 });
      await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      // Each cut connection ends before this returns, so none is still in the pool when the database is back.
      await superuser.query('SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1', [name]);
      const refused = await limiter.consume(keyId, 5).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(JunctionError);
      expect(refused).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(Number((refused as JunctionError).headers?.['retry-after'])).toBeGreaterThan(0);
      await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      // Back: the same window goes on counting.
      expect(await limiter.consume(keyId, 5)).toMatchObject({ remaining: 3 });
    } finally {
      await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await superuser.end();
      await db?.close();
      await scratch.drop();
    }
  }, 60_000);
});
