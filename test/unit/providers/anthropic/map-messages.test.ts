import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../../src/core/model-types.ts';
import { readAnthropicErrorMessage } from '../../../../src/providers/anthropic/anthropic-error.ts';
import { mapMessagesResponse } from '../../../../src/providers/anthropic/map-messages-response.ts';
import { mapMessagesStream } from '../../../../src/providers/anthropic/map-messages-stream.ts';
import { readSseBatches } from '../../../../src/providers/http/sse-events.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/anthropic/${name}`, import.meta.url), 'utf8');

/** Replays a recorded SSE body in uneven byte chunks, as a socket would deliver it. */
async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  const data = new TextEncoder().encode(text);
  for (let offset = 0; offset < data.length; offset += 37) yield data.slice(offset, offset + 37);
}

async function collect(name: string): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of mapMessagesStream(readSseBatches(bytes(fixture(name))))) events.push(event);
  return events;
}

describe('mapMessagesResponse', () => {
  it('maps a plain message, adding cache reads to input tokens', () => {
    expect(mapMessagesResponse(JSON.parse(fixture('message-plain.json')))).toEqual({
      id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'Hi! My name is Claude.' }],
      usage: { inputTokens: 3895, outputTokens: 503, cachedInputTokens: 1800 },
      finishReason: { unified: 'stop', raw: 'end_turn' },
    });
  });

  it('maps thinking with signature, redacted thinking and tool use; skips server-tool blocks', () => {
    expect(mapMessagesResponse(JSON.parse(fixture('message-thinking-tool-use.json')))).toEqual({
      id: 'msg_01Aq9w938a90dw8q',
      model: 'claude-sonnet-4-5-20250929',
      content: [
        {
          type: 'reasoning',
          text: 'The user wants the weather; I should call get_weather.',
          signature: 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL....',
        },
        { type: 'reasoning', text: '', redactedData: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
        { type: 'text', text: "I'll check the current weather in San Francisco for you." },
        {
          type: 'tool-call',
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'get_weather',
          arguments: '{"location":"San Francisco, CA","unit":"celsius"}',
        },
      ],
      usage: { inputTokens: 1912, outputTokens: 171, cacheWriteTokens: 1500 },
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    });
  });

  it('rejects a body that is not a message with a non-retryable UpstreamError', () => {
    const attempt = () => mapMessagesResponse({ hello: 'world' });
    expect(attempt).toThrow(UpstreamError);
    expect(attempt).toThrow(expect.objectContaining({ status: 502, retryable: false }));
  });

  it('reads the Anthropic error body', () => {
    expect(readAnthropicErrorMessage(JSON.parse(fixture('error-overloaded.json')))).toBe('overloaded_error: Overloaded');
    expect(readAnthropicErrorMessage('<html>')).toBeUndefined();
  });
});

describe('mapMessagesStream', () => {
  it('maps a streamed text answer', async () => {
    expect(await collect('stream-text.sse')).toEqual([
      { type: 'response-metadata', id: 'msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY', model: 'claude-sonnet-4-5-20250929' },
      { type: 'text-delta', delta: 'Hello' },
      { type: 'text-delta', delta: '!' },
      { type: 'usage', usage: { inputTokens: 25, outputTokens: 15 } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' } },
    ]);
  });

  it('maps streamed tool use: ordinal indexes, input_json_delta pieces, {} for argument-less tools, cache usage', async () => {
    expect(await collect('stream-tool-use.sse')).toEqual([
      { type: 'response-metadata', id: 'msg_014p7gG3wDgGV9EUtLvnow3U', model: 'claude-sonnet-4-5-20250929' },
      { type: 'text-delta', delta: 'Okay' },
      { type: 'text-delta', delta: ", let's check the weather for San Francisco, CA:" },
      { type: 'tool-call-start', index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"location":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ' "San Fra' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'ncisco, CA"' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ', "unit": "fah' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'renheit"}' },
      { type: 'tool-call-start', index: 1, id: 'toolu_01Abc', name: 'get_time' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'usage', usage: { inputTokens: 2620, outputTokens: 89, cachedInputTokens: 2048, cacheWriteTokens: 100 } },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
    ]);
  });

  it('maps thinking deltas, the signature and redacted thinking; null usage fields keep message_start values', async () => {
    expect(await collect('stream-thinking.sse')).toEqual([
      { type: 'response-metadata', id: 'msg_01Gcd7y8Y1xGmK8bS2qRnK5h', model: 'claude-sonnet-4-5-20250929' },
      {
        type: 'reasoning-delta',
        delta: 'I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n1071 = 2 × 462 + 147',
      },
      { type: 'reasoning-delta', delta: '\n462 = 3 × 147 + 21\n147 = 7 × 21 + 0\n\nSo GCD(1071, 462) = 21' },
      { type: 'reasoning-signature', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...' },
      { type: 'reasoning-redacted', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj' },
      { type: 'text-delta', delta: 'The greatest common divisor of 1071 and 462 is **21**.' },
      { type: 'usage', usage: { inputTokens: 40, outputTokens: 180 } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' } },
    ]);
  });

  it('throws a retryable UpstreamError on a mid-stream error event, after the events before it', async () => {
    const events: ModelStreamEvent[] = [];
    const run = async () => {
      for await (const event of mapMessagesStream(readSseBatches(bytes(fixture('stream-error.sse'))))) events.push(event);
    };
    await expect(run()).rejects.toMatchObject({
      name: 'UpstreamError',
      status: 529,
      retryable: true,
      upstreamMessage: 'overloaded_error: Overloaded',
    });
    expect(events.map((event) => event.type)).toEqual(['response-metadata', 'text-delta']);
  });

  it('throws when the stream ends before message_stop', async () => {
    const truncated = fixture('stream-text.sse').split('event: message_delta')[0] ?? '';
    const run = async () => {
      for await (const _event of mapMessagesStream(readSseBatches(bytes(truncated)))) void _event;
    };
    await expect(run()).rejects.toMatchObject({ name: 'UpstreamError', status: 0, retryable: true });
  });
});
