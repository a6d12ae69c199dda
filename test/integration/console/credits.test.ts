import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import type { CreditAccount, Credits } from '../../../src/console/contract/credits.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';

/**
 * The console's Credits page API: every person reads their account's balance, grants and
 * spend; the server's operators (owners of the default account) list every account and
 * grant credit to any, by the CLI's rule, recorded with their email; nobody else may.
 */
const PASSWORD = 'credits page password';
let gateway: GatewayHarness;
let operator: ConsoleSession;
let defaultAdmin: ConsoleSession;
let teamOwner: ConsoleSession;
let teamId: string;

beforeAll(async () => {
  gateway = await startGateway();
  teamId = ((await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'team without credit' })) as { data: { id: string } }).data.id;
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'operator@example.com', password: PASSWORD, role: 'owner' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'admin@example.com', password: PASSWORD, role: 'admin' });
  await runAdminCommand(gateway.services, { command: 'users.create', account: teamId, email: 'team-owner@example.com', password: PASSWORD, role: 'owner' });
  operator = await signIn(gateway.app, 'operator@example.com', PASSWORD);
  defaultAdmin = await signIn(gateway.app, 'admin@example.com', PASSWORD);
  teamOwner = await signIn(gateway.app, 'team-owner@example.com', PASSWORD);
});
afterAll(async () => gateway?.close());

const credits = async (session: ConsoleSession): Promise<Credits> => (await session.request('GET', '/console/api/credits')).json<Credits>();

describe('the Credits page API', () => {
  it('tells the operator they may grant, and lists every account with its balance', async () => {
    const own = await credits(operator);
    expect(own).toMatchObject({ operator: true, balance: { usd: 0 }, grants: [] });
    expect(own.currencies).toEqual(expect.arrayContaining(['USD', 'EUR', 'GBP']));
    const accounts = (await operator.request('GET', '/console/api/credits/accounts')).json<{ data: CreditAccount[] }>().data;
    expect(accounts.map((account) => [account.name, account.default, account.balance_usd])).toEqual([
      ['default', true, 0],
      ['team without credit', false, 0],
    ]);
  });

  it('grants credit to another account at the configured rate, with the note and the operator recorded', async () => {
    const granted = await operator.request('POST', '/console/api/credits/grants', { account_id: teamId, amount: '12.5', currency: 'eur', note: 'invoice 42' });
    expect(granted.statusCode).toBe(201);
    expect(granted.json()).toMatchObject({
      data: { currency: 'EUR', amount: '12.500000', usd_rate: '1.0800000000', usd: 13.5, note: 'invoice 42', granted_by: 'operator@example.com' },
      account: { id: teamId, balance_usd: 13.5 },
    });
    const ledger = await gateway.services.db.query<{ granted_by: string; account_id: string }>('SELECT granted_by, account_id FROM credit_grants');
    expect(ledger.rows).toEqual([{ granted_by: 'operator@example.com', account_id: teamId }]);
  });

  it('refuses a currency without a rate, an amount of nothing and an account that does not exist, naming the field', async () => {
    const refusals = [
      await operator.request('POST', '/console/api/credits/grants', { account_id: teamId, amount: '5', currency: 'XYZ' }),
      await operator.request('POST', '/console/api/credits/grants', { account_id: teamId, amount: '0', currency: 'USD' }),
      await operator.request('POST', '/console/api/credits/grants', { account_id: teamId, amount: '-3', currency: 'USD' }),
      await operator.request('POST', '/console/api/credits/grants', { account_id: '00000000-0000-4000-8000-000000000000', amount: '5', currency: 'USD' }),
    ];
    expect(refusals.map((response) => [response.statusCode, response.json<{ error: { param: string } }>().error.param])).toEqual([
      [400, 'currency'],
      [400, 'amount'],
      [400, 'amount'],
      [404, 'account_id'],
    ]);
    expect((await credits(teamOwner)).balance.usd).toBe(13.5);
  });

  it("shows the team's owner their balance and grants, without the grantor, and how to get more; granting is refused", async () => {
    const team = await credits(teamOwner);
    expect(team).toMatchObject({ operator: false, balance: { usd: 13.5, by_currency: [{ currency: 'EUR', amount: '12.500000', usd: 13.5 }] } });
    expect(team.grants).toEqual([expect.objectContaining({ amount: '12.500000', note: 'invoice 42', granted_by: null })]);
    expect(team.how_to_get_more).toMatch(/operators/);
    for (const session of [teamOwner, defaultAdmin]) {
      expect((await session.request('POST', '/console/api/credits/grants', { account_id: teamId, amount: '100', currency: 'USD' })).statusCode).toBe(403);
      expect((await session.request('GET', '/console/api/credits/accounts')).statusCode).toBe(403);
    }
    expect((await credits(defaultAdmin)).operator).toBe(false);
    expect((await credits(teamOwner)).balance.usd).toBe(13.5);
  });

  it('lets the team call models with the granted credit, and shows the spend by month', async () => {
    const key = (await runAdminCommand(gateway.services, { command: 'keys.create', account: teamId, kind: 'model', name: 'team app' })) as { key: string };
    const call = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(key.key),
      payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: 'paid' }] },
    });
    expect(call.statusCode).toBe(200);
    const team = await credits(teamOwner);
    expect(team.spend_by_month).toEqual([{ month: expect.stringMatching(/^\d{4}-\d{2}$/), requests: 1, spend_usd: expect.any(Number) }]);
    const spent = team.spend_by_month[0]?.spend_usd ?? 0;
    expect(spent).toBeGreaterThan(0);
    expect(team.balance.usd).toBeCloseTo(13.5 - spent, 6);
  });

  it("attributes the CLI's grants to the operator's CLI, for operators", async () => {
    await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '2', currency: 'USD', note: 'from the shell' });
    const own = await credits(operator);
    expect(own.grants).toEqual([expect.objectContaining({ amount: '2.000000', note: 'from the shell', granted_by: 'operator (CLI)' })]);
    expect(own.balance.usd).toBe(2);
  });
});
