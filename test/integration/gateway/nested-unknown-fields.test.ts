import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';

/**
 * The tolerant reader for fields nested inside known objects (a new field of a content part
 * or a tool definition): an upstream of the route's own format receives them where the
 * caller put them; a translation drops them and names each by its path.
 */
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await gateway.key('model');
});
afterAll(async () => gateway.close());

const post = (path: string, body: unknown) =>
  fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
const dropped = (response: Response) => response.headers.get('x-junction-dropped-params');

describe('nested unknown fields', () => {
  const chat = {
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'nested hello', text_hint: 'kept' },
          { type: 'text', text: 'twice' },
        ],
        speaker_tag: 'u1',
      },
    ],
    tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' }, new_function_flag: true }, defer_loading: true }],
  };

  it('OpenAI format to an OpenAI upstream: forwarded in place, nothing named', async () => {
    const response = await post('/v1/chat/completions', { model: 'openai/test-echo', ...chat });
    expect(response.status).toBe(200);
    await response.json();
    const sent = gateway.openai.requests.at(-1)?.body as { messages: Array<Record<string, unknown>>; tools: Array<Record<string, unknown>> };
    expect(sent.messages[0]).toMatchObject({ role: 'user', speaker_tag: 'u1' });
    expect(sent.tools[0]).toMatchObject({ type: 'function', defer_loading: true, function: { name: 'lookup', new_function_flag: true } });
    expect(sent.messages[0]?.content).toEqual([
      { type: 'text', text: 'nested hello', text_hint: 'kept' },
      { type: 'text', text: 'twice' },
    ]);
    expect(dropped(response)).toBeNull();
  });

  it('a part the converter rewrites has no place left for its field: that one is named', async () => {
    // A lone text part goes upstream as plain string content.
    const response = await post('/v1/chat/completions', { model: 'openai/test-echo', messages: [{ role: 'user', content: [{ type: 'text', text: 'alone', text_hint: 'x' }] }] });
    expect(response.status).toBe(200);
    await response.json();
    expect(dropped(response)).toBe('messages.0.content.0.text_hint');
    expect((gateway.openai.requests.at(-1)?.body as { messages: unknown[] }).messages[0]).toEqual({ role: 'user', content: 'alone' });
  });

  it('OpenAI format translated to Anthropic: dropped and each named by its path', async () => {
    const response = await post('/v1/chat/completions', { model: 'anthropic/test-echo', ...chat });
    expect(response.status).toBe(200);
    await response.json();
    expect((dropped(response) ?? '').split(', ').sort()).toEqual(['messages.0.content.0.text_hint', 'messages.0.speaker_tag', 'tools.0.defer_loading', 'tools.0.function.new_function_flag']);
    const sent = JSON.stringify(gateway.anthropic.requests.at(-1)?.body);
    for (const field of ['text_hint', 'speaker_tag', 'defer_loading', 'new_function_flag']) expect(sent).not.toContain(field);
  });

  it('Anthropic format to an Anthropic upstream: a content block and a tool keep their new fields', async () => {
    const response = await post('/v1/messages', {
      model: 'anthropic/test-echo',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'block hello', block_hint: 3 }] }],
      tools: [{ name: 'noop', input_schema: { type: 'object' }, eager_input_streaming: true }],
    });
    expect(response.status).toBe(200);
    await response.json();
    expect(dropped(response)).toBeNull();
    const sent = gateway.anthropic.requests.at(-1)?.body as { messages: Array<{ content: unknown[] }>; tools: unknown[] };
    expect(sent.messages[0]?.content[0]).toEqual({ type: 'text', text: 'block hello', block_hint: 3 });
    expect(sent.tools[0]).toMatchObject({ name: 'noop', eager_input_streaming: true });
  });

  it('Anthropic format translated to OpenAI: named, not sent', async () => {
    const response = await post('/v1/messages', {
      model: 'openai/test-echo',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'block hello', block_hint: 3 }] }],
    });
    expect(response.status).toBe(200);
    await response.json();
    expect(dropped(response)).toBe('messages.0.content.0.block_hint');
    expect(JSON.stringify(gateway.openai.requests.at(-1)?.body)).not.toContain('block_hint');
  });

  it('Gemini format to a Gemini upstream: a part and a function declaration keep their new fields', async () => {
    const response = await post('/v1beta/models/google/test-echo:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'part hello', partHint: 'p' }] }],
      tools: [{ functionDeclarations: [{ name: 'lookup', description: 'Finds', parameters: { type: 'object', properties: { q: { type: 'string' } } }, newDeclarationFlag: true }] }],
    });
    expect(response.status).toBe(200);
    await response.json();
    expect(dropped(response)).toBeNull();
    const sent = gateway.gemini.requests.at(-1)?.body as { contents: Array<{ parts: unknown[] }>; tools: Array<{ functionDeclarations: unknown[] }> };
    expect(sent.contents[0]?.parts[0]).toEqual({ text: 'part hello', partHint: 'p' });
    expect(sent.tools[0]?.functionDeclarations[0]).toMatchObject({ name: 'lookup', newDeclarationFlag: true });
  });

  it('Gemini format translated to OpenAI: named, not sent', async () => {
    const response = await post('/v1beta/models/openai/test-echo:generateContent', { contents: [{ role: 'user', parts: [{ text: 'part hello', partHint: 'p' }] }] });
    expect(response.status).toBe(200);
    await response.json();
    expect(dropped(response)).toBe('contents.0.parts.0.partHint');
    expect(JSON.stringify(gateway.openai.requests.at(-1)?.body)).not.toContain('partHint');
  });
});
