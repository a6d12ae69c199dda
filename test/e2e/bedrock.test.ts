import Anthropic from '@anthropic-ai/sdk';
import { type Content, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { FAKE_BEDROCK_CREDENTIALS, type FakeBedrock, startFakeBedrockUpstream } from '../support/fake-bedrock-upstream.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Amazon Bedrock behind every front-end, through the official SDKs: models whose
 * deployments are on Bedrock, served by a fake that verifies each SigV4 signature and
 * streams real event-stream frames.
 */
let bedrock: FakeBedrock;
let t: TestApp;
let folder: string;
let baseUrl: string;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;

const CLAUDE = 'anthropic.claude-test-tool-v1:0';
const NOVA = 'amazon.nova-pro-v1:0';

beforeAll(async () => {
  bedrock = await startFakeBedrockUpstream({ region: 'eu-west-3', apiKeys: ['bedrock-api-key-good'] });
  folder = mkdtempSync(join(tmpdir(), 'junction-bedrock-'));
  const config = join(folder, 'junction.yaml');
  writeFileSync(
    config,
    `
models:
  team/claude:
    capabilities: [chat, tools, vision]
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: bedrock, model: "${CLAUDE}", base_url: ${bedrock.url} }
  team/sonnet:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: bedrock, model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", base_url: ${bedrock.url} }
  team/nova:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: bedrock, model: "${NOVA}", base_url: ${bedrock.url} }
  team/busy:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: bedrock, name: bedrock-busy, model: "anthropic.claude-fail-429-v1:0", base_url: ${bedrock.url}, priority: 0 }
      - { provider: bedrock, name: bedrock-spare, model: "anthropic.claude-spare-v1:0", base_url: ${bedrock.url}, priority: 1 }
  team/keyed:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: bedrock, model: "anthropic.claude-keyed-v1:0", base_url: ${bedrock.url}, api_key_env: TEST_BEDROCK_KEY }
  team/wrong-key:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: bedrock, model: "anthropic.claude-refused-v1:0", base_url: ${bedrock.url}, api_key_env: TEST_BEDROCK_WRONG_KEY }
`,
  );
  mkdirSync(join(folder, 'agents'));
  cpSync(join(import.meta.dirname, '../fixtures/agents-e2e/tools'), join(folder, 'tools'), { recursive: true });
  writeFileSync(join(folder, 'agents', 'bedrock-helper.yaml'), 'name: Bedrock helper\nmodel: team/claude\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_steps: 4\n');
  const env = {
    JUNCTION_CONFIG: config,
    JUNCTION_AGENTS_DIR: join(folder, 'agents'),
    JUNCTION_TOOLS_DIR: join(folder, 'tools'),
    AWS_ACCESS_KEY_ID: FAKE_BEDROCK_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_BEDROCK_CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: FAKE_BEDROCK_CREDENTIALS.sessionToken,
    AWS_REGION: 'eu-west-3',
    // The bedrock provider itself (Bedrock's model ids in the catalog): AWS credentials plus BEDROCK_REGION.
    BEDROCK_REGION: 'eu-west-3',
    BEDROCK_BASE_URL: bedrock.url,
    TEST_BEDROCK_KEY: 'bedrock-api-key-good',
    TEST_BEDROCK_WRONG_KEY: 'bedrock-api-key-revoked',
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
  await bedrock?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const lastRequest = () => {
  const request = bedrock.requests.at(-1);
  if (!request) throw new Error('Bedrock received nothing');
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

describe('/v1/chat/completions through the openai SDK', () => {
  it('answers from Converse with a verified signature, names bedrock, and bills the usage row', async () => {
    const before = (await usageRows('team/claude')).length;
    const { data, response } = await openai.chat.completions
      .create({
        model: 'team/claude',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hello from bedrock' },
        ],
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('hello from bedrock');
    expect(data.choices[0]?.finish_reason).toBe('stop');
    expect(response.headers.get('x-junction-provider')).toBe('bedrock');
    const request = lastRequest();
    expect(request).toMatchObject({ operation: 'converse', modelId: CLAUDE, auth: 'sigv4', path: '/model/anthropic.claude-test-tool-v1%3A0/converse' });
    expect(request.headers['x-amz-security-token']).toBe(FAKE_BEDROCK_CREDENTIALS.sessionToken);
    expect(request.body).toMatchObject({ system: [{ text: 'be brief' }], messages: [{ role: 'user', content: [{ text: 'hello from bedrock' }] }] });
    const rows = await usageRows('team/claude');
    expect(rows).toHaveLength(before + 1);
    const row = rows.at(-1);
    expect(row).toMatchObject({ provider: 'bedrock', upstream_model: CLAUDE, input_tokens: data.usage?.prompt_tokens, output_tokens: data.usage?.completion_tokens, streamed: false });
    expect(Number(row?.cost_micros)).toBe((row?.input_tokens ?? 0) * 10 + (row?.output_tokens ?? 0) * 20);
  });

  it('streams ConverseStream frames as chunks, with usage at the end', async () => {
    const stream = await openai.chat.completions.create({
      model: 'team/claude',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream these bedrock words' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('stream these bedrock words');
    expect(lastRequest()).toMatchObject({ operation: 'converse-stream', auth: 'sigv4' });
    expect(usage?.completion_tokens).toBe(4);
    const row = (await usageRows('team/claude')).at(-1);
    expect(row).toMatchObject({ provider: 'bedrock', streamed: true, output_tokens: 4, input_tokens: usage?.prompt_tokens });
  });

  it('round-trips a tool call, streamed and not', async () => {
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'weather in Paris?' };
    const first = await openai.chat.completions.create({ model: 'team/claude', tools: [WEATHER], messages: [question] });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    if (call?.type !== 'function') throw new Error('no function call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'weather in Paris?' });
    expect(lastRequest().body).toMatchObject({ toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: WEATHER.function.parameters } } }] } });

    const second = await openai.chat.completions.create({
      model: 'team/claude',
      tools: [WEATHER],
      messages: [question, first.choices[0]?.message as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: 'sunny, 24 C' }],
    });
    expect(second.choices[0]?.message.content).toBe('The tool said: sunny, 24 C');
    expect(lastRequest().body['messages']).toEqual([
      { role: 'user', content: [{ text: 'weather in Paris?' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: call.id, name: 'get_weather', input: { city: 'weather in Paris?' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: call.id, content: [{ text: 'sunny, 24 C' }] } }] },
    ]);

    const stream = await openai.chat.completions.create({ model: 'team/claude', stream: true, tools: [WEATHER], messages: [question] });
    let name = '';
    let args = '';
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += delta.function?.name ?? '';
        args += delta.function?.arguments ?? '';
      }
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'weather in Paris?' });
  });

  it("bills a Bedrock deployment at Bedrock's published price for the model it calls", async () => {
    const answer = await openai.chat.completions.create({ model: 'team/nova', messages: [{ role: 'user', content: 'price me on nova' }] });
    expect(answer.choices[0]?.message.content).toBe('price me on nova');
    const row = (await usageRows('team/nova')).at(-1);
    const input = row?.input_tokens ?? 0;
    const output = row?.output_tokens ?? 0;
    // amazon.nova-pro-v1:0: $0.80 and $3.20 per million tokens, not the config's $10 and $20.
    expect(Number(row?.cost_micros)).toBe(Math.ceil((input * 800_000 + output * 3_200_000) / 1_000_000));
    expect(row?.provider).toBe('bedrock');
  });
});

