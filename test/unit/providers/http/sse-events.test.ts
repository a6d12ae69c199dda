import { describe, expect, it } from 'vitest';
import { readSseEvents, type SseEvent } from '../../../../src/providers/http/sse-events.ts';

async function* bytes(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? new TextEncoder().encode(part) : part;
}

async function read(body: AsyncIterable<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSseEvents(body)) events.push(event);
  return events;
}

describe('readSseEvents', () => {
  it('joins split lines, keeps event names, joins multi-line data and drops comments', async () => {
    const events = await read(
      bytes('data: {"a":', '1}\r\n\r\n', ': ping\n\n', 'event: message_start\ndata: line 1\ndata: line 2\n\n'),
    );
    expect(events).toEqual([{ data: '{"a":1}' }, { event: 'message_start', data: 'line 1\nline 2' }]);
  });

  it('keeps a multi-byte character split across chunks', async () => {
    const encoded = new TextEncoder().encode('data: ☕\n\n');
    expect(await read(bytes(encoded.subarray(0, 7), encoded.subarray(7)))).toEqual([{ data: '☕' }]);
  });

  it('delivers a last event that lacks its blank line', async () => {
    expect(await read(bytes('data: one\n\ndata: [DONE]'))).toEqual([{ data: 'one' }, { data: '[DONE]' }]);
  });

  it('lets errors from the body through', async () => {
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode('data: one\n\n');
      throw new Error('socket closed');
    }
    const seen: SseEvent[] = [];
    await expect(
      (async () => {
        for await (const event of readSseEvents(broken())) seen.push(event);
      })(),
    ).rejects.toThrow('socket closed');
    expect(seen).toEqual([{ data: 'one' }]);
  });
});
