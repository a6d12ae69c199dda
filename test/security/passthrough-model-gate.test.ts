import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { computeChatCost } from '../../src/catalog/costs.ts';
import { resolveModel } from '../../src/catalog/lookup.ts';
import type { Usage } from '../../src/core/model-types.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * Pass-through calls whose model is decided upstream (a stored prompt, an assistant, a
 * continued run): a key limited to some models must name one, and what runs is priced
 * by the model the provider reports — never logged as a free call without a model.
 */

let gateway: GatewayHarness;
let openKey: string;

type Row = { id: string; model: string | null; upstream_model: string | null; status: string; error_code: string | null; input_tokens: number; output_tokens: number; cost_micros: string };

async function rows(): Promise<Row[]> {
  await gateway.settle();
  const result = await gateway.services.db.query<Row>(
    "SELECT id, model, upstream_model, status, error_code, input_tokens, output_tokens, cost_micros FROM usage_log WHERE endpoint = 'passthrough.responses' ORDER BY created_at",
  );
  return result.rows;
}

const post = (key: string, url: string, body: unknown) =>
  gateway.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });

const upstreamCalls = () => gateway.openai.requests.length;

/** The dearest price any OpenAI chat model of the catalog puts on these tokens. */
function dearestPrice(usage: Usage): number {
  const prices = gateway.services.catalog.models.filter((model) => model.providerId === 'openai' && model.capabilities.has('chat')).map((model) => computeChatCost(model, usage));
  return Math.max(...prices);
}

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '1000', currency: 'USD' });
  openKey = await gateway.key('model');
});
afterAll(async () => gateway?.close());

