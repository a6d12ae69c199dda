import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropicUpstream } from '../../support/fake-anthropic-upstream.ts';
import { startFakeGeminiUpstream } from '../../support/fake-gemini-upstream.ts';
import type { FakeUpstream } from '../../support/recording-server.ts';
import { generateServiceAccountKey, startFakeVertex, type FakeVertex } from '../../support/fake-vertex-upstream.ts';
import { bearer } from '../../support/test-app.ts';
import { startRoutingApp, type RoutingApp } from './routing-app.ts';

/**
 * Vertex AI deployments through every front-end, against a fake Vertex that checks the
 * service account's signed token exchange and the bearer on every call, in front of the
 * Gemini and Anthropic fakes; a `google` deployment is the fallback of one model.
 */
const PROJECT = 'junction-vertex-test';
const GEMINI_PATH = `/v1/projects/${PROJECT}/locations/us-central1/publishers/google/models/gemini-2.5-flash-tool`;
const CLAUDE_PATH = `/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5-tool@20250929`;

const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

let gemini: FakeUpstream;
let anthropic: FakeUpstream;
let vertex: FakeVertex;
let gateway: RoutingApp;
let key: string;
let folder: string;

beforeAll(async () => {
  gemini = await startFakeGeminiUpstream();
  anthropic = await startFakeAnthropicUpstream();
  vertex = await startFakeVertex({ gemini, anthropic, project: PROJECT });
  folder = mkdtempSync(join(tmpdir(), 'junction-vertex-'));
  const credentials = join(folder, 'service-account.json');
  writeFileSync(credentials, vertex.serviceAccountJson());
  const yaml = `
models:
  google/gemini-2.5-flash:
    deployments:
      - { provider: vertex, model: gemini-2.5-flash-tool, region: us-central1 }
  anthropic/claude-sonnet-4-5:
    deployments:
      - { provider: vertex, model: claude-sonnet-4-5-tool@20250929, region: us-east5 }
  google/gemini-2.5-pro:
    deployments:
      - { provider: vertex, model: gemini-2.5-pro-echo, region: europe-west4, priority: 0 }
      - { provider: google, model: gemini-2.5-pro-echo, priority: 1 }
    routing: { strategy: ordered }
  team/revoked:
    prices: { input: 1, output: 2 }
    deployments:
      - { provider: vertex, model: gemini-revoked, api_key_env: VERTEX_REVOKED_KEY }
  team/unconfigured:
    prices: { input: 1, output: 2 }
    deployments:
      - { provider: vertex, model: gemini-nowhere, api_key_env: VERTEX_UNSET_KEY }
`;
  gateway = await startRoutingApp(yaml, {
    GOOGLE_APPLICATION_CREDENTIALS: credentials,
    VERTEX_BASE_URL: vertex.origin,
    GEMINI_API_KEY: 'gemini-fallback-key',
    GEMINI_BASE_URL: gemini.url,
    // A key of the same account that the token endpoint does not know: a revoked key.
    VERTEX_REVOKED_KEY: vertex.serviceAccountJson({ privateKey: generateServiceAccountKey().privateKey }),
  });
  key = await gateway.key('model');
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([vertex?.close(), gemini?.close(), anthropic?.close()]);
  if (folder) rmSync(folder, { recursive: true, force: true });
});

beforeEach(() => {
  vertex.failure = undefined;
});

const post = (url: string, payload: Record<string, unknown>) => gateway.app.inject({ method: 'POST', url, headers: bearer(key), payload });
const lastHit = () => vertex.hits.at(-1);

