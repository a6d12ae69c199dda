import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { type Content, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startFakeAnthropicUpstream } from '../support/fake-anthropic-upstream.ts';
import { startFakeGeminiUpstream } from '../support/fake-gemini-upstream.ts';
import { startFakeVertex, type FakeVertex } from '../support/fake-vertex-upstream.ts';
import type { FakeUpstream } from '../support/recording-server.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Gemini and Claude on Google Vertex AI, driven by the official openai, @anthropic-ai/sdk
 * and @google/genai clients against the gateway on a port, and by an agent: the fake
 * Vertex checks the service account's token exchange and the bearer of every call.
 */
const PROJECT = 'junction-e2e';
const GEMINI = 'google/gemini-2.5-flash';
const CLAUDE = 'anthropic/claude-sonnet-4-5';

const folder = mkdtempSync(join(tmpdir(), 'junction-vertex-e2e-'));
let gemini: FakeUpstream;
let anthropicUpstream: FakeUpstream;
let vertex: FakeVertex;
let app: TestApp;
let baseUrl: string;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;
let agents: OpenAI;

beforeAll(async () => {
  gemini = await startFakeGeminiUpstream();
  anthropicUpstream = await startFakeAnthropicUpstream();
  vertex = await startFakeVertex({ gemini, anthropic: anthropicUpstream, project: PROJECT });
  const configPath = join(folder, 'junction.yaml');
  writeFileSync(
    configPath,
    `
models:
  ${GEMINI}:
    deployments:
      - { provider: vertex, model: gemini-2.5-flash-tool }
  ${CLAUDE}:
    deployments:
      - { provider: vertex, model: claude-sonnet-4-5-tool@20250929, region: us-east5 }
`,
  );
  mkdirSync(join(folder, 'agents'));
  writeFileSync(join(folder, 'agents', 'vertex-helper.yaml'), `name: Vertex helper\nmodel: ${CLAUDE}\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_steps: 4\n`);
  cpSync(join(import.meta.dirname, '../fixtures/agents-e2e/tools'), join(folder, 'tools'), { recursive: true });
  const env = {
    JUNCTION_CONFIG: configPath,
    JUNCTION_AGENTS_DIR: join(folder, 'agents'),
    JUNCTION_TOOLS_DIR: join(folder, 'tools'),
    VERTEX_PROJECT: PROJECT,
    VERTEX_LOCATION: 'us-central1',
    VERTEX_BASE_URL: vertex.origin,
    // The key as a JSON text in a variable a deployment could name; here the default file.
    GOOGLE_APPLICATION_CREDENTIALS: join(folder, 'service-account.json'),
  };
  writeFileSync(env.GOOGLE_APPLICATION_CREDENTIALS, vertex.serviceAccountJson({ projectId: 'some-other-project' }));
  app = await startTestApp(env, { env, retry: { retries: 2, baseDelayMs: 5, maxRetryAfterMs: 2_000 } });
  baseUrl = await app.app.listen({ host: '127.0.0.1', port: 0 });
  await runAdminCommand(app.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  const modelKey = await app.key('model');
  openai = new OpenAI({ apiKey: modelKey, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: modelKey, baseURL: baseUrl, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: modelKey, httpOptions: { baseUrl } });
  agents = new OpenAI({ apiKey: await app.key('agent'), baseURL: `${baseUrl}/agents/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await app?.close();
  await Promise.all([vertex?.close(), gemini?.close(), anthropicUpstream?.close()]);
  rmSync(folder, { recursive: true, force: true });
});

const lookupOrder = { type: 'object' as const, properties: { order_id: { type: 'string' } }, required: ['order_id'] };

describe('the openai client', () => {
  it('chats with Gemini on Vertex, the serving provider in x-junction-provider, usage priced', async () => {
    const { data, response } = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: 'user', content: 'hello vertex gemini' }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe('hello vertex gemini');
    expect(response.headers.get('x-junction-provider')).toBe('vertex');
    expect((data.usage as OpenAI.CompletionUsage & { cost: number }).cost).toBeGreaterThan(0);
    expect(vertex.hits.at(-1)?.path).toBe(`/v1/projects/${PROJECT}/locations/us-central1/publishers/google/models/gemini-2.5-flash-tool:generateContent`);
  });

  it('round-trips a tool call with Claude on Vertex, the call streamed', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup_order', description: 'Find an order', parameters: lookupOrder } }];
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'order 42' };
    const stream = openai.chat.completions.stream({ model: CLAUDE, messages: [question], tools });
    const first = await stream.finalChatCompletion();
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('no function call');
    expect(call.function.name).toBe('lookup_order');
    expect(JSON.parse(call.function.arguments)).toEqual({ order_id: 'order 42' });
    expect(vertex.hits.at(-1)?.path).toBe(`/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5-tool@20250929:streamRawPredict`);
    const second = await openai.chat.completions.create({
      model: CLAUDE,
      tools,
      messages: [question, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'shipped yesterday' }],
    });
    expect(second.choices[0]?.message.content).toBe('The tool said: shipped yesterday');
  });
});

describe('the @anthropic-ai/sdk client', () => {
  const tool: Anthropic.Tool = { name: 'lookup_order', description: 'Find an order', input_schema: lookupOrder };

  it('streams Claude on Vertex and round-trips a tool call', async () => {
    const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 200, messages: [{ role: 'user', content: 'stream from vertex' }] });
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe('stream from vertex');
    expect(final.usage.output_tokens).toBe(3);

    const question: Anthropic.MessageParam = { role: 'user', content: 'order 7' };
    const first = await anthropic.messages.create({ model: CLAUDE, max_tokens: 200, tools: [tool], messages: [question] });
    const use = first.content.find((block) => block.type === 'tool_use');
    if (use?.type !== 'tool_use') throw new Error('no tool_use block');
    const second = await anthropic.messages.create({
      model: CLAUDE,
      max_tokens: 200,
      tools: [tool],
      messages: [question, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'in transit' }] }],
    });
    expect(second.content[0]?.type === 'text' && second.content[0].text).toBe('The tool said: in transit');
    expect(vertex.hits.at(-1)?.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
  });

  it('reaches Gemini on Vertex in Anthropic format, streamed with a tool', async () => {
    const stream = anthropic.messages.stream({ model: GEMINI, max_tokens: 200, tools: [tool], messages: [{ role: 'user', content: 'order 9' }] });
    const final = await stream.finalMessage();
    expect(final.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'lookup_order', input: { order_id: 'order 9' } });
    expect(vertex.hits.at(-1)?.path).toContain('/publishers/google/models/gemini-2.5-flash-tool:streamGenerateContent?alt=sse');
  });
});

describe('the @google/genai client', () => {
  const functionDeclarations = [{ name: 'lookup_order', description: 'Find an order', parametersJsonSchema: lookupOrder }];

  it('generates and streams with Gemini on Vertex, and round-trips a function call', async () => {
    const whole = await google.models.generateContent({ model: GEMINI, contents: 'hello genai' });
    expect(whole.text).toBe('hello genai');
    let streamed = '';
    for await (const chunk of await google.models.generateContentStream({ model: GEMINI, contents: 'stream genai words' })) streamed += chunk.text ?? '';
    expect(streamed).toBe('stream genai words');

    const question: Content = { role: 'user', parts: [{ text: 'order 5' }] };
    const config = { tools: [{ functionDeclarations }] };
    const first = await google.models.generateContent({ model: GEMINI, contents: [question], config });
    const call = first.functionCalls?.[0];
    const modelTurn = first.candidates?.[0]?.content;
    if (!call || !modelTurn) throw new Error('no function call');
    expect(call.name).toBe('lookup_order');
    const answer: Content = { role: 'user', parts: [{ functionResponse: { id: call.id, name: 'lookup_order', response: { result: 'delivered' } } }] };
    const second = await google.models.generateContent({ model: GEMINI, contents: [question, modelTurn, answer], config });
    expect(second.text).toContain('delivered');
  });

  it('reaches Claude on Vertex in Gemini format, streamed', async () => {
    let streamed = '';
    for await (const chunk of await google.models.generateContentStream({ model: CLAUDE, contents: 'claude through genai' })) streamed += chunk.text ?? '';
    expect(streamed).toBe('claude through genai');
    expect(vertex.hits.at(-1)?.path).toContain('/publishers/anthropic/models/claude-sonnet-4-5-tool@20250929:streamRawPredict');
  });
});

describe('counting tokens on Vertex', () => {
  it("counts Claude's tokens at Vertex's count-tokens endpoint through the @anthropic-ai/sdk client, the model in the body", async () => {
    const tool: Anthropic.Tool = { name: 'lookup_order', description: 'Find an order', input_schema: lookupOrder };
    const counted = await anthropic.messages.countTokens({ model: CLAUDE, system: 'be brief', tools: [tool], messages: [{ role: 'user', content: 'count these words' }] });
    // The Anthropic fake counts ceil(characters / 4) of system and messages: 8 + 17 characters.
    expect(counted).toEqual({ input_tokens: 7 });
    const hit = vertex.hits.at(-1);
    expect(hit?.path).toBe(`/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict`);
    expect(hit?.body).toMatchObject({
      anthropic_version: 'vertex-2023-10-16',
      model: 'claude-sonnet-4-5-tool@20250929',
      system: [{ type: 'text', text: 'be brief' }],
      tools: [{ name: 'lookup_order' }],
    });
    expect(hit?.body).not.toHaveProperty('max_tokens');
  });

  it("counts Gemini's tokens with Vertex's :countTokens through the @google/genai client, the body Vertex's own", async () => {
    const counted = await google.models.countTokens({ model: GEMINI, contents: 'sixteen letters!' });
    expect(counted.totalTokens).toBe(4);
    const hit = vertex.hits.at(-1);
    expect(hit?.path).toBe(`/v1/projects/${PROJECT}/locations/us-central1/publishers/google/models/gemini-2.5-flash-tool:countTokens`);
    expect(hit?.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'sixteen letters!' }] }] });
  });

  it('counts across formats: Claude on Vertex through :countTokens, Gemini on Vertex through count_tokens', async () => {
    expect((await google.models.countTokens({ model: CLAUDE, contents: 'twelve chars' })).totalTokens).toBe(3);
    expect(vertex.hits.at(-1)?.path).toContain('/publishers/anthropic/models/count-tokens:rawPredict');
    // The system prompt goes as Vertex's systemInstruction, counted with the contents: 4 + 12 characters.
    expect(await anthropic.messages.countTokens({ model: GEMINI, system: 'abcd', messages: [{ role: 'user', content: 'twelve chars' }] })).toEqual({ input_tokens: 4 });
    expect(vertex.hits.at(-1)?.path).toContain('/publishers/google/models/gemini-2.5-flash-tool:countTokens');
    expect(vertex.hits.at(-1)?.body).toMatchObject({ systemInstruction: { parts: [{ text: 'abcd' }] } });
  });
});

describe('an agent on Claude on Vertex', () => {
  it('runs its tool loop through Vertex, each model step a usage row of provider vertex', async () => {
    const completion = await agents.chat.completions.create({ model: 'vertex-helper', messages: [{ role: 'user', content: 'shout it' }] });
    expect(completion.choices[0]?.message.content).toBe('The tool said: SHOUT IT');
    await app.services.settlements.drain();
    const { rows } = await app.services.db.query<{ endpoint: string; provider: string | null; upstream_model: string | null; agent_run_id: string }>(
      "SELECT endpoint, provider, upstream_model, agent_run_id FROM usage_log WHERE agent_id = 'vertex-helper' ORDER BY created_at",
    );
    const steps = rows.filter((row) => row.endpoint === 'agents.chat.completions');
    expect(steps).toHaveLength(2);
    for (const step of steps) expect(step).toMatchObject({ provider: 'vertex', upstream_model: 'claude-sonnet-4-5-tool@20250929' });
  });
});

describe('the service account', () => {
  it('exchanged one signed assertion for a token every call reused, on the project VERTEX_PROJECT names', () => {
    expect(vertex.tokenRequests).toBe(1);
    expect(vertex.refusedTokenRequests).toBe(0);
    expect(vertex.hits.length).toBeGreaterThan(10);
    for (const hit of vertex.hits) {
      expect(hit.headers.authorization).toBe(`Bearer ${vertex.issuedTokens[0]}`);
      expect(hit.path.startsWith(`/v1/projects/${PROJECT}/`)).toBe(true);
    }
  });
});
