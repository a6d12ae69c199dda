import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';

/** What drop-in clients rely on beyond the happy path, over real HTTP on the engine under test. */
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await gateway.key('model');
});
afterAll(async () => gateway.close());

const get = (path: string, headers: Record<string, string>) => fetch(`${gateway.baseUrl}${path}`, { headers });
const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
  fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers }, body: JSON.stringify(body) });

describe('GET /v1/models', () => {
  it('answers in Gemini shape to a caller using x-goog-api-key or ?key=, in OpenAI shape otherwise', async () => {
    const gemini = (await (await get(`/v1/models?key=${key}&pageSize=2`, {})).json()) as { models: Array<{ name: string }>; nextPageToken?: string };
    expect(gemini.models.map((model) => model.name)).toEqual(gateway.services.catalog.models.slice(0, 2).map((model) => `models/${model.id}`));
    expect(gemini.nextPageToken).toBeDefined();
    const one = (await (await get('/v1/models/test-echo', { 'x-goog-api-key': key })).json()) as { name: string };
    expect(one.name).toBe('models/google/test-echo');
    const missing = await get('/v1/models/no-such-model', { 'x-goog-api-key': key });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    const openai = (await (await get('/v1/models', { authorization: `Bearer ${key}` })).json()) as { object: string };
    expect(openai.object).toBe('list');
  });

  it('describes a model by its bare provider name when one provider lists it', async () => {
    const bare = await get('/v1/models/test-reasoning', { authorization: `Bearer ${key}` });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { id: string }).id).toBe('openai/test-reasoning');
    // Three providers list test-echo: the bare name is ambiguous.
    expect((await get('/v1/models/test-echo', { authorization: `Bearer ${key}` })).status).toBe(404);
  });
});

describe('unknown fields on the native routes', () => {
  it('streamed calls name what they dropped in x-junction-dropped-params', async () => {
    const chat = await post('/v1/chat/completions', { model: 'google/test-echo', stream: true, messages: [{ role: 'user', content: 'hi', client_tag: 'x' }], new_option: 1 });
    expect(chat.headers.get('x-junction-dropped-params')).toBe('new_option, messages.0.client_tag');
    expect(await chat.text()).toContain('[DONE]');
    const messages = await post('/v1/messages', { model: 'anthropic/test-echo', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }], new_option: 1 }, { 'x-api-key': key });
    expect(messages.headers.get('x-junction-dropped-params')).toBeNull();
    await messages.text();
    expect(gateway.anthropic.requests.at(-1)?.body).toMatchObject({ new_option: 1 });
  });

  it('a message thread gets the refusal @anthropic-ai/sdk falls back on', async () => {
    const response = await post('/v1/messages', { model: 'anthropic/test-echo', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], thread: { type: 'create' } }, { 'x-api-key': key });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining('threads are not supported') as unknown,
        details: { error_code: 'thread_unsupported_request', unsupported: ['thread'] },
      },
    });
  });

  it('Gemini batch embeddings accept the bare model name in each request', async () => {
    const response = await post(
      '/v1beta/models/test-native-embed:batchEmbedContents',
      { requests: [{ model: 'models/test-native-embed', content: { parts: [{ text: 'a' }] } }] },
      { 'x-goog-api-key': key },
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { embeddings: unknown[] }).embeddings).toHaveLength(1);
  });
});

it('a model route refuses an agent key with "an agent key"', async () => {
  const agentKey = await gateway.key('agent');
  const response = await post('/v1/chat/completions', { model: 'openai/test-echo', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${agentKey}` });
  expect(response.status).toBe(403);
  expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/this is an agent key\.$/);
});
