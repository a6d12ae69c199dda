import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_READ_SESSIONS, accountReadsOf, accountTurnStats, reportingReadsOf } from '../../src/store/reporting-reads.ts';
import { type ConsoleSession, setUpOwner } from '../support/console-session.ts';
import { engineName } from '../support/test-database.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * One account's console and reporting reads take turns: however many it sends at once,
 * they hold one reading connection, so an account reloading its dashboards in a loop can
 * neither fill the reads other accounts share nor load the database with more than one
 * statement; past a burst they are spaced to their share. Its own reads that wait past the
 * bound get a 503 (busy) or a 429 (too fast), with Retry-After, counted.
 */
let app: TestApp;
let owner: ConsoleSession;

beforeAll(async () => {
  app = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent', JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  owner = await setUpOwner(app.app, app.services.db);
}, 60_000);
afterAll(async () => app?.close());

describe("an account's reporting reads", () => {
  it('run one at a time, however many are sent at once', async () => {
    const reads = accountReadsOf(app.services.db, app.services.defaultAccount.id);
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        reads.session(async (db) => {
          running += 1;
          most = Math.max(most, running);
          await db.query('SELECT pg_sleep(0.02)');
          running -= 1;
        }),
      ),
    );
    expect(most).toBe(ACCOUNT_READ_SESSIONS);
    expect(accountTurnStats(app.services.db).waiting).toBe(0);
  });

  it.runIf(engineName() === 'postgres')("leave the other reading connections to other accounts while one account's queue waits", async () => {
    const shared = reportingReadsOf(app.services.db);
    const mine = accountReadsOf(app.services.db, app.services.defaultAccount.id);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = mine.session(async () => held);
    const queued = Array.from({ length: 4 }, () => mine.session((db) => db.query('SELECT 1')));
    try {
      await expect.poll(() => accountTurnStats(app.services.db).waiting).toBe(4);
      await expect.poll(() => shared.stats().inUse).toBe(1);
      const other = await accountReadsOf(app.services.db, randomUUID()).session((db) => db.query<{ jit: string }>('SHOW jit'));
      // Reading connections start as the main pool's do: JIT off.
      expect(other.rows[0]?.jit).toBe('off');
    } finally {
      release();
      await holder;
      await Promise.all(queued);
    }
  });

  it("refuse the account's console read as busy when its turn does not come in time", async () => {
    const mine = accountReadsOf(app.services.db, app.services.defaultAccount.id);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = mine.session(async () => held);
    const refusedBefore = accountTurnStats(app.services.db).busyRefusals;
    try {
      const overview = await owner.request('GET', '/console/api/overview');
      expect(overview.statusCode).toBe(503);
      expect(overview.headers['retry-after']).toBe('2');
      expect(overview.json()).toMatchObject({ error: { message: expect.stringMatching(/busy/) } });
      expect(accountTurnStats(app.services.db).busyRefusals).toBe(refusedBefore + 1);
      const metrics = await app.app.inject({ url: '/metrics' });
      expect(metrics.body).toMatch(/^junction_db_read_account_busy_total [1-9]/m);
    } finally {
      release();
      await holder;
    }
    expect((await owner.request('GET', '/console/api/overview')).statusCode).toBe(200);
  });

  it('make an account that reads in a loop wait for its share, and refuse it past 2 s with 429', async () => {
    const refusedBefore = accountTurnStats(app.services.db).rateRefusals;
    const answers = await Promise.all(Array.from({ length: 70 }, () => owner.request('GET', '/console/api/overview')));
    const refused = answers.filter((answer) => answer.statusCode === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(answers.length - refused.length);
    expect(refused[0]?.headers['retry-after']).toMatch(/^[1-9]$/);
    expect(refused[0]?.json()).toMatchObject({ error: { code: 'reads_rate_limited', type: 'rate_limit_error' } });
    expect(accountTurnStats(app.services.db).rateRefusals - refusedBefore).toBe(refused.length);
    const metrics = await app.app.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(/^junction_db_read_account_rate_limited_total [1-9]/m);
  });
});
