import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { bearer } from '../support/test-app.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/** The plan decides which models an account may use; the key's allowlist narrows it further. */
let gateway: GatewayHarness;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => gateway.close());

const chat = (key: string, model: string) => gateway.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model, messages: [{ role: 'user', content: 'hi' }] } });

describe('GET /v1/models and plans', () => {
  it('lists models with capabilities, pricing and media params', async () => {
    const key = await gateway.key('model');
    const list = (await gateway.app.inject({ url: '/v1/models', headers: bearer(key) })).json() as { data: Array<Record<string, unknown>> };
    const echo = list.data.find((model) => model.id === 'openai/test-echo');
    expect(echo).toMatchObject({ object: 'model', owned_by: 'openai', context_length: 128000, pricing: { prompt: '0.00001', completion: '0.00002' } });
    expect(echo?.capabilities).toEqual(expect.arrayContaining(['chat', 'tools']));
    const dalle = list.data.find((model) => model.id === 'openai/dall-e-3');
    expect(dalle?.media_params_schema).toMatchObject({ type: 'object' });
    expect(list.data.some((model) => String(model.id).startsWith('anthropic/'))).toBe(true);
  });

  it('limits an account to its plan, and a plan change applies on the next request', async () => {
    const account = await createAccount(gateway.services.db, 'small', 'echo-only');
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '5', currency: 'USD' });
    const key = await gateway.key('model', {}, account.id);
    const list = (await gateway.app.inject({ url: '/v1/models', headers: bearer(key) })).json() as { data: Array<{ id: string }> };
    expect(list.data.map((model) => model.id)).toEqual(['openai/test-echo']);
    expect((await chat(key, 'fast')).statusCode).toBe(200);
    const refused = await chat(key, 'openai/test-tool');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('model_not_allowed');

    await runAdminCommand(gateway.services, { command: 'accounts.set-plan', account: account.id, plan: 'default' });
    expect((await chat(key, 'openai/test-tool')).statusCode).toBe(200);
  });

  it("intersects the plan with the key's allowlist", async () => {
    await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '5', currency: 'USD' });
    const key = await gateway.key('model', { allowedModels: ['openai/test-echo', 'anthropic/test-echo'] });
    const list = (await gateway.app.inject({ url: '/v1/models', headers: bearer(key) })).json() as { data: Array<{ id: string }> };
    expect(list.data.map((model) => model.id).sort()).toEqual(['anthropic/test-echo', 'openai/test-echo']);
    expect((await chat(key, 'google/test-echo')).json().error.code).toBe('model_not_allowed');
    expect((await chat(key, 'openai/nope')).statusCode).toBe(404);
  });
});
