import { describe, expect, it } from 'vitest';
import { readSseBatches, type SseEvent } from '../../../../src/providers/http/sse-events.ts';

async function* bytes(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? new TextEncoder().encode(part) : part;
}

async function read(body: AsyncIterable<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const batch of readSseBatches(body)) events.push(...batch);
  return events;
}

describe('readSseBatches', () => {
  it('hands over the events of one read as one batch, and skips reads that complete none', async () => {
    const batches: SseEvent[][] = [];
    for await (const batch of readSseBatches(bytes('data: 1\n\ndata: 2\n\ndata: 3', '', '\n\ndata: 4\n\n'))) batches.push(batch);
    expect(batches).toEqual([
      [{ data: '1' }, { data: '2' }],
      [{ data: '3' }, { data: '4' }],
    ]);
  });

  it('opens a body given as a function only when first read', async () => {
    let opened = 0;
    const batches = readSseBatches(async () => {
      opened += 1;
      return bytes('data: one\n\n');
    });
    expect(opened).toBe(0);
    expect((await batches.next()).value).toEqual([{ data: 'one' }]);
    expect(opened).toBe(1);
  });

  it('joins split lines, keeps event names, joins multi-line data and drops comments', async () => {
    const events = await read(bytes('data: {"a":', '1}\r\n\r\n', ': ping\n\n', 'event: message_start\ndata: line 1\ndata: line 2\n\n'));
    expect(events).toEqual([{ data: '{"a":1}' }, { event: 'message_start', data: 'line 1\nline 2' }]);
  });

  it('keeps a multi-byte character split across chunks', async () => {
    const encoded = new TextEncoder().encode('data: ☕\n\n');
    expect(await read(bytes(encoded.subarray(0, 7), encoded.subarray(7)))).toEqual([{ data: '☕' }]);
  });

  it('drops a byte-order mark at the start of the stream, even split across reads', async () => {
    const encoded = new TextEncoder().encode('\uFEFFdata: first\n\n');
    expect(encoded[0]).toBe(0xef);
    expect(await read(bytes(encoded.subarray(0, 2), encoded.subarray(2)))).toEqual([{ data: 'first' }]);
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
        for await (const batch of readSseBatches(broken())) seen.push(...batch);
      })(),
    ).rejects.toThrow('socket closed');
    expect(seen).toEqual([{ data: 'one' }]);
  });

  it('stops the body when its reader leaves early, and reads nothing more', async () => {
    let stopped = 0;
    let reads = 0;
    const body: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          reads += 1;
          return { value: new TextEncoder().encode(`data: ${reads}\n\n`), done: false };
        },
        return: async () => {
          stopped += 1;
          return { value: undefined, done: true };
        },
      }),
    };
    const batches = readSseBatches(body);
    for await (const batch of batches) if (batch[0]?.data === '2') break;
    expect(stopped).toBe(1);
    expect(await batches.next()).toEqual({ done: true, value: undefined });
    expect(reads).toBe(2);
  });
});
