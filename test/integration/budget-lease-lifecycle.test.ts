import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { type EnvConfig, readEnvConfig } from '../../src/config/env-config.ts';
import { findKeyByLookupId } from '../../src/keys/key-repository.ts';
import { createKey } from '../../src/keys/key-service.ts';
import { createServices } from '../../src/assembly/services.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { startGateway } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';
import { freshStorage } from '../support/test-database.ts';

/** Budget leases across a process's life: nothing stays leased once it has stopped. */
let config: EnvConfig;
let dataDir: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'junction-leases-'));
  const storage = await freshStorage();
  drop = storage.drop;
  // On disk (PGlite) or a fresh database (PostgreSQL), so it can be reopened after a shutdown.
  config = readEnvConfig({ LOG_LEVEL: 'silent', JUNCTION_DATA_DIR: dataDir, ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}) });
});
afterAll(async () => {
  await drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('shutdown', () => {
  it('returns a lease whose call was still in flight, instead of stranding it', async () => {
    const services = await createServices(config, { loadAgents: false });
    await runAdminCommand(services, { command: 'credits.grant', amount: '10', currency: 'USD' });
    const { record: key } = await createKey(services.db, services.hasher, {
      accountId: services.defaultAccount.id,
      kind: 'model',
      settings: { name: 'limited', totalLimitMicros: 5_000_000 },
    });
    const settled = await services.budgets.reserve(key, 1_000);
    services.budgets.settle(settled, 400, undefined, key);
    // Never settled: a call the shutdown did not wait for.
    await services.budgets.reserve(key, 2_000);
    await services.close();

    const db = await openDatabase(config);
    try {
      const account = await db.query<{ leased_micros: number; usage_micros: number }>('SELECT leased_micros, usage_micros FROM accounts WHERE is_default');
      expect(account.rows[0]).toEqual({ leased_micros: 0, usage_micros: 400 });
      const keyRow = await db.query<{ leased_micros: number; spend_total_micros: number }>('SELECT leased_micros, spend_total_micros FROM api_keys WHERE id = $1', [key.id]);
      expect(keyRow.rows[0]).toEqual({ leased_micros: 0, spend_total_micros: 400 });
      expect((await db.query('SELECT 1 FROM budget_leases')).rows).toHaveLength(0);
      expect((await db.query('SELECT 1 FROM lease_holders')).rows).toHaveLength(0);
    } finally {
      await db.close();
    }
  });
});

describe('a key whose limit is lowered', () => {
  it('stops spending at the new limit: budget this process leased under the old one goes back', async () => {
    const gateway = await startGateway();
    try {
      await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
      const provisioning = await gateway.key('provisioning');
      const created = await gateway.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'lowered', total_limit_usd: 50 } });
      const { key, data } = created.json() as { key: string; data: { id: string } };
      const call = () =>
        gateway.app.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers: bearer(key),
          payload: { model: 'openai/test-echo', max_tokens: 20, messages: [{ role: 'user', content: 'hello there' }] },
        });
      // Takes a lease worth many calls from the 50 USD headroom.
      expect((await call()).statusCode).toBe(200);
      await gateway.settle();

      const patched = await gateway.app.inject({ method: 'PATCH', url: `/v1/keys/${data.id}`, headers: bearer(provisioning), payload: { total_limit_usd: 0 } });
      expect(patched.statusCode).toBe(200);
      const refused = await call();
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('key_limit_exceeded');
      await gateway.settle();
      const row = await gateway.services.db.query<{ spend_total_micros: number; leased_micros: number }>('SELECT spend_total_micros, leased_micros FROM api_keys WHERE id = $1', [data.id]);
      expect(row.rows[0]?.leased_micros).toBe(0);

      // A call in flight across a change gives back what it did not use when it settles.
      await gateway.app.inject({ method: 'PATCH', url: `/v1/keys/${data.id}`, headers: bearer(provisioning), payload: { total_limit_usd: 50 } });
      const record = await findKeyByLookupId(gateway.services.db, key.slice(6, 18));
      if (!record) throw new Error('key not found');
      const reservation = await gateway.services.budgets.reserve(record, 10_000);
      gateway.services.keyChanges.changedHere(record.lookupId);
      gateway.services.budgets.settle(reservation, 4_000, undefined, record);
      await gateway.settle();
      const after = await gateway.services.db.query<{ leased_micros: number }>('SELECT leased_micros FROM api_keys WHERE id = $1', [data.id]);
      expect(after.rows[0]?.leased_micros).toBe(0);
    } finally {
      await gateway.close();
    }
  });
});

describe('reserving from the leases held', () => {
  it('answers without the database only within what is leased, and settles like any reservation', async () => {
    const services = await createServices(config, { loadAgents: false });
    try {
      await runAdminCommand(services, { command: 'credits.grant', amount: '10', currency: 'USD' });
      const { record: key } = await createKey(services.db, services.hasher, {
        accountId: services.defaultAccount.id,
        kind: 'model',
        settings: { name: 'leased', totalLimitMicros: 5_000_000 },
      });
      // Nothing leased yet: the caller must take the awaited path, which tops up.
      expect(services.budgets.reserveFromLeases(key, 1_000)).toBeUndefined();
      const first = await services.budgets.reserve(key, 1_000);
      const second = services.budgets.reserveFromLeases(key, 2_000);
      expect(second).toMatchObject({ keyId: key.id, accountId: key.accountId, amountMicros: 2_000, keyLeased: true, settled: false });
      // More than the key's whole limit is never answered from a lease (and refused when awaited).
      expect(services.budgets.reserveFromLeases(key, 6_000_000)).toBeUndefined();
      await expect(services.budgets.reserve(key, 6_000_000)).rejects.toMatchObject({ code: 'key_limit_exceeded' });
      services.budgets.settle(first, 700, undefined, key);
      services.budgets.settle(second, 1_500, undefined, key);
      await services.close();
    } catch (error) {
      await services.close();
      throw error;
    }
    const db = await openDatabase(config);
    try {
      const keyRow = await db.query<{ leased_micros: number; spend_total_micros: number }>('SELECT leased_micros, spend_total_micros FROM api_keys WHERE name = $1', ['leased']);
      expect(keyRow.rows[0]).toEqual({ leased_micros: 0, spend_total_micros: 2_200 });
    } finally {
      await db.close();
    }
  });
});
