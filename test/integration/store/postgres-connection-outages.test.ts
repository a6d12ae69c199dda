import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DatabaseUnavailableError, databaseOutageOf } from '../../../src/store/connection-errors.ts';
import { databaseOutageAnswer } from '../../../src/store/database-outage-answer.ts';
import type { Database } from '../../../src/store/database.ts';
import { openPostgresDatabase } from '../../../src/store/postgres-database.ts';
import { createScratchDatabase } from '../../support/test-database.ts';

/**
 * The PostgreSQL store types every failure to get a connection as an outage, and tells a
 * full pool ("busy") from a database that refuses it. PostgreSQL only: the embedded store
 * has no connections to run out of or to be refused.
 */
const baseUrl = process.env.DATABASE_URL;
let scratch: { url: string; drop(): Promise<void> };
let db: Database;

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const databaseName = () => new URL(scratch.url).pathname.slice(1);

beforeAll(async () => {
  if (!baseUrl) return;
  scratch = await createScratchDatabase(baseUrl, 'junction_outages');
  db = await openPostgresDatabase(scratch.url, 1);
});
afterAll(async () => {
  if (!baseUrl) return;
  await db?.close();
  await onServer(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS true`).catch(() => undefined);
  await scratch?.drop();
});

describe.skipIf(!baseUrl)('PostgreSQL connection outages', () => {
  it('fails a statement waiting on a full pool as "busy" within the connect timeout, and serves it once a connection is free', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holder = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await held;
    });
    await expect.poll(() => db.poolStats?.().idle).toBe(0);
    // The statement queues for the pool's one connection, and is refused as busy only after that wait.
    let answered = false;
    const refused = db
      .query('SELECT 1')
      .catch((failure: unknown) => failure)
      .finally(() => (answered = true));
    await expect.poll(() => db.poolStats?.().waiting).toBe(1);
    expect(answered).toBe(false);
    const error = await refused;
    expect(db.poolStats?.().waiting).toBe(0);
    release();
    await holder;

    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(databaseOutageOf(error)).toBe('busy');
    const answer = databaseOutageAnswer(error);
    expect(answer).toMatchObject({ status: 503, headers: { 'retry-after': '2' } });
    expect(answer?.message).toMatch(/busy/);
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  }, 20_000);

  it('fails a statement on a database that refuses connections (55000) as "unreachable", and recovers when it accepts them again', async () => {
    await onServer(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS false`);
    await onServer(`SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = '${databaseName()}'`);
    // The pooled connection was cut: the first statement may find it dead, the next must connect anew and be refused.
    await db.query('SELECT 1').catch(() => undefined);
    const error = await db.query('SELECT 1').catch((failure: unknown) => failure);
    await onServer(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS true`);

    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    // The server's own refusal, not the pool's connect timeout: the statement did not wait it out.
    expect(((error as Error).cause as { code?: string }).code).toBe('55000');
    expect(databaseOutageOf(error)).toBe('unreachable');
    expect(databaseOutageAnswer(error)?.message).toMatch(/cannot use its database/);
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it("keeps a statement's own 55000 a statement error, on a connection that stays in use", async () => {
    await db.exec('CREATE SEQUENCE IF NOT EXISTS outage_probe');
    const error = await db.query("SELECT currval('outage_probe')").catch((failure: unknown) => failure);
    expect((error as { code?: string }).code).toBe('55000');
    expect(databaseOutageOf(error)).toBeUndefined();
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('survives the server ending a connection while it is checked out: the transaction fails, the process goes on', async () => {
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      const transaction = db.transaction(async (tx) => {
        const pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
        await onServer(`SELECT pg_terminate_backend(${Number(pid)})`);
        // The client hears the socket close while it sits idle in the transaction's hands.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.query('SELECT 1');
      });
      await expect(transaction).rejects.toBeDefined();
      expect(uncaught).toEqual([]);
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', record);
    }
  });
});