describe('/v1/messages through the @anthropic-ai/sdk', () => {
  const lookup: Anthropic.Tool = { name: 'lookup_order', description: 'Find an order', input_schema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } };

  it('answers and streams text', async () => {
    const message = await anthropic.messages.create({ model: 'team/claude', max_tokens: 100, messages: [{ role: 'user', content: 'hello messages' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'hello messages' });
    expect(message.stop_reason).toBe('end_turn');
    expect(lastRequest().body).toMatchObject({ inferenceConfig: { maxTokens: 100 } });

    const stream = anthropic.messages.stream({ model: 'team/claude', max_tokens: 100, messages: [{ role: 'user', content: 'stream messages words' }] });
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe('stream messages words');
    expect(final.usage.output_tokens).toBe(3);
  });

  it("marks cache_control as a cache point, and prices cache reads at Bedrock's cached rate", async () => {
    const message = await anthropic.messages.create({
      model: 'team/sonnet',
      max_tokens: 100,
      system: [{ type: 'text', text: 'A long shared preamble worth caching across calls.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'cached hello' }],
    });
    expect(lastRequest().body['system']).toEqual([{ text: 'A long shared preamble worth caching across calls.' }, { cachePoint: { type: 'default' } }]);
    const cached = message.usage.cache_read_input_tokens ?? 0;
    expect(cached).toBeGreaterThan(0);
    const row = (await usageRows('team/sonnet')).at(-1);
    const input = row?.input_tokens ?? 0;
    expect(input).toBe(message.usage.input_tokens + cached);
    // us.anthropic.claude-sonnet-4-5: $3.30 per million input, $0.33 cached, $16.50 output.
    expect(Number(row?.cost_micros)).toBe(Math.ceil(((input - cached) * 3_300_000 + cached * 330_000 + (row?.output_tokens ?? 0) * 16_500_000) / 1_000_000));
  });

  it('round-trips a tool_use, its input streamed as input_json_delta', async () => {
    const question: Anthropic.MessageParam = { role: 'user', content: 'Where is order 42?' };
    const first = await anthropic.messages.create({ model: 'team/claude', max_tokens: 200, tools: [lookup], messages: [question] });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use');
    if (use?.type !== 'tool_use') throw new Error('no tool_use block');
    const second = await anthropic.messages.create({
      model: 'team/claude',
      max_tokens: 200,
      tools: [lookup],
      messages: [question, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'shipped yesterday' }] }],
    });
    expect(second.content.find((block) => block.type === 'text')).toMatchObject({ text: 'The tool said: shipped yesterday' });

    const deltas: string[] = [];
    const stream = anthropic.messages.stream({ model: 'team/claude', max_tokens: 200, tools: [lookup], messages: [question] });
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const final = await stream.finalMessage();
    expect(deltas).toContain('input_json_delta');
    expect(final.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'lookup_order', input: { order_id: 'Where is order 42?' } });
  });
});