describe('Gemini on Vertex AI', () => {
  it('answers /v1/chat/completions at the project, location and publisher path with the bearer from the token exchange', async () => {
    const response = await post('/v1/chat/completions', { model: 'google/gemini-2.5-flash', messages: [{ role: 'user', content: 'hello vertex' }] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-junction-provider']).toBe('vertex');
    expect(response.json().choices[0].message.content).toBe('hello vertex');
    expect(lastHit()?.path).toBe(`${GEMINI_PATH}:generateContent`);
    expect(lastHit()?.headers.authorization).toBe(`Bearer ${vertex.issuedTokens[0]}`);
    expect(lastHit()?.headers['x-goog-api-key']).toBeUndefined();
    expect(lastHit()?.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'hello vertex' }] }] });
  });

  it('round-trips a tool call through /v1/chat/completions, the call streamed', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: WEATHER } }];
    const question = { role: 'user', content: 'Paris' };
    const streamed = await post('/v1/chat/completions', { model: 'google/gemini-2.5-flash', stream: true, messages: [question], tools });
    expect(streamed.statusCode, streamed.body).toBe(200);
    expect(lastHit()?.path).toBe(`${GEMINI_PATH}:streamGenerateContent?alt=sse`);
    const deltas: Array<{ id?: string; function: { name?: string; arguments?: string } }> = streamed.body
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)))
      .flatMap((chunk) => chunk.choices?.[0]?.delta?.tool_calls ?? []);
    const toolCall = { id: deltas[0]?.id, function: { name: deltas[0]?.function.name, arguments: deltas.map((delta) => delta.function.arguments ?? '').join('') } };
    expect(toolCall).toMatchObject({ function: { name: 'get_weather' } });
    expect(JSON.parse(toolCall.function.arguments)).toEqual({ city: 'Paris' });

    const answer = await post('/v1/chat/completions', {
      model: 'google/gemini-2.5-flash',
      messages: [
        question,
        { role: 'assistant', content: null, tool_calls: [{ id: toolCall.id, type: 'function', function: toolCall.function }] },
        { role: 'tool', tool_call_id: toolCall.id, content: 'sunny' },
      ],
      tools,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().choices[0].message.content).toContain('The tool said:');
    expect(answer.json().choices[0].message.content).toContain('sunny');
  });

  it('answers the Gemini front-end, whole and streamed', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hello v1beta' }] }] };
    const whole = await post('/v1beta/models/google/gemini-2.5-flash:generateContent', body);
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.headers['x-junction-provider']).toBe('vertex');
    expect(whole.json().candidates[0].content.parts[0].text).toBe('hello v1beta');
    const streamed = await post('/v1beta/models/google/gemini-2.5-flash:streamGenerateContent?alt=sse', body);
    expect(streamed.statusCode, streamed.body).toBe(200);
    expect(streamed.body).toContain('hello');
    expect(lastHit()?.path).toBe(`${GEMINI_PATH}:streamGenerateContent?alt=sse`);
  });
});

describe('Claude on Vertex AI', () => {
  const tools = [{ name: 'get_weather', description: 'Weather of a city', input_schema: WEATHER }];

  it('round-trips a tool call through /v1/messages, streamed, with the model in the path and Vertex anthropic_version in the body', async () => {
    const question = { role: 'user', content: 'Paris' };
    const streamed = await post('/v1/messages', { model: 'anthropic/claude-sonnet-4-5', max_tokens: 200, stream: true, messages: [question], tools });
    expect(streamed.statusCode, streamed.body).toBe(200);
    expect(streamed.headers['x-junction-provider']).toBe('vertex');
    expect(streamed.body).toContain('"input_json_delta"');
    const hit = lastHit();
    expect(hit?.path).toBe(`${CLAUDE_PATH}:streamRawPredict`);
    expect(hit?.headers.authorization).toBe(`Bearer ${vertex.issuedTokens[0]}`);
    expect(hit?.headers['x-api-key']).toBeUndefined();
    expect(hit?.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true, max_tokens: 200 });
    expect(hit?.body).not.toHaveProperty('model');

    const first = await post('/v1/messages', { model: 'anthropic/claude-sonnet-4-5', max_tokens: 200, messages: [question], tools });
    expect(first.statusCode, first.body).toBe(200);
    expect(lastHit()?.path).toBe(`${CLAUDE_PATH}:rawPredict`);
    const use = first.json().content.find((block: { type: string }) => block.type === 'tool_use');
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
    const answer = await post('/v1/messages', {
      model: 'anthropic/claude-sonnet-4-5',
      max_tokens: 200,
      messages: [question, { role: 'assistant', content: [use] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] }],
      tools,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().content[0].text).toBe('The tool said: sunny');
  });

  it('answers /v1/chat/completions and /v1beta too, and bills the published Claude prices under the vertex label', async () => {
    const chat = await post('/v1/chat/completions', { model: 'anthropic/claude-sonnet-4-5', messages: [{ role: 'user', content: 'hello claude on vertex' }] });
    expect(chat.statusCode, chat.body).toBe(200);
    expect(chat.json().choices[0].message.content).toBe('hello claude on vertex');
    expect(chat.json().usage.cost).toBeGreaterThan(0);
    const native = await post('/v1beta/models/anthropic/claude-sonnet-4-5:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'hello from gemini format' }] }] });
    expect(native.statusCode, native.body).toBe(200);
    expect(native.headers['x-junction-provider']).toBe('vertex');
    expect(native.body).toContain('hello');
    expect(lastHit()?.path).toBe(`${CLAUDE_PATH}:streamRawPredict`);
    await gateway.settle();
    const { rows } = await gateway.services.db.query<{ provider: string; upstream_model: string; cost_micros: number; input_tokens: number }>(
      "SELECT provider, upstream_model, cost_micros, input_tokens FROM usage_log WHERE model = 'anthropic/claude-sonnet-4-5' ORDER BY created_at",
    );
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) expect(row).toMatchObject({ provider: 'vertex', upstream_model: 'claude-sonnet-4-5-tool@20250929' });
    expect(rows.at(-1)?.cost_micros).toBeGreaterThan(0);
  });
});

