import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { leaseFromAccount, leaseFromKey } from '../../src/billing/lease-sql.ts';
import { writeSettlementBatch } from '../../src/billing/settlement-batch-sql.ts';
import { createKey } from '../../src/keys/key-service.ts';
import type { Services } from '../../src/assembly/services.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * A process tops up its lease on a key while its own group commit gives budget back to
 * that key (two connections, the same key and lease rows). The two statements must take
 * their row locks in one order: they once locked them in opposite orders, PostgreSQL
 * broke the cycle by failing the top-up, and every request waiting on it got a 500.
 */
const enabled = Boolean(process.env.DATABASE_URL);
let app: TestApp;

beforeAll(async () => {
  if (!enabled) return;
  app = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(app.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
});
afterAll(async () => {
  await app?.close();
});

describe.skipIf(!enabled)('lock order of lease top-ups and group commits', () => {
  it('never deadlocks a top-up against its own process settling the same key and account', async () => {
    const services: Services = app.services;
    const holderId = services.registration?.id;
    if (!holderId) throw new Error('the app registered no process');
    const accountId = services.defaultAccount.id;
    const { record: key } = await createKey(services.db, services.hasher, {
      accountId,
      kind: 'model',
      settings: { name: 'locks', totalLimitMicros: 50_000_000 },
    });
    const day = 20_000;
    const month = 650;
    // A starting lease on both, so each round can give back what it takes.
    await leaseFromKey(services.db, { keyId: key.id, holderId, needMicros: 1_000, wantMicros: 1_000, day, month });
    await leaseFromAccount(services.db, { accountId, holderId, needMicros: 1_000, wantMicros: 1_000 });

    const failures: string[] = [];
    for (let round = 0; round < 150; round += 1) {
      const outcomes = await Promise.allSettled([
        leaseFromKey(services.db, { keyId: key.id, holderId, needMicros: 10, wantMicros: 10, day, month }),
        leaseFromAccount(services.db, { accountId, holderId, needMicros: 10, wantMicros: 10 }),
        writeSettlementBatch(services.db, [{ keyId: key.id, accountId, spendMicros: 0, keyLeaseMicros: 10, accountLeaseMicros: 10 }], [], holderId, new Date()),
      ]);
      for (const outcome of outcomes) if (outcome.status === 'rejected') failures.push(String(outcome.reason));
    }
    expect(failures).toEqual([]);

    // Every round took 10 and gave 10 back, on the key, the account and the lease rows.
    const leased = await services.db.query<{ key: number; account: number; rows: number }>(
      `SELECT (SELECT leased_micros FROM api_keys WHERE id = $1)::bigint AS key,
              (SELECT leased_micros FROM accounts WHERE id = $2)::bigint AS account,
              (SELECT sum(amount_micros) FROM budget_leases WHERE holder_id = $3)::bigint AS rows`,
      [key.id, accountId, holderId],
    );
    expect(leased.rows[0]).toEqual({ key: 1_000, account: 1_000, rows: 2_000 });
  });
});
