import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../../src/core/model-types.ts';
import { mapSseStream, type SseEventMapping } from '../../../../src/providers/http/mapped-event-stream.ts';
import type { SseEvent } from '../../../../src/providers/http/sse-events.ts';

/** Reads of SSE events as readSseBatches hands them over, counting the reads taken and whether the reader stopped them. */
function countedBatches(reads: string[][]) {
  const upstream = { taken: 0, stopped: 0 };
  const batches: AsyncIterable<SseEvent[]> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const read = reads[upstream.taken];
        if (read === undefined) return { value: undefined, done: true };
        upstream.taken += 1;
        return { value: read.map((data) => ({ data })), done: false };
      },
      return: async () => {
        upstream.stopped += 1;
        return { value: undefined, done: true };
      },
    }),
  };
  return { upstream, batches };
}

/** Each event becomes a text delta; "stop" completes the answer; "fail" throws; the end adds a finish. */
const textMapping = (options: { failAtEnd?: boolean } = {}): SseEventMapping & { mapped: string[] } => {
  const mapped: string[] = [];
  return {
    mapped,
    map(event, out) {
      mapped.push(event.data);
      if (event.data === 'fail') throw new Error('bad event');
      if (event.data === 'stop') return true;
      out.push({ type: 'text-delta', delta: event.data });
      return false;
    },
    end(out) {
      if (options.failAtEnd) throw new Error('cut short');
      out.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } });
    },
  };
};

const texts = (events: ModelStreamEvent[]) => events.map((event) => (event.type === 'text-delta' ? event.delta : event.type));

describe('mapSseStream', () => {
  it('takes one read at a time and hands out its events in order, then what the end adds', async () => {
    const { upstream, batches } = countedBatches([['a', 'b'], ['c']]);
    const events = mapSseStream(batches, textMapping());
    expect(await events.next()).toEqual({ value: { type: 'text-delta', delta: 'a' }, done: false });
    expect(upstream.taken).toBe(1);
    const rest: ModelStreamEvent[] = [];
    for await (const event of events) rest.push(event);
    expect(texts(rest)).toEqual(['b', 'c', 'finish']);
    expect(upstream.stopped).toBe(0);
  });

  it('stops the upstream once the mapping reports the answer complete, mapping nothing after it', async () => {
    const { upstream, batches } = countedBatches([['a', 'stop', 'after'], ['never']]);
    const mapping = textMapping();
    const events: ModelStreamEvent[] = [];
    for await (const event of mapSseStream(batches, mapping)) events.push(event);
    expect(texts(events)).toEqual(['a']);
    expect(mapping.mapped).toEqual(['a', 'stop']);
    expect(upstream).toEqual({ taken: 1, stopped: 1 });
  });

  it('throws an error met in a read after that read’s earlier events, and stops the upstream', async () => {
    const { upstream, batches } = countedBatches([['a', 'fail', 'b']]);
    const events = mapSseStream(batches, textMapping());
    const seen: ModelStreamEvent[] = [];
    await expect(
      (async () => {
        for await (const event of events) seen.push(event);
      })(),
    ).rejects.toThrow('bad event');
    expect(texts(seen)).toEqual(['a']);
    expect(upstream.stopped).toBe(1);
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });

  it('throws what the end throws (an answer cut short) after the last read’s events, without stopping an ended body', async () => {
    const { upstream, batches } = countedBatches([['a']]);
    const seen: ModelStreamEvent[] = [];
    await expect(
      (async () => {
        for await (const event of mapSseStream(batches, textMapping({ failAtEnd: true }))) seen.push(event);
      })(),
    ).rejects.toThrow('cut short');
    expect(texts(seen)).toEqual(['a']);
    expect(upstream.stopped).toBe(0);
  });

  it('stops the upstream when its consumer leaves early, and hands out nothing more', async () => {
    const { upstream, batches } = countedBatches([['a', 'b'], ['c']]);
    const events = mapSseStream(batches, textMapping());
    for await (const event of events) if (event.type === 'text-delta') break;
    expect(upstream.stopped).toBe(1);
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });

  it('hands out the rest of a read at once (takeReady), and nothing before a read or past its end', async () => {
    const { upstream, batches } = countedBatches([['a', 'b', 'c'], ['d']]);
    const events = mapSseStream(batches, textMapping()) as ReturnType<typeof mapSseStream> & { takeReady(): ModelStreamEvent | undefined };
    expect(events.takeReady()).toBeUndefined();
    expect(upstream.taken).toBe(0);
    expect((await events.next()).value).toEqual({ type: 'text-delta', delta: 'a' });
    expect(texts([events.takeReady(), events.takeReady()] as ModelStreamEvent[])).toEqual(['b', 'c']);
    // The read is used up: the next one is awaited, not taken.
    expect(events.takeReady()).toBeUndefined();
    expect(upstream.taken).toBe(1);
    expect((await events.next()).value).toEqual({ type: 'text-delta', delta: 'd' });
  });
});
