import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { JunctionError } from '../../../../src/core/errors.ts';
import type { ModelResponse, ModelStreamEvent } from '../../../../src/core/model-types.ts';
import { renderMessagesResponse } from '../../../../src/gateway/messages/render-messages-response.ts';
import { MessagesStreamEncoder, type MessagesSseEvent } from '../../../../src/gateway/messages/render-messages-stream.ts';

const response: ModelResponse = {
  id: 'chatcmpl-123',
  model: 'gpt-4o-mini-2024-07-18',
  content: [
    { type: 'reasoning', text: 'Need the weather.', signature: 'sig-1' },
    { type: 'reasoning', text: '', redactedData: 'REDACTED' },
    { type: 'text', text: 'Let me check.' },
    { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'tool-call', id: 'call_2', name: 'broken', arguments: '{"city":' },
  ],
  usage: { inputTokens: 1000, outputTokens: 50, cachedInputTokens: 600, cacheWriteTokens: 100, reasoningTokens: 10 },
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
};

const expectedMessage = {
  id: 'msg_chatcmpl-123',
  type: 'message',
  role: 'assistant',
  model: 'openai/gpt-4o-mini',
  content: [
    { type: 'thinking', thinking: 'Need the weather.', signature: 'sig-1' },
    { type: 'redacted_thinking', data: 'REDACTED' },
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
    // Truncated arguments: {} (the documented rule), the stop reason explains.
    { type: 'tool_use', id: 'call_2', name: 'broken', input: {} },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  // input_tokens excludes cache reads and writes, as Anthropic reports it.
  usage: { input_tokens: 300, output_tokens: 50, cache_read_input_tokens: 600, cache_creation_input_tokens: 100, cost: 0.001234 },
};

/** A fetch that answers every call with one canned body, for driving the official SDK. */
function cannedFetch(body: string, contentType: string): typeof fetch {
  return async () => new Response(body, { status: 200, headers: { 'content-type': contentType } });
}

const toSse = (events: MessagesSseEvent[]) => events.map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`).join('');

describe('renderMessagesResponse', () => {
  it('renders blocks, stop reason and Anthropic-style usage with cost', () => {
    expect(renderMessagesResponse(response, { model: 'openai/gpt-4o-mini', costMicros: 1234 })).toEqual(expectedMessage);
  });

  it('maps finish reasons, preferring an Anthropic upstream own value', () => {
    const render = (unified: ModelResponse['finishReason']['unified'], raw: string | undefined, stopSequences?: string[]) =>
      renderMessagesResponse({ ...response, content: [], finishReason: { unified, raw } }, { model: 'm', ...(stopSequences === undefined ? {} : { stopSequences }) });
    expect(render('stop', 'stop').stop_reason).toBe('end_turn');
    expect(render('length', 'MAX_TOKENS').stop_reason).toBe('max_tokens');
    expect(render('content-filter', 'SAFETY').stop_reason).toBe('refusal');
    expect(render('error', 'MALFORMED_FUNCTION_CALL').stop_reason).toBe('end_turn');
    expect(render('other', 'pause_turn').stop_reason).toBe('pause_turn');
    const stopped = render('stop', 'stop_sequence', ['END']);
    expect([stopped.stop_reason, stopped.stop_sequence]).toEqual(['stop_sequence', 'END']);
    expect(render('stop', 'stop_sequence', ['A', 'B']).stop_sequence).toBeNull();
  });

  it('parses with the official SDK, extra cost field included', async () => {
    const body = renderMessagesResponse(response, { model: 'openai/gpt-4o-mini', costMicros: 1234 });
    const client = new Anthropic({ apiKey: 'k', baseURL: 'http://junction.test', fetch: cannedFetch(JSON.stringify(body), 'application/json') });
    const message = await client.messages.create({ model: 'openai/gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(message).toEqual(expectedMessage);
  });
});

const streamEvents: ModelStreamEvent[] = [
  { type: 'response-metadata', id: 'chatcmpl-9', model: 'gpt-4o-mini' },
  { type: 'reasoning-delta', delta: 'Think' },
  { type: 'reasoning-delta', delta: 'ing.' },
  { type: 'reasoning-signature', signature: 'sig-9' },
  { type: 'text-delta', delta: 'Checking' },
  { type: 'text-delta', delta: '' },
  { type: 'text-delta', delta: ' now.' },
  { type: 'tool-call-start', index: 0, id: 'call_a', name: 'get_weather' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '"Paris"}' },
  { type: 'tool-call-start', index: 1, id: 'call_b', name: 'get_time' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: '' },
  { type: 'usage', usage: { inputTokens: 120, outputTokens: 40, cachedInputTokens: 20 } },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
];

describe('MessagesStreamEncoder', () => {
  it('emits the exact Anthropic event sequence: one block per kind switch, one per tool call, usage at the end', () => {
    const encoder = new MessagesStreamEncoder({ model: 'openai/gpt-4o-mini', inputTokensEstimate: 118 });
    encoder.setCost(500);
    const frames = streamEvents.flatMap((event) => encoder.push(event));
    const zeroUsage = { input_tokens: 118, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    expect(frames.map((frame) => frame.data)).toEqual([
      {
        type: 'message_start',
        message: {
          id: 'msg_chatcmpl-9',
          type: 'message',
          role: 'assistant',
          model: 'openai/gpt-4o-mini',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: zeroUsage,
        },
      },
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Think' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'ing.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-9' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Checking' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: ' now.' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_a', name: 'get_weather', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'call_b', name: 'get_time', input: {} } },
      { type: 'content_block_stop', index: 3 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { input_tokens: 100, output_tokens: 40, cache_read_input_tokens: 20, cache_creation_input_tokens: 0, cost: 0.0005 },
      },
      { type: 'message_stop' },
    ]);
    expect(frames.every((frame) => frame.event === frame.data.type)).toBe(true);
    expect(encoder.push({ type: 'text-delta', delta: 'late' })).toEqual([]);
  });

  it('gives each signed thinking block its own index and emits redacted thinking as a closed block', () => {
    const encoder = new MessagesStreamEncoder({ model: 'm' });
    const frames = [
      { type: 'reasoning-delta', delta: 'a' },
      { type: 'reasoning-signature', signature: 's1' },
      { type: 'reasoning-delta', delta: 'b' },
      { type: 'reasoning-redacted', data: 'R' },
      { type: 'text-delta', delta: 'x' },
    ].flatMap((event) => encoder.push(event as ModelStreamEvent));
    const starts = frames.flatMap((frame) => (frame.data.type === 'content_block_start' ? [[frame.data.index, frame.data.content_block.type]] : []));
    expect(starts).toEqual([
      [0, 'thinking'],
      [1, 'thinking'],
      [2, 'redacted_thinking'],
      [3, 'text'],
    ]);
  });

  it('renders a late failure as an Anthropic error event', () => {
    const encoder = new MessagesStreamEncoder({ model: 'm' });
    encoder.push({ type: 'text-delta', delta: 'partial' });
    const frame = encoder.errorEvent(new JunctionError('upstream_timeout', 'The model took too long.'));
    expect(frame).toEqual({ event: 'error', data: { type: 'error', error: { type: 'api_error', message: 'The model took too long.' } } });
    expect(encoder.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } })).toEqual([]);
    const overloaded = new MessagesStreamEncoder({ model: 'm' }).errorEvent(new JunctionError('rate_limit_exceeded', 'Slow down.'));
    expect(overloaded.data).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'Slow down.' } });
  });

  it('is accumulated by the official SDK into the same message a non-streamed call returns', async () => {
    const encoder = new MessagesStreamEncoder({ model: 'openai/gpt-4o-mini' });
    const sse = toSse(streamEvents.flatMap((event) => encoder.push(event)));
    const client = new Anthropic({ apiKey: 'k', baseURL: 'http://junction.test', fetch: cannedFetch(sse, 'text/event-stream') });
    const stream = client.messages.stream({ model: 'openai/gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts).toEqual(['Checking', ' now.']);
    expect(message).toMatchObject({
      id: 'msg_chatcmpl-9',
      model: 'openai/gpt-4o-mini',
      content: [
        { type: 'thinking', thinking: 'Thinking.', signature: 'sig-9' },
        { type: 'text', text: 'Checking now.' },
        { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'call_b', name: 'get_time', input: {} },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 100, output_tokens: 40, cache_read_input_tokens: 20 },
    });
  });
});
