import Anthropic from '@anthropic-ai/sdk';
import { ApiError, type Content, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness, UPSTREAM_KEYS } from '../support/gateway-harness.ts';

let gateway: GatewayHarness;
let modelKey: string;
let anthropic: Anthropic;
let google: GoogleGenAI;

/** One model per provider behind each native front-end. */
const ECHO = ['anthropic/test-echo', 'openai/test-echo', 'google/test-echo'];
const TOOL = ['anthropic/test-tool', 'openai/test-tool', 'google/test-tool'];
const THINKING = ['anthropic/test-thinking', 'openai/test-reasoning', 'google/test-thinking'];

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  modelKey = await gateway.key('model');
  anthropic = new Anthropic({ apiKey: modelKey, baseURL: gateway.baseUrl, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: modelKey, httpOptions: { baseUrl: gateway.baseUrl } });
});
afterAll(async () => gateway.close());

/** Event names of a raw SSE body, consecutive content_block_delta collapsed to one. */
const eventSequence = (body: string) => [...body.matchAll(/^event: (\S+)$/gm)].map((match) => match[1]).filter((name, index, all) => !(name === 'content_block_delta' && all[index - 1] === name));

const anthropicTool: Anthropic.Tool = {
  name: 'lookup_order',
  description: 'Find an order',
  input_schema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
};

