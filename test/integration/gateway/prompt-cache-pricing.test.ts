import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { resolveModel } from '../../../src/catalog/lookup.ts';
import type { CatalogModel } from '../../../src/catalog/types.ts';
import { FAKE_USAGE, type PromptCacheUpstream, startPromptCacheUpstream } from '../../support/fake-prompt-cache-upstream.ts';
import { bearer, startTestApp, type TestApp } from '../../support/test-app.ts';

/**
 * Provider prompt caching, priced: cache reads and writes each providers reports are read,
 * carried in every output format, stored in the usage row and priced at their own catalog
 * rates (the published prices the catalog ships), never as ordinary input.
 */
let upstream: PromptCacheUpstream;
let t: TestApp;
let key: string;

beforeAll(async () => {
  upstream = await startPromptCacheUpstream();
  const env = {
    OPENAI_API_KEY: 'sk-upstream',
    OPENAI_BASE_URL: upstream.openaiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-upstream',
    ANTHROPIC_BASE_URL: upstream.anthropicUrl,
    GEMINI_API_KEY: 'gemini-upstream',
    GEMINI_BASE_URL: upstream.geminiUrl,
  };
  t = await startTestApp(env, { env });
  await runAdminCommand(t.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await t.key('model');
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

const catalogModel = (id: string): CatalogModel => {
  const model = resolveModel(t.services.catalog, id);
  if (!model) throw new Error(`${id} is not in the catalog`);
  return model;
};

/** Σ tokens × µUSD per million ÷ 10^6, rounded up once: the cost by hand from the catalog's rates. */
const byHand = (parts: Array<[tokens: number, perMillion: number | undefined]>): number => Math.ceil(parts.reduce((sum, [tokens, rate]) => sum + tokens * (rate ?? 0), 0) / 1_000_000);

type Row = { input_tokens: number; output_tokens: number; cached_input_tokens: number; cache_write_tokens: number; cost_micros: number };
async function lastRow(): Promise<Row> {
  await t.services.settlements.drain();
  const result = await t.services.db.query<Row>(
    'SELECT input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, cost_micros::integer AS cost_micros FROM usage_log ORDER BY created_at DESC, id DESC LIMIT 1',
  );
  const row = result.rows[0];
  if (!row) throw new Error('no usage row');
  return row;
}

const post = (url: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'anthropic-version': '2023-06-01' }, payload });

/** The usage the three front-ends render, from an answer or the last usage of a stream. */
function renderedUsage(body: string, streamed: boolean): Record<string, unknown> {
  if (!streamed) {
    const parsed = JSON.parse(body) as { usage?: Record<string, unknown>; usageMetadata?: Record<string, unknown> };
    return parsed.usage ?? parsed.usageMetadata ?? {};
  }
  let usage: Record<string, unknown> = {};
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice(6)) as { usage?: Record<string, unknown>; usageMetadata?: Record<string, unknown> };
    usage = { ...usage, ...(chunk.usage ?? chunk.usageMetadata) };
  }
  return usage;
}

