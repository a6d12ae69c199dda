import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../src/core/model-types.ts';
import { forEachEvent, SettledEventStream, type StreamEnding } from '../../../src/core/settled-event-stream.ts';

const text = (delta: string): ModelStreamEvent => ({ type: 'text-delta', delta });

/** An upstream of `events`, then `error` if given; records whether it was told to stop. */
function upstream(events: ModelStreamEvent[], error?: Error) {
  const state = { returned: false };
  async function* produce(): AsyncGenerator<ModelStreamEvent> {
    try {
      for (const event of events) yield event;
      if (error) throw error;
    } finally {
      state.returned = true;
    }
  }
  return { iterator: produce(), state };
}

/** Records every call the stream makes on its ending. */
function recorder() {
  const calls: string[] = [];
  const ending: StreamEnding = {
    observe: (event) => calls.push(`observe ${event.type === 'text-delta' ? event.delta : event.type}`),
    complete: () => calls.push('complete'),
    fail: (error) => {
      calls.push(`fail ${(error as Error).message}`);
      return new Error(`client sees: ${(error as Error).message}`);
    },
    abandon: () => calls.push('abandon'),
  };
  return { calls, ending };
}

async function started(events: ModelStreamEvent[], error?: Error) {
  const source = upstream(events, error);
  const first = await source.iterator.next();
  const { calls, ending } = recorder();
  return { stream: new SettledEventStream(source.iterator, first, ending), calls, state: source.state };
}

describe('SettledEventStream', () => {
  it('hands on every event, the pre-fetched first one included, observing each, then completes once', async () => {
    const { stream, calls } = await started([text('a'), text('b'), text('c')]);
    const seen: string[] = [];
    for await (const event of stream) seen.push(event.type === 'text-delta' ? event.delta : event.type);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(calls).toEqual(['observe a', 'observe b', 'observe c', 'complete']);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(calls.at(-1)).toBe('complete');
  });

  it('completes a stream that ended before its first event', async () => {
    const { stream, calls } = await started([]);
    for await (const _event of stream) throw new Error('no event expected');
    expect(calls).toEqual(['complete']);
  });

  it('stops the upstream and abandons when the consumer leaves early', async () => {
    const { stream, calls, state } = await started([text('a'), text('b'), text('c')]);
    for await (const event of stream) if (event.type === 'text-delta' && event.delta === 'b') break;
    expect(state.returned).toBe(true);
    expect(calls).toEqual(['observe a', 'observe b', 'abandon']);
    await stream.return();
    expect(calls.filter((call) => call === 'abandon')).toHaveLength(1);
  });

  it('reports a failure midway once, after the events before it, and throws what fail returned', async () => {
    const { stream, calls } = await started([text('a')], new Error('upstream broke'));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of stream) seen.push(event.type);
      })(),
    ).rejects.toThrow('client sees: upstream broke');
    expect(seen).toEqual(['text-delta']);
    expect(calls).toEqual(['observe a', 'fail upstream broke']);
    await stream.return();
    expect(calls).toEqual(['observe a', 'fail upstream broke']);
  });
});

/** An upstream holding `events` as one read: takeReady hands them out, next() the end or `error`. */
function heldRead(events: ModelStreamEvent[], error?: Error) {
  const state = { returned: false, nextCalls: 0 };
  const queue = [...events];
  const iterator = {
    takeReady: () => queue.shift(),
    next: async (): Promise<IteratorResult<ModelStreamEvent>> => {
      state.nextCalls += 1;
      const event = queue.shift();
      if (event) return { value: event, done: false };
      if (error) throw error;
      return { value: undefined, done: true };
    },
    return: async (): Promise<IteratorResult<ModelStreamEvent>> => {
      state.returned = true;
      return { value: undefined, done: true };
    },
  };
  return { iterator, state };
}

describe('forEachEvent over a SettledEventStream', () => {
  it('takes held events without next(), observing each in order, then completes once', async () => {
    const source = heldRead([text('a'), text('b'), text('c')]);
    const first = await source.iterator.next();
    const { calls, ending } = recorder();
    const seen: string[] = [];
    await forEachEvent(new SettledEventStream(source.iterator, first, ending), (event) => {
      seen.push(event.type === 'text-delta' ? event.delta : event.type);
      return undefined;
    });
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(calls).toEqual(['observe a', 'observe b', 'observe c', 'complete']);
    // One next() fetched the first event, one found the end: b and c were taken.
    expect(source.state.nextCalls).toBe(2);
  });

  it('throws the failure after the events before it, reported once', async () => {
    const source = heldRead([text('a'), text('b')], new Error('upstream broke'));
    const { calls, ending } = recorder();
    const stream = new SettledEventStream(source.iterator, await source.iterator.next(), ending);
    await expect(forEachEvent(stream, () => undefined)).rejects.toThrow('client sees: upstream broke');
    expect(calls).toEqual(['observe a', 'observe b', 'fail upstream broke']);
  });

  it('stops and abandons the stream when the handler throws, as for-await does, and waits for a handler that returns a promise', async () => {
    const source = heldRead([text('a'), text('b'), text('c')]);
    const { calls, ending } = recorder();
    const stream = new SettledEventStream(source.iterator, await source.iterator.next(), ending);
    const handled: string[] = [];
    const outcome = forEachEvent(stream, async (event) => {
      await new Promise((done) => setTimeout(done, 5));
      handled.push(event.type === 'text-delta' ? event.delta : '');
      if (handled.length === 2) throw new Error('client gone');
    });
    await expect(outcome).rejects.toThrow('client gone');
    expect(handled).toEqual(['a', 'b']);
    expect(source.state.returned).toBe(true);
    expect(calls).toEqual(['observe a', 'observe b', 'abandon']);
  });
});
