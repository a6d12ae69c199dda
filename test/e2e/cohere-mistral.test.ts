import Anthropic from '@anthropic-ai/sdk';
import { type Content, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { type FakeCohere, startFakeCohereUpstream } from '../support/fake-cohere-upstream.ts';
import { type FakeMistral, startFakeMistralUpstream } from '../support/fake-mistral-upstream.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Cohere (its v2 Chat API) and Mistral behind every front-end, through the official SDKs:
 * fakes that check the bearer key and refuse what each API refuses (Cohere's unknown
 * fields and tool choices, Mistral's OpenAI-only fields and foreign tool-call ids), and
 * stream each one's real events.
 */
let cohere: FakeCohere;
let mistral: FakeMistral;
let t: TestApp;
let folder: string;
let baseUrl: string;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;

const COHERE_KEY = 'cohere-key-good';
const MISTRAL_KEY = 'mistral-key-good';

beforeAll(async () => {
  cohere = await startFakeCohereUpstream({ apiKeys: [COHERE_KEY] });
  mistral = await startFakeMistralUpstream({ apiKeys: [MISTRAL_KEY] });
  folder = mkdtempSync(join(tmpdir(), 'junction-cohere-mistral-'));
  const config = join(folder, 'junction.yaml');
  writeFileSync(
    config,
    `
models:
  team/command:
    capabilities: [chat, tools]
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: cohere, model: command-tool-test }
  team/le-chat:
    capabilities: [chat, tools]
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: mistral, model: mistral-tool-test }
  team/magistral:
    capabilities: [chat, reasoning]
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: mistral, model: magistral-test }
  team/le-echo:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: mistral, model: mistral-echo-test }
  team/busy:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: cohere, name: cohere-busy, model: command-fail-429, priority: 0 }
      - { provider: mistral, name: mistral-spare, model: mistral-spare, priority: 1 }
  team/wrong-key:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: cohere, model: command-refused, api_key_env: TEST_COHERE_WRONG_KEY }
`,
  );
  mkdirSync(join(folder, 'agents'));
  cpSync(join(import.meta.dirname, '../fixtures/agents-e2e/tools'), join(folder, 'tools'), { recursive: true });
  writeFileSync(join(folder, 'agents', 'cohere-helper.yaml'), 'name: Cohere helper\nmodel: team/command\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_steps: 4\n');
  writeFileSync(join(folder, 'agents', 'mistral-helper.yaml'), 'name: Mistral helper\nmodel: team/le-chat\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_steps: 4\n');
  const env = {
    JUNCTION_CONFIG: config,
    JUNCTION_AGENTS_DIR: join(folder, 'agents'),
    JUNCTION_TOOLS_DIR: join(folder, 'tools'),
    COHERE_API_KEY: COHERE_KEY,
    COHERE_BASE_URL: cohere.url,
    MISTRAL_API_KEY: MISTRAL_KEY,
    MISTRAL_BASE_URL: mistral.url,
    TEST_COHERE_WRONG_KEY: 'cohere-key-revoked',
  };
  t = await startTestApp(env, { env, retry: { retries: 1, baseDelayMs: 1, maxRetryAfterMs: 50 } });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  await runAdminCommand(t.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  const key = await t.key('model');
  openai = new OpenAI({ apiKey: key, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: key, baseURL: baseUrl, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl } });
});

afterAll(async () => {
  await t?.close();
  await cohere?.close();
  await mistral?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const lastCohere = () => {
  const request = cohere.requests.at(-1);
  if (!request) throw new Error('Cohere received nothing');
  return request;
};
const lastMistral = () => {
  const request = mistral.requests.at(-1);
  if (!request) throw new Error('Mistral received nothing');
  return request;
};

async function usageRows(model: string) {
  await t.services.settlements.drain();
  const { rows } = await t.services.db.query<{ provider: string; upstream_model: string; input_tokens: number; output_tokens: number; cost_micros: string; streamed: boolean }>(
    'SELECT provider, upstream_model, input_tokens, output_tokens, cost_micros, streamed FROM usage_log WHERE model = $1 ORDER BY created_at',
    [model],
  );
  return rows;
}

const WEATHER: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('Cohere through /v1/chat/completions and the openai SDK', () => {
  it('answers from /v2/chat with the bearer key, names cohere, and bills the billed units', async () => {
    const { data, response } = await openai.chat.completions
      .create({
        model: 'team/command',
        temperature: 0.3,
        top_p: 0.9,
        seed: 7,
        stop: ['###'],
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hello from cohere' },
        ],
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('hello from cohere');
    expect(data.choices[0]?.finish_reason).toBe('stop');
    expect(response.headers.get('x-junction-provider')).toBe('cohere');
    const request = lastCohere();
    expect(request.headers.authorization).toBe(`Bearer ${COHERE_KEY}`);
    expect(request.body).toEqual({
      model: 'command-tool-test',
      stream: false,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello from cohere' },
      ],
      temperature: 0.3,
      p: 0.9,
      seed: 7,
      stop_sequences: ['###'],
    });
    // Billed units, not the template-inflated `tokens`: ceil(25 characters / 4) = 7.
    expect(data.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
    const row = (await usageRows('team/command')).at(-1);
    expect(row).toMatchObject({ provider: 'cohere', upstream_model: 'command-tool-test', input_tokens: 7, output_tokens: 3, streamed: false });
    expect(Number(row?.cost_micros)).toBe(7 * 10 + 3 * 20);
  });

  it('streams content-delta events as chunks, usage from message-end', async () => {
    const stream = await openai.chat.completions.create({
      model: 'team/command',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream these cohere words' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('stream these cohere words');
    expect(finish).toBe('stop');
    expect(lastCohere().body['stream']).toBe(true);
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 4 });
    const row = (await usageRows('team/command')).at(-1);
    expect(row).toMatchObject({ provider: 'cohere', streamed: true, input_tokens: 7, output_tokens: 4 });
    expect(Number(row?.cost_micros)).toBe(7 * 10 + 4 * 20);
  });

  it('round-trips a tool call, its plan kept as the tool_plan, streamed and not', async () => {
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'weather in Paris?' };
    const first = await openai.chat.completions.create({ model: 'team/command', tools: [WEATHER], tool_choice: 'required', messages: [question] });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    if (call?.type !== 'function') throw new Error('no function call');
    expect(call).toMatchObject({ id: 'get_weather_fake1', function: { name: 'get_weather' } });
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'weather in Paris?' });
    expect(lastCohere().body).toMatchObject({ tool_choice: 'REQUIRED', tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER.function.parameters } }] });

    const second = await openai.chat.completions.create({
      model: 'team/command',
      tools: [WEATHER],
      messages: [question, first.choices[0]?.message as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: 'sunny, 24 C' }],
    });
    expect(second.choices[0]?.message.content).toBe('The tool said: sunny, 24 C');
    expect(lastCohere().body['messages']).toEqual([
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', tool_plan: 'I will call get_weather.', tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: call.function.arguments } }] },
      { role: 'tool', tool_call_id: call.id, content: 'sunny, 24 C' },
    ]);

    const stream = await openai.chat.completions.create({ model: 'team/command', stream: true, tools: [WEATHER], messages: [question] });
    let name = '';
    let args = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      finish = chunk.choices[0]?.finish_reason ?? finish;
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += delta.function?.name ?? '';
        args += delta.function?.arguments ?? '';
      }
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'weather in Paris?' });
    expect(finish).toBe('tool_calls');
  });

  it('names the fields Cohere cannot take as dropped, and never sends them', async () => {
    const { data, response } = await openai.chat.completions
      .create({ model: 'team/command', messages: [{ role: 'user', content: 'tolerant cohere' }], safe_prompt: true } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('tolerant cohere');
    expect(response.headers.get('x-junction-dropped-params')).toBe('safe_prompt');
    expect(lastCohere().body).not.toHaveProperty('safe_prompt');
  });

  it("serves Cohere's own model ids, billed at Cohere's published prices", async () => {
    const { data, response } = await openai.chat.completions.create({ model: 'cohere/command-a-03-2025', messages: [{ role: 'user', content: 'straight to command a' }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe('straight to command a');
    expect(response.headers.get('x-junction-provider')).toBe('cohere');
    expect(lastCohere().body['model']).toBe('command-a-03-2025');
    expect((await openai.models.list()).data.map((model) => model.id)).toContain('cohere/command-a-03-2025');
    const row = (await usageRows('cohere/command-a-03-2025')).at(-1);
    // command-a: $2.50 per million input tokens, $10 per million output tokens.
    expect(Number(row?.cost_micros)).toBe(Math.ceil(((row?.input_tokens ?? 0) * 2_500_000 + (row?.output_tokens ?? 0) * 10_000_000) / 1_000_000));
  });
});

describe('Cohere through /v1/messages and the @anthropic-ai/sdk', () => {
  const lookup: Anthropic.Tool = { name: 'lookup_order', description: 'Find an order', input_schema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } };

  it('answers, streams, and round-trips a tool_use with its input streamed', async () => {
    const message = await anthropic.messages.create({ model: 'team/command', max_tokens: 100, messages: [{ role: 'user', content: 'hello messages' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'hello messages' });
    expect(lastCohere().body).toMatchObject({ max_tokens: 100 });

    const question: Anthropic.MessageParam = { role: 'user', content: 'Where is order 42?' };
    const first = await anthropic.messages.create({ model: 'team/command', max_tokens: 200, tools: [lookup], messages: [question] });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use');
    if (use?.type !== 'tool_use') throw new Error('no tool_use block');
    const second = await anthropic.messages.create({
      model: 'team/command',
      max_tokens: 200,
      tools: [lookup],
      messages: [question, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'shipped yesterday' }] }],
    });
    expect(second.content.find((block) => block.type === 'text')).toMatchObject({ text: 'The tool said: shipped yesterday' });
    const sent = lastCohere().body['messages'] as Array<Record<string, unknown>>;
    expect(sent.at(-1)).toEqual({ role: 'tool', tool_call_id: use.id, content: 'shipped yesterday' });

    const deltas: string[] = [];
    const stream = anthropic.messages.stream({ model: 'team/command', max_tokens: 200, tools: [lookup], messages: [question] });
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const final = await stream.finalMessage();
    expect(deltas).toContain('input_json_delta');
    expect(final.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'lookup_order', input: { order_id: 'Where is order 42?' } });
    expect(final.stop_reason).toBe('tool_use');
  });
});

