import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Settlement, SettlementQueue } from '../../src/billing/settlement-queue.ts';
import type { Database } from '../../src/store/database.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { usageRecordFixture } from '../support/usage-record-fixture.ts';

/**
 * While the database refuses connections, the settlement queue retries with backoff,
 * however many calls settle meanwhile: each settlement asks for a flush within the
 * group-commit window, and none may pull the next try before its backoff (that would be
 * a statement every 10 ms against a database that is down). Once it is back, every
 * settlement lands. The database is the real one; only its connection is cut, at the
 * edge, as pg reports a refused connection.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
});
afterAll(async () => {
  await app?.close();
});

/** `db` with its statements refused while `down` is set, and counted. */
function withOutage(db: Database) {
  const state = { down: false, statements: 0 };
  const refuse = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
  const query: Database['query'] = (sql, params, options) => {
    state.statements += 1;
    return state.down ? refuse() : db.query(sql, params, options);
  };
  return { db: { ...bindAll(db), query } as Database, state };
}

/** The database's methods bound to it (its private fields need the real receiver). */
function bindAll(db: Database): Database {
  const bound: Record<string, unknown> = { engine: db.engine };
  for (const name of ['query', 'exec', 'transaction', 'listen', 'close'] as const) {
    const method = (db as unknown as Record<string, unknown>)[name];
    if (typeof method === 'function') bound[name] = method.bind(db);
  }
  return bound as unknown as Database;
}

const settlement = (accountId: string, index: number): Settlement => ({
  usage: usageRecordFixture({ accountId, keyId: null }, { id: `gen-backoff-${index}` }),
  keyId: null,
  accountId,
  spendMicros: 100,
  keyLeaseMicros: 0,
  accountLeaseMicros: 0,
});

describe('settlement queue during a database outage', () => {
  it('keeps its backoff while calls keep settling, and writes every settlement once the database is back', async () => {
    const accountId = app.services.defaultAccount.id;
    const { db, state } = withOutage(app.services.db);
    const queue = new SettlementQueue(db, undefined, { onError: () => undefined });
    state.down = true;
    // 700 ms of outage with a call settling every 5 ms.
    let added = 0;
    const outageEnds = performance.now() + 700;
    while (performance.now() < outageEnds) {
      queue.add(settlement(accountId, added));
      added += 1;
      await new Promise((done) => setTimeout(done, 5));
    }
    // Backoff of 100, 200 then 400 ms after the first try: about four statements, against
    // one per group-commit window (70) if each settlement pulled the retry forward.
    expect(state.statements).toBeGreaterThanOrEqual(2);
    expect(state.statements).toBeLessThanOrEqual(8);

    state.down = false;
    await queue.drain(5_000);
    expect(queue.pendingCount).toBe(0);
    const written = await app.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_log WHERE id LIKE 'gen-backoff-%'");
    expect(written.rows[0]?.n).toBe(added);
    await queue.close();
  });
});
