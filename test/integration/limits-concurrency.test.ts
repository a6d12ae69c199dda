import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { worstCaseChatCost } from '../../src/catalog/costs.ts';
import { resolveModel } from '../../src/catalog/lookup.ts';
import { estimateInputTokens } from '../../src/pipeline/estimate-input-tokens.ts';
import { buildApp } from '../../src/app.ts';
import { createServices } from '../../src/assembly/services.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * Limits hold exactly under concurrency: 50 parallel calls against a budget that
 * covers the worst case of 10. The upstream holds every answer open until each call was
 * admitted or refused, so no budget is freed by an early finisher during the burst,
 * however slowly a loaded machine starts them.
 */
let gateway: GatewayHarness;
const MODEL = 'openai/test-slow';
const MAX_TOKENS = 200;
const MESSAGE = 'count slowly please';

beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => gateway.close());

function worstCaseMicros(): number {
  const model = resolveModel(gateway.services.catalog, MODEL);
  if (!model) throw new Error('test model missing');
  const inputTokens = estimateInputTokens({ messages: [{ role: 'user', content: [{ type: 'text', text: MESSAGE }] }] });
  return worstCaseChatCost(model, { inputTokens, maxOutputTokens: MAX_TOKENS });
}

async function burst(key: string, count = 50, baseUrls: string[] = [gateway.baseUrl]) {
  const before = gateway.openai.attempts('test-slow');
  const clients = baseUrls.map((url) => new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 }));
  const release = gateway.openai.holdSlowAnswers();
  // Admitted calls answer with their first chunks; refused ones with their error.
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, index) => {
      const client = clients[index % clients.length] as OpenAI;
      return client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: MESSAGE }], max_tokens: MAX_TOKENS, stream: true });
    }),
  );
  release();
  for (const result of results) {
    if (result.status === 'fulfilled') {
      for await (const _ of result.value) {
        // drain
      }
    }
  }
  await gateway.settle();
  const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as { status?: number; code?: string; headers?: Headers }] : []));
  return { ok: results.length - refused.length, refused, reachedUpstream: gateway.openai.attempts('test-slow') - before };
}

describe('exact limits under 50 concurrent requests', () => {
  it('a key spend limit admits exactly the 10 worst cases it covers', async () => {
    const account = await createAccount(gateway.services.db, 'key-limit');
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '1000', currency: 'USD' });
    const limitMicros = 10 * worstCaseMicros();
    const key = await gateway.key('model', { dailyLimitMicros: limitMicros }, account.id);
    const { ok, refused, reachedUpstream } = await burst(key);
    expect(ok).toBe(10);
    expect(reachedUpstream).toBe(10);
    expect(refused.every((error) => error.status === 403 && error.code === 'key_limit_exceeded')).toBe(true);
    const spend = await gateway.services.db.query<{ spend_day_micros: number; leased_micros: number }>('SELECT spend_day_micros, leased_micros FROM api_keys WHERE account_id = $1', [account.id]);
    expect(spend.rows[0]?.spend_day_micros).toBeGreaterThan(0);
    expect(spend.rows[0]?.spend_day_micros).toBeLessThanOrEqual(limitMicros);
  });

  it('the account balance admits exactly the 10 worst cases it covers', async () => {
    const account = await createAccount(gateway.services.db, 'balance');
    const worst = worstCaseMicros();
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: ((10 * worst) / 1e6).toFixed(6), currency: 'USD' });
    const key = await gateway.key('model', {}, account.id);
    const { ok, refused, reachedUpstream } = await burst(key);
    expect(ok).toBe(10);
    expect(reachedUpstream).toBe(10);
    expect(refused.every((error) => error.status === 402 && error.code === 'insufficient_credits')).toBe(true);
    const balance = await gateway.services.db.query<{ granted_micros: number; usage_micros: number }>('SELECT granted_micros, usage_micros FROM accounts WHERE id = $1', [account.id]);
    const row = balance.rows[0];
    expect(row && row.granted_micros - row.usage_micros).toBeGreaterThanOrEqual(0);
  });

  it('rate_limit_rpm admits exactly its number of requests, with Retry-After', async () => {
    const account = await createAccount(gateway.services.db, 'rpm');
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '1000', currency: 'USD' });
    const key = await gateway.key('model', { rateLimitRpm: 10 }, account.id);
    const { ok, refused, reachedUpstream } = await burst(key);
    expect(ok).toBe(10);
    expect(reachedUpstream).toBe(10);
    expect(refused.every((error) => error.status === 429 && error.code === 'rate_limit_exceeded')).toBe(true);
    const headers = refused[0]?.headers;
    expect(Number(headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(headers?.get('x-ratelimit-limit-requests')).toBe('10');
    expect(headers?.get('x-ratelimit-remaining-requests')).toBe('0');
  });
});

describe.skipIf(!process.env.DATABASE_URL)('two gateway processes on one PostgreSQL', () => {
  it('share a key limit: together they never pass it', async () => {
    const services = await createServices(gateway.config, { env: gateway.env });
    const second = await buildApp(services);
    const secondUrl = await second.listen({ host: '127.0.0.1', port: 0 });
    try {
      const account = await createAccount(gateway.services.db, 'two-processes');
      await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '1000', currency: 'USD' });
      const limitMicros = 10 * worstCaseMicros();
      const key = await gateway.key('model', { totalLimitMicros: limitMicros }, account.id);
      const { ok, reachedUpstream } = await burst(key, 50, [gateway.baseUrl, secondUrl]);
      await services.settlements.drain();
      // Budget a process holds but cannot use (less than one worst case) may idle
      // until the lease is returned, so "at most 10", and nearly all of them.
      expect(ok).toBeLessThanOrEqual(10);
      expect(ok).toBeGreaterThanOrEqual(8);
      expect(reachedUpstream).toBe(ok);
      const spend = await gateway.services.db.query<{ spend_total_micros: number }>('SELECT spend_total_micros FROM api_keys WHERE account_id = $1', [account.id]);
      expect(spend.rows[0]?.spend_total_micros).toBeLessThanOrEqual(limitMicros);
    } finally {
      await second.close();
      await services.close();
    }
  });
});

describe('a request without an output cap', () => {
  it('is capped at what the remaining budget can pay for, and the cap goes upstream', async () => {
    const account = await createAccount(gateway.services.db, 'cap');
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '1000', currency: 'USD' });
    // 0.01 USD: after the input, about 490 output tokens at 20 µUSD each; the model's own maximum is 16,384.
    const key = await gateway.key('model', { totalLimitMicros: 10_000 }, account.id);
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'short answer' }] });
    expect(completion.choices[0]?.message.content).toBe('short answer');
    const sent = gateway.openai.requests.at(-1)?.body as { max_completion_tokens?: number };
    expect(sent.max_completion_tokens).toBeGreaterThan(16);
    expect(sent.max_completion_tokens).toBeLessThan(500);
  });

  it('is refused when the budget cannot pay for even a short answer', async () => {
    const account = await createAccount(gateway.services.db, 'broke');
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.id, amount: '0.0005', currency: 'USD' });
    const key = await gateway.key('model', {}, account.id);
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'x'.repeat(200) }] })).rejects.toMatchObject({
      status: 402,
      code: 'insufficient_credits',
    });
    await gateway.settle();
    const rows = await gateway.services.db.query<{ status: string; error_code: string }>('SELECT status, error_code FROM usage_log u JOIN api_keys k ON k.id = u.key_id WHERE k.account_id = $1', [
      account.id,
    ]);
    expect(rows.rows).toEqual([{ status: 'rejected', error_code: 'insufficient_credits' }]);
  });
});
