import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { bearer } from '../support/test-app.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/** `GET /v1/usage`: the account's own log, filtered and cursor-paged; `GET /v1/generations/{id}`: the caller's own row. */
let gateway: GatewayHarness;
let admin: string;
let first: string;
let second: string;
let firstKeyId: string;

beforeAll(async () => {
  gateway = await startGateway();
  const account = await createAccount(gateway.services.db, 'logged');
  await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '5', currency: 'USD' });
  admin = await gateway.key('provisioning', {}, account.id);
  first = await gateway.key('model', {}, account.id);
  second = await gateway.key('model', { allowedModels: ['openai/test-echo'] }, account.id);
  const rows = await gateway.services.db.query<{ id: string }>("SELECT id FROM api_keys WHERE account_id = $1 AND kind = 'model' ORDER BY position LIMIT 1", [account.id]);
  firstKeyId = rows.rows[0]?.id ?? '';
  const chat = (key: string, model: string) =>
    gateway.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model, messages: [{ role: 'user', content: 'log me' }] } });
  for (let index = 0; index < 3; index += 1) await chat(first, 'openai/test-echo');
  await chat(second, 'openai/test-echo');
  await chat(second, 'openai/test-tool'); // refused by the allowlist: a rejected row
  // Another account's traffic must never show up.
  const other = await createAccount(gateway.services.db, 'other');
  await runAdminCommand(gateway.services, { command: 'credits.grant', account: other.id, amount: '5', currency: 'USD' });
  await chat(await gateway.key('model', {}, other.id), 'openai/test-echo');
});
afterAll(async () => gateway.close());

type UsagePage = { data: Array<{ id: string; key_id: string; status: string; error_code: string | null; model: string | null; total_cost: number }>; has_more: boolean; next_cursor: string | null };
const usage = async (query = '') => (await gateway.app.inject({ url: `/v1/usage${query}`, headers: bearer(admin) })).json() as UsagePage;

describe('GET /v1/usage', () => {
  it("lists exactly the account's calls, including refusals", async () => {
    const page = await usage();
    expect(page.data).toHaveLength(5);
    expect(page.data.filter((row) => row.status === 'rejected')).toEqual([expect.objectContaining({ error_code: 'model_not_allowed', total_cost: 0 })]);
  });

  it('filters by key and status', async () => {
    expect((await usage(`?key_id=${firstKeyId}`)).data).toHaveLength(3);
    expect((await usage('?status=success')).data).toHaveLength(4);
    const bad = await gateway.app.inject({ url: '/v1/usage?status=great', headers: bearer(admin) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.param).toBe('status');
  });

  it('pages with a cursor, newest first, without repeats', async () => {
    const seen: string[] = [];
    let page = await usage('?limit=2');
    seen.push(...page.data.map((row) => row.id));
    while (page.next_cursor) {
      page = await usage(`?limit=2&cursor=${page.next_cursor}`);
      seen.push(...page.data.map((row) => row.id));
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
  });
});

describe('GET /v1/generations/{id}', () => {
  it("shows a key its own generation and nobody else's", async () => {
    const own = (await usage(`?key_id=${firstKeyId}&limit=1`)).data[0];
    expect((await gateway.app.inject({ url: `/v1/generations/${own?.id}`, headers: bearer(first) })).statusCode).toBe(200);
    expect((await gateway.app.inject({ url: `/v1/generations/${own?.id}`, headers: bearer(second) })).statusCode).toBe(404);
  });
});
