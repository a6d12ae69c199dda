import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../../src/core/model-types.ts';
import { readSseBatches } from '../../../../src/providers/http/sse-events.ts';
import { mapChatStream } from '../../../../src/providers/openai/map-chat-stream.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';
import { fixtureBytes } from './load-fixture.ts';

async function mapFixture(name: string): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of mapChatStream(readSseBatches(fixtureBytes(name)))) events.push(event);
  return events;
}

async function mapFixtureUntilError(name: string): Promise<{ events: ModelStreamEvent[]; error: unknown }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of mapChatStream(readSseBatches(fixtureBytes(name)))) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

describe('mapChatStream', () => {
  it('maps text chunks, holds usage and finish to the end, and survives split UTF-8', async () => {
    expect(await mapFixture('chat-stream-text-with-usage.sse')).toEqual([
      { type: 'response-metadata', id: 'chatcmpl-123', model: 'gpt-4o-mini-2024-07-18' },
      { type: 'text-delta', delta: 'Hello' },
      { type: 'text-delta', delta: '! Café ☕' },
      { type: 'usage', usage: { inputTokens: 9, outputTokens: 4, cachedInputTokens: 0, reasoningTokens: 0 } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
    ]);
  });

  it('maps parallel tool calls by index', async () => {
    expect(await mapFixture('chat-stream-tool-calls.sse')).toEqual([
      { type: 'response-metadata', id: 'chatcmpl-9lx2', model: 'gpt-4o-2024-08-06' },
      { type: 'tool-call-start', index: 0, id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"lo' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'cation": "Paris"}' },
      { type: 'tool-call-start', index: 1, id: 'call_ABaX3sDcXbZmFzRAwB6mPlRz', name: 'get_weather' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"location": "Bogotá"}' },
      { type: 'usage', usage: { inputTokens: 80, outputTokens: 50, cachedInputTokens: 0, reasoningTokens: 0 } },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
    ]);
  });

  it('maps DeepSeek reasoning_content and usage sent on the finish chunk, skipping comments', async () => {
    expect(await mapFixture('chat-stream-deepseek-reasoning.sse')).toEqual([
      { type: 'response-metadata', id: '0f3d8b62-1f4c-4f8e-8a1e-5c3b2d1e0f9a', model: 'deepseek-reasoner' },
      { type: 'reasoning-delta', delta: 'Okay' },
      { type: 'reasoning-delta', delta: ', 9.11 vs 9.8.' },
      { type: 'text-delta', delta: '9.8 is' },
      { type: 'text-delta', delta: ' larger.' },
      { type: 'usage', usage: { inputTokens: 18, outputTokens: 24, cachedInputTokens: 16, reasoningTokens: 19 } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
    ]);
  });

  it('reads Groq usage from x_groq and `reasoning` deltas', async () => {
    expect(await mapFixture('chat-stream-groq-usage.sse')).toEqual([
      { type: 'response-metadata', id: 'chatcmpl-7f2a', model: 'llama-3.3-70b-versatile' },
      { type: 'reasoning-delta', delta: 'Short answer.' },
      { type: 'text-delta', delta: 'Hi' },
      { type: 'usage', usage: { inputTokens: 40, outputTokens: 3 } },
      { type: 'finish', finishReason: { unified: 'length', raw: 'length' } },
    ]);
  });

  it('gives whole tool calls without index or id their own index and a generated id', async () => {
    const events = await mapFixture('chat-stream-no-index-tool-call.sse');
    expect(events.map((event) => event.type)).toEqual(['response-metadata', 'tool-call-start', 'tool-call-delta', 'tool-call-start', 'tool-call-delta', 'finish']);
    expect(events[1]).toMatchObject({ type: 'tool-call-start', index: 0, name: 'lookup', id: expect.stringMatching(/^call_/) });
    expect(events[2]).toEqual({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"q":"a"}' });
    expect(events[3]).toMatchObject({ type: 'tool-call-start', index: 1, name: 'lookup' });
    expect(events[4]).toEqual({ type: 'tool-call-delta', index: 1, argumentsDelta: '{"q":"b"}' });
  });

  it('fails a stream that ends without [DONE] or a finish reason', async () => {
    const { events, error } = await mapFixtureUntilError('chat-stream-truncated.sse');
    expect(events.map((event) => event.type)).toEqual(['response-metadata', 'text-delta']);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 0 });
  });

  it('turns an error frame into an UpstreamError carrying the provider message', async () => {
    const { events, error } = await mapFixtureUntilError('chat-stream-error.sse');
    expect(events).toEqual([
      { type: 'response-metadata', id: 'chatcmpl-err', model: 'gpt-4o-mini' },
      { type: 'text-delta', delta: 'Part' },
    ]);
    expect(error).toMatchObject({
      status: 502,
      retryable: false,
      upstreamMessage: 'The server had an error while processing your request. Sorry about that!',
    });
  });

  it('reads a first chunk without a whole parse only when it is JSON: one that is not fails the stream as before', async () => {
    const map = async (first: string) => {
      const body = `data: ${first}\n\ndata: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
      const events: ModelStreamEvent[] = [];
      try {
        const bytes = async function* () {
          yield new TextEncoder().encode(body);
        };
        for await (const event of mapChatStream(readSseBatches(bytes()))) events.push(event);
      } catch (error) {
        return { events, error };
      }
      return { events, error: undefined };
    };
    const role = '"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}';
    expect(await map(`{"id":"c1","model":"m",${role}`)).toEqual({
      events: [
        { type: 'response-metadata', id: 'c1', model: 'm' },
        { type: 'text-delta', delta: 'Hi' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
      ],
      error: undefined,
    });
    for (const broken of [`{,${role}`, `{"id":"c1",,${role}`, `{"id":"c1",${role.slice(0, -1)}`]) {
      const { events, error } = await map(broken);
      expect(events, broken).toEqual([]);
      expect(error, broken).toBeInstanceOf(UpstreamError);
      expect(error, broken).toMatchObject({ status: 502, upstreamMessage: 'upstream sent a malformed stream event' });
    }
    // A first chunk that is the finish (an empty answer) still reports its metadata.
    expect((await map('{"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}')).events).toEqual([
      { type: 'response-metadata', id: 'c1', model: 'm' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
    ]);
    // A first chunk with tool calls is parsed whole, as before.
    const tools = await map(
      '{"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}]}',
    );
    expect(tools.events.map((event) => event.type)).toEqual(['response-metadata', 'tool-call-start', 'tool-call-delta', 'finish']);
  });

  it('skips chunks of shapes it does not know, whichever check sees them, and keeps vendor extras', async () => {
    const frames = [
      { id: 'c1', model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'kept' }, finish_reason: null }], system_fingerprint: 'fp', service_tier: 'default' },
      { id: 'c1', choices: [{ index: 0, delta: { content: 42 } }] },
      { id: 'c1', choices: [{ index: 0, delta: ['content'] }] },
      { id: 'c1', choices: { 0: { delta: { content: 'not an array' } } } },
      { id: 7, choices: [{ index: 0, delta: { content: 'bad id' } }] },
      { id: 'c1', choices: [[{ delta: { content: 'nested' } }]] },
      { id: 'c1', choices: [{ index: 0, delta: null, finish_reason: 'length' }] },
    ];
    const body = `${frames.map((frame) => `data: ${JSON.stringify(frame)}\n\n`).join('')}data: [DONE]\n\n`;
    const events: ModelStreamEvent[] = [];
    const bytes = async function* () {
      yield new TextEncoder().encode(body);
    };
    for await (const event of mapChatStream(readSseBatches(bytes()))) events.push(event);
    expect(events).toEqual([
      { type: 'response-metadata', id: 'c1', model: 'm' },
      { type: 'text-delta', delta: 'kept' },
      { type: 'finish', finishReason: { unified: 'length', raw: 'length' } },
    ]);
  });
});