describe('the service account', () => {
  it('exchanged its signed assertion once, and every call carried that token', async () => {
    const calls = vertex.hits.filter((hit) => hit.path.startsWith(`/v1/projects/${PROJECT}/`));
    expect(calls.length).toBeGreaterThan(5);
    expect(vertex.tokenRequests).toBe(1);
    for (const hit of calls) expect(hit.headers.authorization).toBe(`Bearer ${vertex.issuedTokens[0]}`);
  });

  it('a token Vertex refuses before its expiry is exchanged anew: the retry succeeds with the new one', async () => {
    vertex.revokeTokens();
    const response = await post('/v1/chat/completions', { model: 'google/gemini-2.5-flash', messages: [{ role: 'user', content: 'after rotation' }] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().choices[0].message.content).toBe('after rotation');
    expect(vertex.tokenRequests).toBe(2);
    expect(vertex.hits.slice(-2).map((hit) => hit.headers.authorization)).toEqual([`Bearer ${vertex.issuedTokens[0]}`, `Bearer ${vertex.issuedTokens[1]}`]);
  });

  it('a key the token endpoint refuses is the deployment failing its credentials: a 502 that says so, no model call', async () => {
    const callsBefore = vertex.hits.length;
    const response = await post('/v1/chat/completions', { model: 'team/revoked', messages: [{ role: 'user', content: 'hello' }] });
    expect(response.statusCode, response.body).toBe(502);
    expect(response.json().error.message).toContain("refused the gateway's credentials");
    expect(vertex.refusedTokenRequests).toBeGreaterThan(0);
    expect(vertex.hits.length).toBe(callsBefore);
  });

  it('a deployment whose key variable is unset is skipped, named in the warnings', async () => {
    const response = await post('/v1/chat/completions', { model: 'team/unconfigured', messages: [{ role: 'user', content: 'hello' }] });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.message).toContain('No deployment of team/unconfigured');
    expect(gateway.services.warnings).toContain('provider team/unconfigured@vertex skipped: environment variable VERTEX_UNSET_KEY is not set');
  });
});

describe('a failing Vertex deployment', () => {
  const ask = () => post('/v1/chat/completions', { model: 'google/gemini-2.5-pro', messages: [{ role: 'user', content: 'hello pro' }] });
  const proHits = () => vertex.hits.filter((hit) => hit.path.includes('/models/gemini-2.5-pro-echo:')).length;

  it('falls back to the google deployment of the same model on a 5xx and on refused credentials', async () => {
    for (const status of [503, 403]) {
      vertex.failure = { status };
      const geminiBefore = gemini.requests.length;
      const response = await ask();
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['x-junction-provider']).toBe('google');
      expect(response.json().choices[0].message.content).toBe('hello pro');
      expect(gemini.requests.at(-1)?.headers['x-goog-api-key']).toBe('gemini-fallback-key');
      expect(gemini.requests.length).toBe(geminiBefore + 1);
    }
    vertex.failure = undefined;
    gateway.advance(120_000);
    const healed = await ask();
    expect(healed.headers['x-junction-provider']).toBe('vertex');
  });

  it('a 429 with Retry-After parks the Vertex deployment: the next calls skip it until the time is up', async () => {
    vertex.failure = { status: 429, headers: { 'retry-after': '30' } };
    const first = await ask();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['x-junction-provider']).toBe('google');
    const parkedAt = proHits();
    vertex.failure = undefined;
    const second = await ask();
    expect(second.headers['x-junction-provider']).toBe('google');
    expect(proHits()).toBe(parkedAt);
    gateway.advance(31_000);
    const third = await ask();
    expect(third.headers['x-junction-provider']).toBe('vertex');
    expect(proHits()).toBe(parkedAt + 1);
  });

  it('counts tokens where calls go: past the Vertex deployment a 429 parked, back to it once the time is up', async () => {
    vertex.failure = { status: 429, headers: { 'retry-after': '30' } };
    expect((await ask()).headers['x-junction-provider']).toBe('google');
    vertex.failure = undefined;
    const parkedAt = proHits();
    const count = () => post('/v1/messages/count_tokens', { model: 'google/gemini-2.5-pro', messages: [{ role: 'user', content: 'twelve chars' }] });
    const parked = await count();
    expect(parked.statusCode, parked.body).toBe(200);
    expect(parked.json()).toEqual({ input_tokens: 3 });
    expect(gemini.requests.at(-1)?.path).toContain('/models/gemini-2.5-pro-echo:countTokens');
    expect(proHits()).toBe(parkedAt);
    gateway.advance(31_000);
    expect((await count()).json()).toEqual({ input_tokens: 3 });
    expect(vertex.hits.at(-1)?.path).toBe(`/v1/projects/${PROJECT}/locations/europe-west4/publishers/google/models/gemini-2.5-pro-echo:countTokens`);
  });

  it("a 400 is the request's fault: passed on, no fallback", async () => {
    vertex.failure = { status: 400 };
    const geminiBefore = gemini.requests.length;
    const response = await ask();
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('INVALID_ARGUMENT');
    expect(gemini.requests.length).toBe(geminiBefore);
  });
});
