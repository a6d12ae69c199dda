import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ JUNCTION_FX_RATES: 'EUR=1.10,GBP=1.25,JPY=0.0065' });
});
afterAll(async () => t.close());

describe('GET /v1/credits', () => {
  it('sums grants in several currencies at the configured rates, minus usage', async () => {
    const account = await createAccount(t.services.db, 'credits');
    await runAdminCommand(t.services, { command: 'credits.grant', account: account.id, amount: '10', currency: 'USD' });
    await runAdminCommand(t.services, { command: 'credits.grant', account: account.id, amount: '20.5', currency: 'EUR' });
    await runAdminCommand(t.services, { command: 'credits.grant', account: account.id, amount: '4', currency: 'GBP' });
    await runAdminCommand(t.services, { command: 'credits.grant', account: account.id, amount: '1000', currency: 'JPY' });
    await t.services.db.query('UPDATE accounts SET usage_micros = 1234567 WHERE id = $1', [account.id]);

    for (const kind of ['model', 'provisioning', 'agent'] as const) {
      const key = await t.key(kind, {}, account.id);
      const response = await t.app.inject({ url: '/v1/credits', headers: bearer(key) });
      expect(response.statusCode).toBe(200);
      // 10 + 20.5 × 1.10 + 4 × 1.25 + 1000 × 0.0065 = 10 + 22.55 + 5 + 6.5 = 44.05
      expect(response.json().data).toEqual({
        balance_usd: 44.05 - 1.234567,
        total_credits: 44.05,
        total_usage: 1.234567,
        currencies: [
          { currency: 'EUR', amount: '20.5', usd_equivalent: 22.55 },
          { currency: 'GBP', amount: '4', usd_equivalent: 5 },
          { currency: 'JPY', amount: '1000', usd_equivalent: 6.5 },
          { currency: 'USD', amount: '10', usd_equivalent: 10 },
        ],
      });
    }
  });

  it('refuses a currency without a configured rate', async () => {
    await expect(runAdminCommand(t.services, { command: 'credits.grant', amount: '1', currency: 'CHF' })).rejects.toThrow(/no conversion rate for CHF/);
  });

  it('refuses a malformed grant naming each field and what it expects, not with a validation dump', async () => {
    await expect(runAdminCommand(t.services, { command: 'credits.grant', amount: 'abc', currency: 'usd' })).rejects.toThrow(
      new Error('amount expects an amount such as 12 or 9.99 (digits, at most 6 decimals).\ncurrency expects a three-letter currency code such as USD or EUR.'),
    );
  });

  it('does not show one account the credit of another', async () => {
    const a = await createAccount(t.services.db, 'a');
    const b = await createAccount(t.services.db, 'b');
    await runAdminCommand(t.services, { command: 'credits.grant', account: a.id, amount: '7', currency: 'USD' });
    const keyB = await t.key('model', {}, b.id);
    const response = await t.app.inject({ url: '/v1/credits', headers: bearer(keyB) });
    expect(response.json().data).toMatchObject({ balance_usd: 0, total_credits: 0, currencies: [] });
  });
});