describe('Cohere through /v1beta and @google/genai', () => {
  const functionDeclarations = [{ name: 'lookup_order', description: 'Find an order', parametersJsonSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } }];

  it('generates, streams and round-trips a function call', async () => {
    const response = await google.models.generateContent({ model: 'team/command', contents: 'hello gemini front' });
    expect(response.text).toBe('hello gemini front');
    let text = '';
    for await (const chunk of await google.models.generateContentStream({ model: 'team/command', contents: 'stream gemini words' })) text += chunk.text ?? '';
    expect(text).toBe('stream gemini words');

    const question: Content = { role: 'user', parts: [{ text: 'Where is order 42?' }] };
    const config = { tools: [{ functionDeclarations }] };
    const first = await google.models.generateContent({ model: 'team/command', contents: [question], config });
    const call = first.functionCalls?.[0];
    const modelTurn = first.candidates?.[0]?.content;
    if (!call || !modelTurn) throw new Error('no function call');
    expect(call.name).toBe('lookup_order');
    const answer: Content = { role: 'user', parts: [{ functionResponse: { id: call.id, name: 'lookup_order', response: { result: 'shipped yesterday' } } }] };
    const second = await google.models.generateContent({ model: 'team/command', contents: [question, modelTurn, answer], config });
    expect(second.text).toContain('shipped yesterday');
  });
});