describe('POST /v1/messages through the official @anthropic-ai/sdk', () => {
  it('answers a plain call on each provider, key in x-api-key, billed with cost', async () => {
    for (const model of ECHO) {
      const message = await anthropic.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hello native gateway' }] });
      expect(message.content[0]?.type === 'text' && message.content[0].text, model).toBe('hello native gateway');
      expect(message.stop_reason).toBe('end_turn');
      const usage = message.usage as Anthropic.Usage & { cost: number };
      expect(usage.cost).toBeCloseTo((usage.input_tokens * 10 + usage.output_tokens * 20) / 1e6, 9);
    }
    expect(gateway.anthropic.requests.at(-1)?.headers['x-api-key']).toBe(UPSTREAM_KEYS.anthropic);
  });

  it('accepts the key as Authorization: Bearer (authToken)', async () => {
    const bearerClient = new Anthropic({ apiKey: null, authToken: modelKey, baseURL: gateway.baseUrl, maxRetries: 0 });
    const message = await bearerClient.messages.create({ model: 'openai/test-echo', max_tokens: 50, messages: [{ role: 'user', content: 'bearer works' }] });
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('bearer works');
  });

  it('streams the exact Anthropic event sequence, with usage in message_delta', async () => {
    for (const model of ECHO) {
      const response = await fetch(`${gateway.baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': modelKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'stream these words' }] }),
      });
      const body = await response.text();
      expect(eventSequence(body), model).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
      expect(body).toContain('"type":"text_delta"');

      const stream = anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'stream these words' }] });
      let text = '';
      stream.on('text', (delta) => (text += delta));
      const final = await stream.finalMessage();
      expect(text, model).toBe('stream these words');
      expect(final.stop_reason).toBe('end_turn');
      expect(final.usage.output_tokens).toBe(3);
    }
  });

  it('round-trips a tool call on each provider, streamed as input_json_delta', async () => {
    for (const model of TOOL) {
      const question: Anthropic.MessageParam = { role: 'user', content: 'Where is order 42?' };
      const first = await anthropic.messages.create({ model, max_tokens: 200, tools: [anthropicTool], messages: [question] });
      expect(first.stop_reason, model).toBe('tool_use');
      const use = first.content.find((block) => block.type === 'tool_use');
      if (use?.type !== 'tool_use') throw new Error(`${model}: no tool_use block`);
      expect(use.name).toBe('lookup_order');
      expect(typeof (use.input as { order_id: unknown }).order_id).toBe('string');
      const second = await anthropic.messages.create({
        model,
        max_tokens: 200,
        tools: [anthropicTool],
        messages: [question, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'shipped yesterday' }] }],
      });
      const answer = second.content.find((block) => block.type === 'text');
      expect(answer?.type === 'text' && answer.text, model).toContain('shipped yesterday');

      const events: string[] = [];
      const stream = anthropic.messages.stream({ model, max_tokens: 200, tools: [anthropicTool], messages: [question] });
      stream.on('streamEvent', (event) => {
        if (event.type === 'content_block_delta') events.push(event.delta.type);
      });
      const final = await stream.finalMessage();
      expect(events, model).toContain('input_json_delta');
      expect(final.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'lookup_order' });
    }
  });

  it('returns thinking blocks and streams thinking_delta on each provider', async () => {
    for (const model of THINKING) {
      const request = { model, max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, messages: [{ role: 'user' as const, content: 'think first' }] };
      const message = await anthropic.messages.create(request);
      const thinking = message.content.find((block) => block.type === 'thinking');
      expect(thinking?.type === 'thinking' && thinking.thinking.length, model).toBeGreaterThan(0);
      expect(message.content.at(-1)).toMatchObject({ type: 'text', text: 'think first' });

      const deltas: string[] = [];
      const stream = anthropic.messages.stream(request);
      stream.on('streamEvent', (event) => {
        if (event.type === 'content_block_delta') deltas.push(event.delta.type);
      });
      await stream.finalMessage();
      expect(deltas, model).toContain('thinking_delta');
      expect(deltas).toContain('text_delta');
    }
  });

  it('counts tokens for a model of any provider', async () => {
    for (const model of ECHO) {
      const counted = await anthropic.messages.countTokens({ model, messages: [{ role: 'user', content: 'how many tokens is this' }] });
      expect(counted.input_tokens, model).toBeGreaterThan(0);
    }
  });

  it("resolves a bare Anthropic model name to the catalog's anthropic/ model", async () => {
    const before = gateway.anthropic.attempts('test-echo');
    const message = await anthropic.messages.create({ model: 'test-echo', max_tokens: 50, messages: [{ role: 'user', content: 'bare name' }] });
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('bare name');
    expect(message.model).toBe('test-echo');
    expect(gateway.anthropic.attempts('test-echo')).toBe(before + 1);
    const counted = await anthropic.messages.countTokens({ model: 'test-echo', messages: [{ role: 'user', content: 'count me' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
    // A bare name the provider does not list stays unknown.
    await expect(anthropic.messages.create({ model: 'test-nope', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('answers errors in the Anthropic shape', async () => {
    const unknown = await anthropic.messages.create({ model: 'openai/nope', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const badKey = new Anthropic({ apiKey: 'sk-jn-wrong', baseURL: gateway.baseUrl, maxRetries: 0 });
    const denied = await badKey.messages.create({ model: 'openai/test-echo', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((denied as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ error: { type: 'authentication_error' } });
    const invalid = await anthropic.messages
      .create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'x' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((error: unknown) => error);
    expect((invalid as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ error: { type: 'invalid_request_error' } });
  });
});

const functionDeclarations = [{ name: 'lookup_order', description: 'Find an order', parametersJsonSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } }];

describe('/v1beta through the official @google/genai client', () => {
  it('generates content with a model of each provider (a slash in the model id)', async () => {
    for (const model of ECHO) {
      const response = await google.models.generateContent({ model, contents: 'hello gemini front' });
      expect(response.text, model).toBe('hello gemini front');
      expect(response.candidates?.[0]?.finishReason).toBe('STOP');
      const usage = response.usageMetadata as { promptTokenCount: number; candidatesTokenCount: number; cost: number };
      expect(usage.cost).toBeCloseTo((usage.promptTokenCount * 10 + usage.candidatesTokenCount * 20) / 1e6, 9);
    }
    expect(gateway.gemini.requests.at(-1)?.headers['x-goog-api-key']).toBe(UPSTREAM_KEYS.gemini);
  });

  it('streams content as SSE on each provider', async () => {
    for (const model of ECHO) {
      let text = '';
      let finish: string | undefined;
      for await (const chunk of await google.models.generateContentStream({ model, contents: 'stream these words' })) {
        text += chunk.text ?? '';
        finish = chunk.candidates?.[0]?.finishReason ?? finish;
      }
      expect(text, model).toBe('stream these words');
      expect(finish).toBe('STOP');
    }
  });

  it('round-trips a function call on each provider', async () => {
    for (const model of TOOL) {
      const question: Content = { role: 'user', parts: [{ text: 'Where is order 42?' }] };
      const config = { tools: [{ functionDeclarations }] };
      const first = await google.models.generateContent({ model, contents: [question], config });
      const call = first.functionCalls?.[0];
      expect(call?.name, model).toBe('lookup_order');
      const modelTurn = first.candidates?.[0]?.content;
      if (!call || !modelTurn) throw new Error(`${model}: no function call`);
      const answer: Content = { role: 'user', parts: [{ functionResponse: { id: call.id, name: 'lookup_order', response: { result: 'shipped yesterday' } } }] };
      const second = await google.models.generateContent({ model, contents: [question, modelTurn, answer], config });
      expect(second.text, model).toContain('shipped yesterday');
    }
  });

  it('shows thoughts when includeThoughts is set, streamed and not', async () => {
    for (const model of THINKING) {
      const config = { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } };
      const response = await google.models.generateContent({ model, contents: 'think first', config });
      const parts = response.candidates?.[0]?.content?.parts ?? [];
      expect(
        parts.some((part) => part.thought === true && (part.text ?? '').length > 0),
        model,
      ).toBe(true);
      expect(response.text).toBe('think first');
      let thoughts = 0;
      for await (const chunk of await google.models.generateContentStream({ model, contents: 'think first', config })) {
        thoughts += (chunk.candidates?.[0]?.content?.parts ?? []).filter((part) => part.thought === true).length;
      }
      expect(thoughts, model).toBeGreaterThan(0);
    }
  });

  it('embeds through embedContent (the SDK sends :batchEmbedContents) and :embedContent', async () => {
    for (const model of ['google/test-native-embed', 'openai/test-native-embed']) {
      const result = await google.models.embedContent({ model, contents: ['embed me', 'and me'], config: { outputDimensionality: 8 } });
      expect(result.embeddings?.length, model).toBe(2);
      expect(result.embeddings?.[0]?.values?.length).toBe(8);
      const single = await fetch(`${gateway.baseUrl}/v1beta/models/${encodeURIComponent(model)}:embedContent`, {
        method: 'POST',
        headers: { 'x-goog-api-key': modelKey, 'content-type': 'application/json' },
        body: JSON.stringify({ content: { parts: [{ text: 'embed me' }] }, outputDimensionality: 8 }),
      });
      expect(((await single.json()) as { embedding: { values: number[] } }).embedding.values).toEqual(result.embeddings?.[0]?.values);
    }
    await gateway.settle();
    const rows = await gateway.services.db.query<{ endpoint: string; cost_micros: string }>("SELECT endpoint, cost_micros FROM usage_log WHERE endpoint LIKE 'gemini.%embed%'");
    expect(rows.rows.length).toBe(4);
    expect(rows.rows.every((row) => Number(row.cost_micros) > 0)).toBe(true);
  });

  it('counts tokens for a model of each provider', async () => {
    for (const model of ECHO) {
      const counted = await google.models.countTokens({ model, contents: 'how many tokens is this' });
      expect(counted.totalTokens, model).toBeGreaterThan(0);
    }
  });

  it('takes ?key=, an encoded model id, and streams a JSON array without alt=sse', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1beta/models/google%2Ftest-echo:streamGenerateContent?key=${modelKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'array of chunks' }] }] }),
    });
    expect(response.headers.get('content-type')).toContain('application/json');
    const chunks = (await response.json()) as Array<{ candidates: Array<{ content: { parts: Array<{ text?: string }> } }> }>;
    expect(chunks.map((chunk) => chunk.candidates[0]?.content.parts.map((part) => part.text ?? '').join('')).join('')).toBe('array of chunks');
  });

  it('lists and describes the models the key may call (models.list pages, models.get)', async () => {
    const names: string[] = [];
    const pager = await google.models.list({ config: { pageSize: 4 } });
    for await (const model of pager) names.push(model.name ?? '');
    const visible = gateway.services.catalog.models.map((model) => `models/${model.id}`);
    expect(names).toEqual(visible);
    expect(names.length).toBeGreaterThan(4); // more than one page was walked
    const echo = await google.models.get({ model: 'openai/test-echo' });
    expect(echo).toMatchObject({ name: 'models/openai/test-echo', inputTokenLimit: 128000, outputTokenLimit: 16384 });
    expect(echo.supportedActions).toEqual(['generateContent', 'streamGenerateContent', 'countTokens']);
    const embedder = await google.models.get({ model: 'models/google/test-native-embed' });
    expect(embedder.supportedActions).toEqual(['embedContent', 'batchEmbedContents']);
    // A key limited to some models sees only those.
    const limited = new GoogleGenAI({ apiKey: await gateway.key('model', { allowedModels: ['google/test-echo'] }), httpOptions: { baseUrl: gateway.baseUrl } });
    const limitedNames: string[] = [];
    for await (const model of await limited.models.list()) limitedNames.push(model.name ?? '');
    expect(limitedNames).toEqual(['models/google/test-echo']);
    const hidden = await limited.models.get({ model: 'openai/test-echo' }).catch((error: unknown) => error);
    expect((hidden as ApiError).status).toBe(404);
  });

  it("resolves a bare Gemini model name to the catalog's google/ model", async () => {
    const before = gateway.gemini.attempts('test-echo');
    const response = await google.models.generateContent({ model: 'test-echo', contents: 'bare gemini name' });
    expect(response.text).toBe('bare gemini name');
    expect(gateway.gemini.attempts('test-echo')).toBe(before + 1);
    expect((await google.models.get({ model: 'test-echo' })).name).toBe('models/google/test-echo');
    expect((await google.models.countTokens({ model: 'test-echo', contents: 'count me' })).totalTokens).toBeGreaterThan(0);
  });

  it('answers errors in the Google shape', async () => {
    const unknown = await google.models.generateContent({ model: 'google/nope', contents: 'x' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(ApiError);
    expect((unknown as ApiError).status).toBe(404);
    expect((unknown as ApiError).message).toContain('NOT_FOUND');
    const raw = await fetch(`${gateway.baseUrl}/v1beta/models/google%2Ftest-echo:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });
});

describe('the same call costs the same on every front-end', () => {
  it('writes identical usage rows and spend for chat completions, messages and generateContent', async () => {
    const keys = { chat: await gateway.key('model', { name: 'cmp-chat' }), messages: await gateway.key('model', { name: 'cmp-messages' }), gemini: await gateway.key('model', { name: 'cmp-gemini' }) };
    const text = 'the same words cost the same everywhere';
    for (const model of ECHO) {
      await new OpenAI({ apiKey: keys.chat, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 }).chat.completions.create({ model, max_tokens: 100, messages: [{ role: 'user', content: text }] });
      await new Anthropic({ apiKey: keys.messages, baseURL: gateway.baseUrl, maxRetries: 0 }).messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: text }] });
      await new GoogleGenAI({ apiKey: keys.gemini, httpOptions: { baseUrl: gateway.baseUrl } }).models.generateContent({ model, contents: text, config: { maxOutputTokens: 100 } });
    }
    await gateway.settle();
    const rows = await gateway.services.db.query<{ name: string; model: string; input_tokens: number; output_tokens: number; cost_micros: string; spend: string }>(
      `SELECT k.name, u.model, u.input_tokens, u.output_tokens, u.cost_micros, k.spend_total_micros AS spend
       FROM usage_log u JOIN api_keys k ON k.id = u.key_id WHERE k.name LIKE 'cmp-%' ORDER BY u.model, k.name`,
    );
    const byKey = (name: string) =>
      rows.rows.filter((row) => row.name === name).map((row) => ({ model: row.model, input: row.input_tokens, output: row.output_tokens, cost: Number(row.cost_micros) }));
    expect(byKey('cmp-chat')).toHaveLength(3);
    expect(byKey('cmp-messages')).toEqual(byKey('cmp-chat'));
    expect(byKey('cmp-gemini')).toEqual(byKey('cmp-chat'));
    const spend = (name: string) => rows.rows.find((row) => row.name === name)?.spend;
    expect(spend('cmp-messages')).toBe(spend('cmp-chat'));
    expect(spend('cmp-gemini')).toBe(spend('cmp-chat'));
  });
});