describe('pass-through calls without a model', () => {
  it('refuses a key with an allowlist before anything reaches the provider', async () => {
    const limited = await gateway.key('model', { allowedModels: ['openai/test-tool'] });
    const before = upstreamCalls();
    for (const [url, body] of [
      ['/v1/responses', { input: 'x', prompt: { id: 'pmpt_test-echo' } }],
      ['/v1/responses', { input: 'x', previous_response_id: 'resp_fake1' }],
      ['/v1/threads/runs', { assistant_id: 'asst_1' }],
      ['/v1/threads/thread_1/runs', { assistant_id: 'asst_1' }],
      ['/v1/threads/thread_1/runs/run_1/submit_tool_outputs', { tool_outputs: [] }],
    ] as const) {
      const response = await post(limited, url, body);
      expect(response.statusCode, url).toBe(403);
      expect(response.json().error).toMatchObject({ code: 'model_not_allowed', param: 'model' });
      expect(response.json().error.message).toContain('names no model');
    }
    expect(upstreamCalls()).toBe(before);
    // Naming an allowed model still works for the same key.
    expect((await post(limited, '/v1/responses', { model: 'test-tool', input: 'x', prompt: { id: 'pmpt_test-echo' } })).statusCode).toBe(200);
  });

  it("refuses a key whose account's plan leaves out some models", async () => {
    const account = await createAccount(gateway.services.db, 'echo only', 'echo-only');
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '10', currency: 'USD' });
    const planKey = await gateway.key('model', {}, account.id);
    const before = upstreamCalls();
    const refused = await post(planKey, '/v1/responses', { input: 'x', prompt: { id: 'pmpt_test-tool' } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('model_not_allowed');
    expect(upstreamCalls()).toBe(before);
    expect((await post(planKey, '/v1/responses', { model: 'test-echo', input: 'x' })).statusCode).toBe(200);
  });

  it("prices an unrestricted key's call by the model the provider reports", async () => {
    const listed = await post(openKey, '/v1/responses', { input: 'priced by the prompt model', prompt: { id: 'pmpt_test-echo' } });
    expect(listed.statusCode).toBe(200);
    const listedBody = listed.json();
    expect(listedBody.model).toBe('test-echo');
    const unlisted = await post(openKey, '/v1/responses', { input: 'an unlisted model runs here', prompt: { id: 'pmpt_gpt-unlisted-9' } });
    expect(unlisted.statusCode).toBe(200);
    const unlistedBody = unlisted.json();

    const byId = new Map((await rows()).map((row) => [row.id, row]));
    const listedRow = byId.get(`pt-${listedBody.id}`);
    const echo = resolveModel(gateway.services.catalog, 'openai/test-echo');
    if (!echo) throw new Error('no openai/test-echo in the catalog');
    const listedUsage = { inputTokens: listedBody.usage.input_tokens, outputTokens: listedBody.usage.output_tokens };
    expect(listedRow).toMatchObject({ model: 'openai/test-echo', status: 'success', error_code: null });
    expect(Number(listedRow?.cost_micros)).toBe(computeChatCost(echo, listedUsage));

    // A model the catalog does not list is billed at the dearest listed rate, and named.
    const unlistedRow = byId.get(`pt-${unlistedBody.id}`);
    const unlistedUsage = { inputTokens: unlistedBody.usage.input_tokens, outputTokens: unlistedBody.usage.output_tokens };
    expect(unlistedRow).toMatchObject({ model: 'openai/gpt-unlisted-9', upstream_model: 'gpt-unlisted-9', error_code: 'model_not_in_catalog' });
    expect(Number(unlistedRow?.cost_micros)).toBe(dearestPrice(unlistedUsage));
    expect(Number(unlistedRow?.cost_micros)).toBeGreaterThan(computeChatCost(echo, unlistedUsage));
  });

  it('prices a streamed call and a background read the same way', async () => {
    const streamed = await post(openKey, '/v1/responses', { input: 'streamed unlisted words', prompt: { id: 'pmpt_gpt-unlisted-9' }, stream: true });
    expect(streamed.statusCode).toBe(200);
    const completed = streamed.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)))
      .find((event) => event.type === 'response.completed');
    const queued = (await post(openKey, '/v1/responses', { input: 'background unlisted', prompt: { id: 'pmpt_gpt-unlisted-9' }, background: true })).json();
    const read = await gateway.app.inject({ method: 'GET', url: `/v1/responses/${queued.id}`, headers: { authorization: `Bearer ${openKey}` } });
    expect(read.json().status).toBe('completed');

    const byId = new Map((await rows()).map((row) => [row.id, row]));
    for (const response of [completed.response, read.json()]) {
      const row = byId.get(`pt-${response.id}`);
      expect(row).toMatchObject({ model: 'openai/gpt-unlisted-9', error_code: 'model_not_in_catalog' });
      expect(Number(row?.cost_micros)).toBe(dearestPrice({ inputTokens: response.usage.input_tokens, outputTokens: response.usage.output_tokens }));
    }
  });

  it('names the reported model on a row without usage: a queued background call', async () => {
    const before = (await rows()).length;
    const queued = await post(openKey, '/v1/responses', { input: 'queued', prompt: { id: 'pmpt_test-echo' }, background: true });
    expect(queued.json()).toMatchObject({ status: 'queued', usage: null });
    const added = (await rows()).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ model: 'openai/test-echo', upstream_model: 'test-echo', status: 'success' });
    expect(Number(added[0]?.cost_micros)).toBe(0);
  });

  it('reserves for the dearest model when none is named', async () => {
    const account = await createAccount(gateway.services.db, 'one cent');
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '0.01', currency: 'USD' });
    const smallKey = await gateway.key('model', {}, account.id);
    const refused = await post(smallKey, '/v1/responses', { input: 'x', prompt: { id: 'pmpt_test-echo' } });
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error).toMatchObject({ code: 'insufficient_credits' });
    expect(refused.json().error.message).toContain('names no model');
    expect((await post(smallKey, '/v1/responses', { model: 'test-echo', input: 'x', max_output_tokens: 16 })).statusCode).toBe(200);
  });

  it('bills a compaction pass by the model it names', async () => {
    const compacted = await post(openKey, '/v1/responses/compact', { model: 'test-echo', input: 'a long conversation to compact into less' });
    expect(compacted.statusCode).toBe(200);
    const body = compacted.json();
    expect(body.object).toBe('response.compaction');
    const row = (await rows()).find((entry) => entry.id === `pt-${body.id}`);
    const echo = resolveModel(gateway.services.catalog, 'openai/test-echo');
    if (!echo) throw new Error('no openai/test-echo in the catalog');
    expect(row).toMatchObject({ model: 'openai/test-echo', input_tokens: body.usage.input_tokens, output_tokens: 1 });
    expect(Number(row?.cost_micros)).toBe(computeChatCost(echo, { inputTokens: body.usage.input_tokens, outputTokens: 1 }));
    expect(Number(row?.cost_micros)).toBeGreaterThan(0);
  });

  it('refuses a model that is not a string', async () => {
    const before = upstreamCalls();
    const response = await post(openKey, '/v1/responses', { model: 42, input: 'x' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid_request', param: 'model' });
    expect(upstreamCalls()).toBe(before);
  });
});
