import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { reclaimStaleLeases } from '../../src/billing/lease-sql.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * A process whose leases were reclaimed by another (it looked dead) must not spend
 * them again: on its next heartbeat it drops them, registers anew, and settles calls
 * it had in flight as spend only, so lease balances never go negative.
 */
let gateway: GatewayHarness;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => gateway.close());

const balances = async (accountId: string) =>
  (
    await gateway.services.db.query<{ key_leased: number; key_spend: number; account_leased: number; account_usage: number }>(
      `SELECT k.leased_micros AS key_leased, k.spend_total_micros AS key_spend, a.leased_micros AS account_leased, a.usage_micros AS account_usage
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.account_id = $1`,
      [accountId],
    )
  ).rows[0];

describe('leases reclaimed from a live process', () => {
  it('are dropped on the next heartbeat; calls in flight settle as spend only', async () => {
    const registration = gateway.services.registration;
    if (!registration) throw new Error('the gateway registers its process');
    const account = await createAccount(gateway.services.db, 'reclaimed');
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '50', currency: 'USD' });
    const key = await gateway.key('model', { dailyLimitMicros: 20_000_000 }, account.id);
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });

    await client.chat.completions.create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'before' }], max_tokens: 50 });
    // A call in flight across the reclaim.
    const slow = await client.chat.completions.create({ model: 'openai/test-slow', messages: [{ role: 'user', content: 'across the reclaim' }], max_tokens: 100, stream: true });
    const iterator = slow[Symbol.asyncIterator]();
    await iterator.next();

    // Another process finds this one stale and takes its leases back.
    await gateway.settle();
    // While it heart-beats, a look for dead processes takes nothing back.
    const held = await balances(account.id);
    expect(held?.key_leased).toBeGreaterThan(0);
    expect(await reclaimStaleLeases(gateway.services.db, 30)).toBe(0);
    expect(await balances(account.id)).toEqual(held);
    await gateway.services.db.query(`UPDATE lease_holders SET heartbeat_at = now() - interval '1 hour' WHERE id = $1`, [registration.id]);
    expect(await reclaimStaleLeases(gateway.services.db, 30)).toBe(1);
    expect(await balances(account.id)).toMatchObject({ key_leased: 0, account_leased: 0 });

    await registration.heartbeat();
    expect(registration.epoch).toBe(1);

    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      // drain the stream that was in flight
    }
    await client.chat.completions.create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'after' }], max_tokens: 50 });
    await gateway.settle();
    expect(gateway.services.settlements.pendingCount).toBe(0);

    const usage = await gateway.services.db.query<{ total: number }>(`SELECT sum(cost_micros)::bigint AS total FROM usage_log u JOIN api_keys k ON k.id = u.key_id WHERE k.account_id = $1`, [
      account.id,
    ]);
    const spent = usage.rows[0]?.total ?? 0;
    const after = await balances(account.id);
    expect(spent).toBeGreaterThan(0);
    expect(after?.key_spend).toBe(spent);
    expect(after?.account_usage).toBe(spent);
    // Only the lease taken after re-registering is held; giving it back leaves nothing.
    gateway.services.budgets.returnIdle(0);
    await gateway.settle();
    expect(await balances(account.id)).toMatchObject({ key_leased: 0, account_leased: 0 });
  });

  it('refuses, as a foreign key would, to settle a journaled call whose account does not exist', async () => {
    const db = gateway.services.db;
    const holder = randomUUID();
    const call = `gen-${randomUUID()}`;
    await db.query(`INSERT INTO lease_holders (id, heartbeat_at) VALUES ($1, now() - interval '1 hour')`, [holder]);
    await db.query(`INSERT INTO open_calls (id, holder_id, account_id, request_id, endpoint, cost_micros, started_at) VALUES ($1, $2, $3, 'req', 'chat.completions', 5, now())`, [
      call,
      holder,
      randomUUID(),
    ]);
    await expect(reclaimStaleLeases(db, 30)).rejects.toMatchObject({ code: '23503' });
    // Nothing of the statement stayed: no orphan row, and the holder and its journal are still there.
    const orphan = await db.query('SELECT 1 FROM usage_log WHERE id = $1', [call]);
    const journaled = await db.query('SELECT 1 FROM open_calls WHERE id = $1', [call]);
    const holders = await db.query('SELECT 1 FROM lease_holders WHERE id = $1', [holder]);
    expect([orphan.rows.length, journaled.rows.length, holders.rows.length]).toEqual([0, 1, 1]);
    await db.query('DELETE FROM open_calls WHERE id = $1', [call]);
    await db.query('DELETE FROM lease_holders WHERE id = $1', [holder]);
  });
});