describe('prompt-cache usage priced at its own rates', () => {
  it('prices an Anthropic call with cache reads and writes at the published Claude Sonnet 4.5 rates', async () => {
    const model = catalogModel('anthropic/claude-sonnet-4-5');
    // $3 input, $0.30 cache read, $3.75 cache write (5 minutes), $15 output per million tokens.
    expect(model.prices).toMatchObject({ inputPerMillion: 3_000_000, cachedInputPerMillion: 300_000, cacheWritePerMillion: 3_750_000, outputPerMillion: 15_000_000 });
    const { input, cacheRead, cacheWrite, output } = FAKE_USAGE.anthropic;
    // 200 × 3 + 1500 × 0.30 + 300 × 3.75 + 100 × 15 = 600 + 450 + 1125 + 1500 = 3675 µUSD, where all input at $3 would be 7500.
    const expected = 3_675;
    expect(
      byHand([
        [input, model.prices.inputPerMillion],
        [cacheRead, model.prices.cachedInputPerMillion],
        [cacheWrite, model.prices.cacheWritePerMillion],
        [output, model.prices.outputPerMillion],
      ]),
    ).toBe(expected);

    for (const stream of [false, true]) {
      const response = await post('/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 100, stream, messages: [{ role: 'user', content: 'priced' }] });
      expect(response.statusCode).toBe(200);
      expect(renderedUsage(response.body, stream)).toMatchObject({
        input_tokens: input,
        cache_read_input_tokens: cacheRead,
        cache_creation_input_tokens: cacheWrite,
        output_tokens: output,
        cost: expected / 1e6,
      });
      expect(await lastRow()).toEqual({ input_tokens: input + cacheRead + cacheWrite, output_tokens: output, cached_input_tokens: cacheRead, cache_write_tokens: cacheWrite, cost_micros: expected });
    }
  });

  it('renders and prices each provider’s cached tokens in every output format', async () => {
    const cases = [
      { model: 'openai/gpt-4o-mini', usage: { input: FAKE_USAGE.openai.prompt, cached: FAKE_USAGE.openai.cached, written: 0, output: FAKE_USAGE.openai.completion } },
      { model: 'anthropic/claude-sonnet-4-5', usage: { input: 2000, cached: FAKE_USAGE.anthropic.cacheRead, written: FAKE_USAGE.anthropic.cacheWrite, output: FAKE_USAGE.anthropic.output } },
      { model: 'google/gemini-2.5-flash', usage: { input: FAKE_USAGE.gemini.prompt, cached: FAKE_USAGE.gemini.cached, written: 0, output: FAKE_USAGE.gemini.candidates } },
    ];
    for (const { model: id, usage } of cases) {
      const model = catalogModel(id);
      expect(model.prices.cachedInputPerMillion, `${id} has a cache-read price`).toBeLessThan(model.prices.inputPerMillion ?? 0);
      const expected = byHand([
        [usage.input - usage.cached - usage.written, model.prices.inputPerMillion],
        [usage.cached, model.prices.cachedInputPerMillion],
        [usage.written, model.prices.cacheWritePerMillion ?? model.prices.inputPerMillion],
        [usage.output, model.prices.outputPerMillion],
      ]);
      const uncached = byHand([
        [usage.input, model.prices.inputPerMillion],
        [usage.output, model.prices.outputPerMillion],
      ]);
      if (usage.written === 0) expect(expected, id).toBeLessThan(uncached);
      for (const stream of [false, true]) {
        const label = `${id} ${stream ? 'streamed' : 'plain'}`;
        const chat = await post('/v1/chat/completions', { model: id, stream, ...(stream && { stream_options: { include_usage: true } }), messages: [{ role: 'user', content: 'chat' }] });
        const chatUsage = renderedUsage(chat.body, stream);
        expect(chatUsage, label).toMatchObject({ prompt_tokens: usage.input, completion_tokens: usage.output, cost: expected / 1e6 });
        // Cache writes in OpenRouter's field, only when there were some.
        expect(chatUsage.prompt_tokens_details, label).toEqual(usage.written ? { cached_tokens: usage.cached, cache_write_tokens: usage.written } : { cached_tokens: usage.cached });
        expect(await lastRow(), label).toEqual({ input_tokens: usage.input, output_tokens: usage.output, cached_input_tokens: usage.cached, cache_write_tokens: usage.written, cost_micros: expected });

        const messages = await post('/v1/messages', { model: id, max_tokens: 100, stream, messages: [{ role: 'user', content: 'messages' }] });
        expect(renderedUsage(messages.body, stream), label).toMatchObject({
          input_tokens: usage.input - usage.cached - usage.written,
          cache_read_input_tokens: usage.cached,
          cache_creation_input_tokens: usage.written,
          output_tokens: usage.output,
          cost: expected / 1e6,
        });
        expect((await lastRow()).cost_micros, label).toBe(expected);

        const gemini = await post(`/v1beta/models/${id}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, { contents: [{ role: 'user', parts: [{ text: 'gemini' }] }] });
        expect(renderedUsage(gemini.body, stream), label).toMatchObject({
          promptTokenCount: usage.input,
          cachedContentTokenCount: usage.cached,
          candidatesTokenCount: usage.output,
          cost: expected / 1e6,
        });
        expect((await lastRow()).cost_micros, label).toBe(expected);
      }
    }
  });
});

describe('cache_control reaches Anthropic from every front-end', () => {
  it('forwards cache_control on /v1/messages', async () => {
    const response = await post('/v1/messages', {
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      system: [{ type: 'text', text: 'a long system prompt', cache_control: { type: 'ephemeral' } }],
      tools: [{ name: 'lookup', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'cached question', cache_control: { type: 'ephemeral' } }] }],
    });
    expect(response.statusCode).toBe(200);
    const sent = upstream.requests.at(-1)?.body as { system: unknown[]; tools: unknown[]; messages: Array<{ content: unknown[] }> };
    expect(sent.system[0]).toMatchObject({ text: 'a long system prompt', cache_control: { type: 'ephemeral' } });
    expect(sent.tools[0]).toMatchObject({ name: 'lookup', cache_control: { type: 'ephemeral', ttl: '1h' } });
    expect(sent.messages[0]?.content[0]).toMatchObject({ text: 'cached question', cache_control: { type: 'ephemeral' } });
  });

  it('turns cache_control on chat-completions content parts and tools into Anthropic breakpoints', async () => {
    const body = {
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'a long system prompt', cache_control: { type: 'ephemeral' } }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'first part' },
            { type: 'text', text: 'cached part', cache_control: { type: 'ephemeral', ttl: '1h' } },
          ],
        },
      ],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } }, cache_control: { type: 'ephemeral' } }],
    };
    const response = await post('/v1/chat/completions', { model: 'anthropic/claude-sonnet-4-5', ...body });
    expect(response.statusCode).toBe(200);
    // Honoured, so not named as dropped.
    expect(response.headers['x-junction-dropped-params']).toBeUndefined();
    const sent = upstream.requests.at(-1)?.body as { system: unknown[]; tools: unknown[]; messages: Array<{ content: unknown[] }> };
    expect(sent.system[0]).toMatchObject({ text: 'a long system prompt', cache_control: { type: 'ephemeral' } });
    expect(sent.messages[0]?.content).toEqual([
      { type: 'text', text: 'first part' },
      { type: 'text', text: 'cached part', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect(sent.tools[0]).toMatchObject({ name: 'lookup', cache_control: { type: 'ephemeral' } });

    // An OpenAI-format upstream still receives the field where the caller put it.
    await post('/v1/chat/completions', { model: 'openai/gpt-4o-mini', ...body });
    const forwarded = upstream.requests.at(-1)?.body as { messages: Array<{ content: unknown[] }> };
    expect(forwarded.messages[1]?.content[1]).toMatchObject({ text: 'cached part', cache_control: { type: 'ephemeral', ttl: '1h' } });
  });
});