describe('Mistral', () => {
  it('answers through the openai SDK with random_seed, safe_prompt and an assistant prefix passed as Mistral names them', async () => {
    const { data, response } = await openai.chat.completions
      .create({
        model: 'team/le-echo',
        seed: 11,
        safe_prompt: true,
        messages: [
          { role: 'user', content: 'bonjour' },
          { role: 'assistant', content: 'Reply: ', prefix: true },
        ],
      } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Reply: bonjour');
    expect(response.headers.get('x-junction-provider')).toBe('mistral');
    expect(response.headers.get('x-junction-dropped-params')).toBeNull();
    const request = lastMistral();
    expect(request.headers.authorization).toBe(`Bearer ${MISTRAL_KEY}`);
    expect(request.body).toMatchObject({ model: 'mistral-echo-test', random_seed: 11, safe_prompt: true, messages: [{ role: 'user' }, { role: 'assistant', prefix: true }] });
    expect(request.body).not.toHaveProperty('seed');
    const row = (await usageRows('team/le-echo')).at(-1);
    expect(row).toMatchObject({ provider: 'mistral', input_tokens: data.usage?.prompt_tokens, output_tokens: data.usage?.completion_tokens, streamed: false });
    expect(Number(row?.cost_micros)).toBe((row?.input_tokens ?? 0) * 10 + (row?.output_tokens ?? 0) * 20);
  });

  it('streams without stream_options, the usage read from the last chunk', async () => {
    const stream = await openai.chat.completions.create({ model: 'team/le-echo', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream le mistral' }] });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('stream le mistral');
    expect(lastMistral().body).not.toHaveProperty('stream_options');
    expect(usage?.completion_tokens).toBe(3);
    const row = (await usageRows('team/le-echo')).at(-1);
    expect(row).toMatchObject({ provider: 'mistral', streamed: true, output_tokens: 3, input_tokens: usage?.prompt_tokens });
  });

  it("round-trips a tool call begun elsewhere: other providers' ids go as nine characters, required as any", async () => {
    const foreignId = 'call_Xy7abcDEFghiJKLmnoPQRstu';
    const answer = await openai.chat.completions.create({
      model: 'team/le-chat',
      tools: [WEATHER],
      tool_choice: 'required',
      messages: [
        { role: 'user', content: 'weather in Lyon?' },
        { role: 'assistant', content: null, tool_calls: [{ id: foreignId, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } }] },
        { role: 'tool', tool_call_id: foreignId, content: 'rainy, 12 C' },
      ],
    });
    expect(answer.choices[0]?.message.content).toBe('The tool said: rainy, 12 C');
    const body = lastMistral().body;
    expect(body['tool_choice']).toBe('any');
    const messages = body['messages'] as Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    const sentId = messages[1]?.tool_calls?.[0]?.id;
    expect(sentId).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(messages[2]?.tool_call_id).toBe(sentId);

    // Mistral's own ids come back to the client and go up again unchanged.
    const first = await openai.chat.completions.create({ model: 'team/le-chat', tools: [WEATHER], messages: [{ role: 'user', content: 'weather in Nice?' }] });
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('no function call');
    expect(call.id).toMatch(/^[A-Za-z0-9]{9}$/);
    const stream = await openai.chat.completions.create({
      model: 'team/le-chat',
      stream: true,
      tools: [WEATHER],
      messages: [{ role: 'user', content: 'weather in Nice?' }, first.choices[0]?.message as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: 'sunny' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('The tool said: sunny');
    expect((lastMistral().body['messages'] as Array<{ tool_call_id?: string }>)[2]?.tool_call_id).toBe(call.id);
  });

  it('serves through /v1/messages and /v1beta, a tool call included', async () => {
    const stream = anthropic.messages.stream({
      model: 'team/le-chat',
      max_tokens: 200,
      tools: [{ name: 'lookup_order', input_schema: { type: 'object', properties: { order_id: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'Where is order 7?' }],
    });
    const final = await stream.finalMessage();
    const use = final.content.find((block) => block.type === 'tool_use');
    expect(use).toMatchObject({ name: 'lookup_order', input: { order_id: 'Where is order 7?' } });
    if (use?.type !== 'tool_use') throw new Error('no tool_use block');
    const after = await anthropic.messages.create({
      model: 'team/le-chat',
      max_tokens: 200,
      tools: [{ name: 'lookup_order', input_schema: { type: 'object', properties: { order_id: { type: 'string' } } } }],
      messages: [
        { role: 'user', content: 'Where is order 7?' },
        { role: 'assistant', content: final.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'delivered' }] },
      ],
    });
    expect(after.content[0]).toMatchObject({ type: 'text', text: 'The tool said: delivered' });
    const gemini = await google.models.generateContent({ model: 'team/le-echo', contents: 'mistral through gemini' });
    expect(gemini.text).toBe('mistral through gemini');
  });

  it("reads a reasoning model's chunk lists as thinking and text, whole and streamed", async () => {
    const message = await anthropic.messages.create({ model: 'team/magistral', max_tokens: 100, messages: [{ role: 'user', content: 'think first' }] });
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ thinking: 'Let me think.' });
    expect(message.content[1]).toMatchObject({ text: 'think first' });
    const stream = await openai.chat.completions.create({ model: 'team/magistral', stream: true, messages: [{ role: 'user', content: 'stream a thought' }] });
    let text = '';
    let reasoning = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning?: string } | undefined;
      text += delta?.content ?? '';
      reasoning += delta?.reasoning ?? '';
    }
    expect(reasoning).toBe('Let me think.');
    expect(text).toBe('stream a thought');
  });

  it("serves Mistral's own model ids at Mistral's published prices", async () => {
    const { data, response } = await openai.chat.completions.create({ model: 'mistral/mistral-large-latest', messages: [{ role: 'user', content: 'straight to large' }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe('straight to large');
    expect(response.headers.get('x-junction-provider')).toBe('mistral');
    expect(lastMistral().body['model']).toBe('mistral-large-latest');
    const row = (await usageRows('mistral/mistral-large-latest')).at(-1);
    // mistral-large-latest: $2 per million input tokens, $6 per million output tokens.
    expect(Number(row?.cost_micros)).toBe(Math.ceil(((row?.input_tokens ?? 0) * 2_000_000 + (row?.output_tokens ?? 0) * 6_000_000) / 1_000_000));
  });
});

describe('inside an agent', () => {
  it.each([
    ['cohere-helper', 'cohere'],
    ['mistral-helper', 'mistral'],
  ])('%s runs the tool loop, each model step billed to %s', async (agent, provider) => {
    const agents = new OpenAI({ apiKey: await t.key('agent'), baseURL: `${baseUrl}/agents/v1`, maxRetries: 0 });
    const completion = await agents.chat.completions.create({ model: agent, messages: [{ role: 'user', content: `shout on ${provider}` }] });
    expect(completion.choices[0]?.message.content).toBe(`The tool said: SHOUT ON ${provider.toUpperCase()}`);
    await t.services.settlements.drain();
    const { rows } = await t.services.db.query<{ endpoint: string; provider: string | null }>('SELECT endpoint, provider FROM usage_log WHERE agent_id = $1 ORDER BY created_at', [agent]);
    expect(rows.map((row) => row.endpoint)).toEqual(['agents.chat.completions', 'agents.tool', 'agents.chat.completions']);
    expect(rows.filter((row) => row.endpoint === 'agents.chat.completions').map((row) => row.provider)).toEqual([provider, provider]);
  });
});

describe('failures', () => {
  it('a Cohere 429 with Retry-After parks the deployment: the spare serves, and the next call skips the busy one', async () => {
    const first = await openai.chat.completions.create({ model: 'team/busy', messages: [{ role: 'user', content: 'busy one' }] }).withResponse();
    expect(first.data.choices[0]?.message.content).toBe('busy one');
    expect(first.response.headers.get('x-junction-provider')).toBe('mistral-spare');
    expect(cohere.attempts('command-fail-429')).toBe(1);
    const second = await openai.chat.completions.create({ model: 'team/busy', messages: [{ role: 'user', content: 'busy two' }] }).withResponse();
    expect(second.response.headers.get('x-junction-provider')).toBe('mistral-spare');
    expect(cohere.attempts('command-fail-429')).toBe(1);
    expect((await usageRows('team/busy')).map((row) => row.provider)).toEqual(['mistral-spare', 'mistral-spare']);
  });

  it("a key Cohere refuses is the gateway's upstream auth error, never the caller's 401", async () => {
    const error = await openai.chat.completions.create({ model: 'team/wrong-key', messages: [{ role: 'user', content: 'refused' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(cohere.refused.at(-1)).toMatchObject({ status: 401, message: 'invalid api token' });
  });
});
