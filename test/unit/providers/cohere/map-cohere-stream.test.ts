import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../../src/core/model-types.ts';
import { mapCohereStream } from '../../../../src/providers/cohere/map-cohere-stream.ts';
import { readSseBatches } from '../../../../src/providers/http/sse-events.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';

/** Cohere's v2 stream events as it sends them: an `event:` line and the event, type included, as data. */
const sse = (events: Array<Record<string, unknown>>): string => events.map((event) => `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`).join('');

async function* reads(text: string, size: number): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function mapped(text: string, size = 1_000_000): Promise<{ events: ModelStreamEvent[]; error: unknown }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const item of mapCohereStream(readSseBatches(reads(text, size)), 'command-a-03-2025')) events.push(item);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

const START = { type: 'message-start', id: 'c0ffee', delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } } };
const END = (finish: string) => ({
  type: 'message-end',
  delta: { finish_reason: finish, usage: { billed_units: { input_tokens: 12, output_tokens: 5 }, tokens: { input_tokens: 80, output_tokens: 5 } } },
});

describe('mapCohereStream', () => {
  it('maps text, thinking, the tool plan and two tool calls, whatever the read size', async () => {
    const text = sse([
      START,
      { type: 'content-start', index: 0, delta: { message: { content: { type: 'thinking', thinking: '' } } } },
      { type: 'content-delta', index: 0, delta: { message: { content: { thinking: 'Hmm.' } } } },
      { type: 'content-end', index: 0 },
      { type: 'tool-plan-delta', delta: { message: { tool_plan: 'I will look.' } } },
      { type: 'tool-call-start', index: 0, delta: { message: { tool_calls: { id: 'search_a1', type: 'function', function: { name: 'search', arguments: '' } } } } },
      { type: 'tool-call-delta', index: 0, delta: { message: { tool_calls: { function: { arguments: '{"q":' } } } } },
      { type: 'tool-call-delta', index: 0, delta: { message: { tool_calls: { function: { arguments: '"x"}' } } } } },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, delta: { message: { tool_calls: { id: 'now_b2', type: 'function', function: { name: 'now', arguments: '' } } } } },
      { type: 'tool-call-end', index: 1 },
      { type: 'citation-start', index: 0, delta: { message: { citations: { start: 0, end: 1 } } } },
      END('TOOL_CALL'),
    ]);
    const expected: ModelStreamEvent[] = [
      { type: 'response-metadata', id: 'c0ffee', model: 'command-a-03-2025' },
      { type: 'reasoning-delta', delta: 'Hmm.' },
      { type: 'reasoning-delta', delta: 'I will look.' },
      { type: 'tool-call-start', index: 0, id: 'search_a1', name: 'search' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"q":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"x"}' },
      { type: 'tool-call-start', index: 1, id: 'now_b2', name: 'now' },
      // A call without parameters streams no arguments; the client still gets JSON.
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'usage', usage: { inputTokens: 12, outputTokens: 5 } },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'TOOL_CALL' } },
    ];
    for (const size of [1_000_000, 7, 1]) expect(await mapped(text, size)).toEqual({ events: expected, error: undefined });
  });

  it('finishes at message-end with the billed units, and maps MAX_TOKENS to length', async () => {
    const { events } = await mapped(
      sse([
        START,
        { type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } },
        { type: 'content-delta', index: 0, delta: { message: { content: { text: 'Hi' } } } },
        END('MAX_TOKENS'),
      ]),
    );
    expect(events.slice(1)).toEqual([
      { type: 'text-delta', delta: 'Hi' },
      { type: 'usage', usage: { inputTokens: 12, outputTokens: 5 } },
      { type: 'finish', finishReason: { unified: 'length', raw: 'MAX_TOKENS' } },
    ]);
  });

  it('a stream cut before message-end is an upstream failure after the text it carried', async () => {
    const { events, error } = await mapped(sse([START, { type: 'content-delta', index: 0, delta: { message: { content: { text: 'Hal' } } } }]));
    expect(events.map((event) => event.type)).toEqual(['response-metadata', 'text-delta']);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).status).toBe(0);
  });

  it('an ERROR finish with its message is an upstream failure, not an answer', async () => {
    const { error } = await mapped(sse([START, { type: 'message-end', delta: { finish_reason: 'ERROR', error: 'model overloaded' } }]));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).upstreamMessage).toBe('model overloaded');
  });
});