describe('/v1beta through @google/genai', () => {
  const functionDeclarations = [{ name: 'lookup_order', description: 'Find an order', parametersJsonSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } }];

  it('generates, streams and round-trips a function call', async () => {
    const response = await google.models.generateContent({ model: 'team/claude', contents: 'hello gemini front' });
    expect(response.text).toBe('hello gemini front');
    let text = '';
    for await (const chunk of await google.models.generateContentStream({ model: 'team/claude', contents: 'stream gemini words' })) text += chunk.text ?? '';
    expect(text).toBe('stream gemini words');

    const question: Content = { role: 'user', parts: [{ text: 'Where is order 42?' }] };
    const config = { tools: [{ functionDeclarations }] };
    const first = await google.models.generateContent({ model: 'team/claude', contents: [question], config });
    const call = first.functionCalls?.[0];
    const modelTurn = first.candidates?.[0]?.content;
    if (!call || !modelTurn) throw new Error('no function call');
    expect(call.name).toBe('lookup_order');
    const answer: Content = { role: 'user', parts: [{ functionResponse: { id: call.id, name: 'lookup_order', response: { result: 'shipped yesterday' } } }] };
    const second = await google.models.generateContent({ model: 'team/claude', contents: [question, modelTurn, answer], config });
    expect(second.text).toContain('shipped yesterday');
  });
});

