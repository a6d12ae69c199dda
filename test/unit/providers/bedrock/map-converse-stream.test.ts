import { EventStreamCodec } from '@smithy/core/event-streams';
import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../../src/core/model-types.ts';
import { mapConverseStream } from '../../../../src/providers/bedrock/map-converse-stream.ts';
import { readEventStreamBatches } from '../../../../src/providers/bedrock/read-event-stream.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);
const text = (value: string) => ({ type: 'string' as const, value });

/** A ConverseStream event frame as Bedrock sends it. */
const event = (type: string, payload: Record<string, unknown>): Uint8Array =>
  codec.encode({ headers: { ':event-type': text(type), ':content-type': text('application/json'), ':message-type': text('event') }, body: Buffer.from(JSON.stringify({ ...payload, p: 'abcdef' })) });

/** The bytes as the network might deliver them: each read `size` bytes long. */
async function* reads(frames: Uint8Array[], size: number): AsyncIterable<Uint8Array> {
  const bytes = Buffer.concat(frames);
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function mapped(frames: Uint8Array[], size = 1_000_000): Promise<{ events: ModelStreamEvent[]; error: unknown }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const item of mapConverseStream(
      readEventStreamBatches(async () => reads(frames, size)),
      () => 'msg_1',
      'm',
    ))
      events.push(item);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

const ANSWER = [
  event('messageStart', { role: 'assistant' }),
  event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello ' } }),
  event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'there' } }),
  event('contentBlockStop', { contentBlockIndex: 0 }),
  event('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tu1', name: 'ping' } } }),
  event('contentBlockStop', { contentBlockIndex: 1 }),
  event('somethingNew', { anything: true }),
  event('messageStop', { stopReason: 'tool_use' }),
  event('metadata', { usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14, cacheReadInputTokens: 6, cacheWriteInputTokens: 2 }, metrics: { latencyMs: 5 } }),
];

const EXPECTED: ModelStreamEvent[] = [
  { type: 'response-metadata', id: 'msg_1', model: 'm' },
  { type: 'text-delta', delta: 'Hello ' },
  { type: 'text-delta', delta: 'there' },
  { type: 'tool-call-start', index: 0, id: 'tu1', name: 'ping' },
  // A tool without input still gets valid JSON arguments.
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
  { type: 'usage', usage: { inputTokens: 18, outputTokens: 4, cachedInputTokens: 6, cacheWriteTokens: 2 } },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
];

describe('ConverseStream → canonical events', () => {
  it('maps a whole answer, skipping unknown event types, whatever the read sizes', async () => {
    for (const size of [1_000_000, 1, 7, 64]) {
      const { events, error } = await mapped(ANSWER, size);
      expect(error, `reads of ${size} bytes`).toBeUndefined();
      expect(events, `reads of ${size} bytes`).toEqual(EXPECTED);
    }
  });

  it('finishes without usage when metadata never comes, and throws when messageStop never came', async () => {
    const withoutMetadata = await mapped(ANSWER.slice(0, -1));
    expect(withoutMetadata.events.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' } });
    const cut = await mapped(ANSWER.slice(0, 3));
    expect(cut.events.map((item) => item.type)).toEqual(['response-metadata', 'text-delta', 'text-delta']);
    expect(cut.error).toBeInstanceOf(UpstreamError);
    expect((cut.error as UpstreamError).status).toBe(0);
  });

  it('refuses a frame whose checksum fails, and a body that ends inside a frame', async () => {
    const corrupt = Buffer.from(ANSWER[1] as Uint8Array);
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 6) ^ 0xff, corrupt.length - 6);
    const broken = await mapped([ANSWER[0] as Uint8Array, corrupt]);
    expect(broken.error).toMatchObject({ status: 502, retryable: false, upstreamMessage: 'upstream sent a malformed event stream' });
    const truncated = await mapped([ANSWER[0] as Uint8Array, (ANSWER[1] as Uint8Array).subarray(0, 20)]);
    expect(truncated.error).toMatchObject({ status: 0, upstreamMessage: 'upstream stream ended before the message was complete' });
  });

  it('throws an exception frame with its status, after the events before it', async () => {
    const exception = codec.encode({
      headers: { ':message-type': text('exception'), ':exception-type': text('validationException'), ':content-type': text('application/json') },
      body: Buffer.from(JSON.stringify({ message: 'Input is too long for requested model.' })),
    });
    const { events, error } = await mapped([...ANSWER.slice(0, 2), exception]);
    expect(events).toEqual(EXPECTED.slice(0, 2));
    expect(error).toMatchObject({ status: 400, retryable: false, upstreamMessage: 'validationException: Input is too long for requested model.' });
  });
});
