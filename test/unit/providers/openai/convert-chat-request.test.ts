import { describe, expect, it } from 'vitest';
import { JunctionError } from '../../../../src/core/errors.ts';
import type { ModelRequest } from '../../../../src/core/model-types.ts';
import { convertChatRequest } from '../../../../src/providers/openai/convert-chat-request.ts';
import { fixtureJson } from './load-fixture.ts';

const fullRequest: ModelRequest = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are terse.', cacheControl: { type: 'ephemeral' } },
    { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'I should call the tool.' },
        { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ],
    },
    { role: 'tool', toolCallId: 'call_1', name: 'get_weather', content: '{"celsius":21}' },
    { role: 'assistant', content: [{ type: 'text', text: '21 °C.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'And these?' },
        { type: 'image', url: 'https://example.com/cat.png', detail: 'low' },
        { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        { type: 'file', data: 'JVBERi0xLjQ=', mediaType: 'application/pdf', filename: 'report.pdf' },
      ],
    },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      strict: true,
    },
  ],
  toolChoice: { type: 'tool', name: 'get_weather' },
  parallelToolCalls: false,
  responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
  temperature: 0.2,
  topP: 0.9,
  topK: 40,
  maxOutputTokens: 256,
  stop: ['END'],
  seed: 7,
  user: 'user-42',
  reasoning: { effort: 'low', budgetTokens: 1000 },
  // `model` here must lose to the canonical one; `logprobs` passes through.
  providerOptions: { openai: { logprobs: true, model: 'ignored' }, anthropic: { metadata: { user_id: 'x' } } },
};

describe('convertChatRequest', () => {
  it('builds the exact OpenAI body for a streamed request with every feature', () => {
    const body = convertChatRequest(fullRequest, { stream: true, kind: 'openai', providerId: 'openai' });
    expect(body).toEqual(fixtureJson('chat-request-expected.json'));
  });

  it('uses max_tokens for openai-compatible servers and reads their own providerOptions key', () => {
    const body = convertChatRequest(
      {
        model: 'llama3.2',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        maxOutputTokens: 100,
        providerOptions: { ollama: { keep_alive: '5m' } },
      },
      { stream: false, kind: 'openai-compatible', providerId: 'ollama' },
    );
    expect(body).toEqual({ keep_alive: '5m', model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 });
  });

  it('sends json_object and text formats as they are and drops an empty stop list', () => {
    const base: ModelRequest = { model: 'm', messages: [{ role: 'system', content: 's' }], stop: [] };
    expect(convertChatRequest({ ...base, responseFormat: { type: 'json_object' } }, { stream: false, kind: 'openai' })).toEqual({
      model: 'm',
      messages: [{ role: 'system', content: 's' }],
      response_format: { type: 'json_object' },
    });
    expect(convertChatRequest({ ...base, toolChoice: 'required' }, { stream: false, kind: 'openai' })['tool_choice']).toBe('required');
  });

  it('never lets providerOptions turn a non-stream call into a stream', () => {
    const body = convertChatRequest({ model: 'm', messages: [], providerOptions: { openai: { stream: true, stream_options: { include_usage: false } } } }, { stream: false, kind: 'openai' });
    // What goes on the wire: neither field survives serialization.
    expect(JSON.stringify(body)).toBe('{"model":"m","messages":[]}');
  });

  it('refuses a file given by an http URL, which chat completions cannot fetch', () => {
    const request: ModelRequest = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'file', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }] }],
    };
    expect(() => convertChatRequest(request, { stream: false, kind: 'openai' })).toThrow(JunctionError);
  });
});