describe('counting tokens with Bedrock CountTokens', () => {
  it('counts a Converse request through the @anthropic-ai/sdk client, signed like a call', async () => {
    const counted = await anthropic.messages.countTokens({ model: 'team/claude', system: 'be brief', messages: [{ role: 'user', content: 'count these words' }] });
    // The fake counts ceil(characters / 4) of system and messages: 8 + 17 characters.
    expect(counted).toEqual({ input_tokens: 7 });
    const request = lastRequest();
    expect(request).toMatchObject({ operation: 'count-tokens', modelId: CLAUDE, auth: 'sigv4' });
    expect(request.body).toEqual({ input: { converse: { system: [{ text: 'be brief' }], messages: [{ role: 'user', content: [{ text: 'count these words' }] }] } } });
  });

  it("counts an inference profile's tokens on its bare model id, through @google/genai", async () => {
    expect((await google.models.countTokens({ model: 'team/sonnet', contents: 'twelve chars' })).totalTokens).toBe(3);
    expect(lastRequest()).toMatchObject({ operation: 'count-tokens', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' });
  });

  it('counts locally for a model Bedrock will not count, as for any model without a counting endpoint', async () => {
    const counted = await anthropic.messages.countTokens({ model: 'team/nova', messages: [{ role: 'user', content: 'twelve chars' }] });
    expect(lastRequest()).toMatchObject({ operation: 'count-tokens', modelId: NOVA });
    // o200k_base: 3 tokens of text, 3 for the message's framing, 3 priming the reply.
    expect(counted).toEqual({ input_tokens: 9 });
  });
});

describe('the bedrock provider', () => {
  it("serves Bedrock's own model ids, colon included, on the OpenAI and Gemini formats", async () => {
    const { data, response } = await openai.chat.completions.create({ model: `bedrock/${NOVA}`, messages: [{ role: 'user', content: 'straight to nova' }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe('straight to nova');
    expect(response.headers.get('x-junction-provider')).toBe('bedrock');
    expect(lastRequest()).toMatchObject({ modelId: NOVA, auth: 'sigv4' });
    const listed = (await openai.models.list()).data.map((model) => model.id);
    expect(listed).toContain(`bedrock/${NOVA}`);
    const gemini = await google.models.generateContent({ model: `bedrock/${NOVA}`, contents: 'nova through gemini' });
    expect(gemini.text).toBe('nova through gemini');
    const row = (await usageRows(`bedrock/${NOVA}`)).at(-1);
    expect(row).toMatchObject({ provider: 'bedrock', upstream_model: NOVA });
    expect(Number(row?.cost_micros)).toBe(Math.ceil(((row?.input_tokens ?? 0) * 800_000 + (row?.output_tokens ?? 0) * 3_200_000) / 1_000_000));
  });
});

describe('inside an agent', () => {
  it('runs the tool loop on a Bedrock model through the same pipeline, each step billed to bedrock', async () => {
    const agents = new OpenAI({ apiKey: await t.key('agent'), baseURL: `${baseUrl}/agents/v1`, maxRetries: 0 });
    const completion = await agents.chat.completions.create({ model: 'bedrock-helper', messages: [{ role: 'user', content: 'shout on bedrock' }] });
    expect(completion.choices[0]?.message.content).toBe('The tool said: SHOUT ON BEDROCK');
    await t.services.settlements.drain();
    const { rows } = await t.services.db.query<{ endpoint: string; provider: string | null }>("SELECT endpoint, provider FROM usage_log WHERE agent_id = 'bedrock-helper' ORDER BY created_at");
    expect(rows.map((row) => row.endpoint)).toEqual(['agents.chat.completions', 'agents.tool', 'agents.chat.completions']);
    expect(rows.filter((row) => row.endpoint === 'agents.chat.completions').map((row) => row.provider)).toEqual(['bedrock', 'bedrock']);
  });
});

describe('failures', () => {
  it('a throttled deployment is parked: the spare serves, and the next call skips the busy one', async () => {
    const first = await openai.chat.completions.create({ model: 'team/busy', messages: [{ role: 'user', content: 'busy one' }] }).withResponse();
    expect(first.data.choices[0]?.message.content).toBe('busy one');
    expect(first.response.headers.get('x-junction-provider')).toBe('bedrock-spare');
    expect(bedrock.attempts('anthropic.claude-fail-429-v1:0')).toBe(1);
    const second = await openai.chat.completions.create({ model: 'team/busy', messages: [{ role: 'user', content: 'busy two' }] }).withResponse();
    expect(second.response.headers.get('x-junction-provider')).toBe('bedrock-spare');
    // Parked for its wait: the throttled deployment got no second call.
    expect(bedrock.attempts('anthropic.claude-fail-429-v1:0')).toBe(1);
    const rows = await usageRows('team/busy');
    expect(rows.map((row) => row.provider)).toEqual(['bedrock-spare', 'bedrock-spare']);
  });

  it("a deployment's own Bedrock API key goes as the bearer, instead of a signature", async () => {
    const answer = await openai.chat.completions.create({ model: 'team/keyed', messages: [{ role: 'user', content: 'keyed call' }] });
    expect(answer.choices[0]?.message.content).toBe('keyed call');
    expect(lastRequest()).toMatchObject({ auth: 'bearer', modelId: 'anthropic.claude-keyed-v1:0' });
    expect(lastRequest().headers.authorization).toBe('Bearer bedrock-api-key-good');
  });

  it("a refused key is the gateway's upstream auth error, never the caller's 401", async () => {
    const refusedBefore = bedrock.refused.length;
    const error = await openai.chat.completions.create({ model: 'team/wrong-key', messages: [{ role: 'user', content: 'refused' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain("refused the gateway's credentials");
    expect(bedrock.refused.length).toBeGreaterThan(refusedBefore);
    expect(bedrock.refused.at(-1)?.reason).toBe('AccessDeniedException');
  });
});
