import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { startSwitchableUpstream, type SwitchableUpstream } from '../../support/switchable-upstream.ts';
import { bearer } from '../../support/test-app.ts';
import { startRoutingApp, type RoutingApp } from './routing-app.ts';

/** Azure's path (`/openai/deployments/<deployment>/chat/completions`) onto the fake's OpenAI one. */
const AZURE_PATH = /^\/openai\/deployments\/[^/]+\/chat\/completions\?.*$/;
const toOpenAIPath = (path: string) => (AZURE_PATH.test(path) ? '/v1/chat/completions' : path);

const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

let fake: FakeOpenAIUpstream;
let azure: SwitchableUpstream;
let entra: SwitchableUpstream;
let groq: SwitchableUpstream;
let gateway: RoutingApp;
let key: string;

beforeAll(async () => {
  fake = await startFakeOpenAIUpstream();
  const origin = new URL(fake.url).origin;
  azure = await startSwitchableUpstream(origin, toOpenAIPath);
  entra = await startSwitchableUpstream(origin, toOpenAIPath);
  groq = await startSwitchableUpstream(origin, (path) => path.replace('/openai/v1/', '/v1/'));
  const yaml = `
providers:
  azure-eu:
    kind: azure
    base_url: ${azure.origin}
    api_key_env: TEST_AZURE_EU_KEY
    api_version: 2024-10-21
    models:
      - { name: gpt-4o, upstream_name: test-tool, capabilities: [chat, tools] }
  groq:
    base_url: ${groq.origin}/openai/v1
    models: [llama-test-echo]
models:
  together/test-echo: {}
  team/assistant:
    deployments:
      - { provider: azure, model: test-echo }
`;
  gateway = await startRoutingApp(yaml, {
    TEST_AZURE_EU_KEY: 'azure-eu-secret',
    GROQ_API_KEY: 'gsk-preset',
    TOGETHER_API_KEY: 'together-preset',
    TOGETHER_BASE_URL: `${groq.origin}/openai/v1`,
    AZURE_OPENAI_ENDPOINT: entra.origin,
    AZURE_OPENAI_AD_TOKEN: 'entra-token',
    AZURE_OPENAI_API_VERSION: '2025-01-01-preview',
  });
  key = await gateway.key('model');
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([azure?.close(), entra?.close(), groq?.close(), fake?.close()]);
});

const post = (url: string, payload: Record<string, unknown>) => gateway.app.inject({ method: 'POST', url, headers: bearer(key), payload });

describe('Azure OpenAI', () => {
  it('streams a tool call through /v1/chat/completions at the deployment URL with api-version and api-key', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'azure-eu/gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools: [WEATHER_TOOL],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-junction-provider']).toBe('azure-eu');
    expect(response.body).toContain('"tool_calls"');
    expect(response.body).toContain('get_weather');
    const hit = azure.hits.at(-1);
    const url = new URL(hit?.url ?? '', azure.origin);
    expect(url.pathname).toBe('/openai/deployments/test-tool/chat/completions');
    expect(url.searchParams.get('api-version')).toBe('2024-10-21');
    expect(hit?.headers['api-key']).toBe('azure-eu-secret');
    expect(hit?.headers.authorization).toBeUndefined();
    expect(hit?.body).toMatchObject({ stream: true, tools: [WEATHER_TOOL] });
  });

  it('answers /v1/messages (Anthropic format) with a tool_use block, streamed and not', async () => {
    const body = {
      model: 'azure-eu/gpt-4o',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools: [{ name: 'get_weather', description: 'Weather of a city', input_schema: WEATHER_TOOL.function.parameters }],
    };
    const whole = await post('/v1/messages', body);
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.json().content).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'tool_use', name: 'get_weather' })]));
    const streamed = await post('/v1/messages', { ...body, stream: true });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers['x-junction-provider']).toBe('azure-eu');
    expect(streamed.body).toContain('"tool_use"');
    expect(new URL(azure.hits.at(-1)?.url ?? '', azure.origin).pathname).toBe('/openai/deployments/test-tool/chat/completions');
  });

  it('from the environment, with an Entra token as the bearer, serves a deployment of another model id', async () => {
    const response = await post('/v1/chat/completions', { model: 'team/assistant', messages: [{ role: 'user', content: 'hello azure' }] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-junction-provider']).toBe('azure');
    expect(response.json().choices[0].message.content).toBe('hello azure');
    const hit = entra.hits.at(-1);
    const url = new URL(hit?.url ?? '', entra.origin);
    expect(url.pathname).toBe('/openai/deployments/test-echo/chat/completions');
    expect(url.searchParams.get('api-version')).toBe('2025-01-01-preview');
    expect(hit?.headers.authorization).toBe('Bearer entra-token');
    expect(hit?.headers['api-key']).toBeUndefined();
    await gateway.settle();
    const { rows } = await gateway.services.db.query<{ provider: string; upstream_model: string }>("SELECT provider, upstream_model FROM usage_log WHERE model = 'team/assistant'");
    expect(rows).toEqual([{ provider: 'azure', upstream_model: 'test-echo' }]);
  });
});

describe('the serving provider named on every front-end', () => {
  it('the Gemini format names it too', async () => {
    const response = await post('/v1beta/models/groq/llama-test-echo:generateContent', { contents: [{ role: 'user', parts: [{ text: 'hello gemini' }] }] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-junction-provider']).toBe('groq');
  });
});

describe('OpenAI-compatible presets', () => {
  it('groq needs only GROQ_API_KEY: its key goes as the bearer', async () => {
    const response = await post('/v1/chat/completions', { model: 'groq/llama-test-echo', messages: [{ role: 'user', content: 'hello groq' }] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-junction-provider']).toBe('groq');
    expect(groq.hits.at(-1)?.url).toBe('/openai/v1/chat/completions');
    expect(groq.hits.at(-1)?.headers.authorization).toBe('Bearer gsk-preset');
  });

  it('a hosted preset from its key variable alone, its base URL moved by <ID>_BASE_URL, serves the models the file lists', async () => {
    const response = await post('/v1/chat/completions', { model: 'together/test-echo', messages: [{ role: 'user', content: 'hello together' }] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().choices[0].message.content).toBe('hello together');
    expect(groq.hits.at(-1)?.headers.authorization).toBe('Bearer together-preset');
  });

  it('a preset whose key is unset serves nothing', async () => {
    const response = await post('/v1/chat/completions', { model: 'deepseek/test-echo', messages: [{ role: 'user', content: 'hello' }] });
    expect(response.statusCode).toBe(404);
  });
});
