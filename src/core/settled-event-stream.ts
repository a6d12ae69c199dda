import type { ModelStreamEvent } from './model-types.ts';
import { ITERATION_DONE } from './iteration-done.ts';

/** What a stream's consumer drives: every event seen, and the one way the stream ended. */
export type StreamEnding = {
  observe(event: ModelStreamEvent): void;
  /** The upstream finished cleanly. */
  complete(): void;
  /** The upstream failed midway: bill it and return the error the consumer sees. */
  fail(error: unknown): Error;
  /** The consumer stopped early (client gone): bill what was produced. */
  abandon(): void;
};

/**
 * A stream that can hand out an event it already holds without a promise. Most of a
 * streamed answer arrives in a few network reads of many events each: taking those at
 * once saves a promise and a microtask turn per event at every layer (see forEachEvent).
 */
export interface ReadyEvents {
  /** The next event when it is already here, else undefined (then call `next()`, which also reports the end and errors). */
  takeReady(): ModelStreamEvent | undefined;
}

/**
 * Runs `handle` on each event in order, taking events already received at once (see
 * ReadyEvents) and awaiting the rest. Like `for await`: an error from the stream ends the
 * loop, and an error from `handle` stops the stream (`return()`) before it goes on.
 */
export async function forEachEvent(events: AsyncIterable<ModelStreamEvent>, handle: (event: ModelStreamEvent) => Promise<void> | undefined): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  const ready = typeof (iterator as Partial<ReadyEvents>).takeReady === 'function' ? (iterator as unknown as ReadyEvents) : undefined;
  for (;;) {
    let event = ready?.takeReady();
    if (event === undefined) {
      const result = await iterator.next();
      if (result.done) return;
      event = result.value;
    }
    try {
      const pending = handle(event);
      if (pending) await pending;
    } catch (error) {
      await iterator.return?.();
      throw error;
    }
  }
}

/**
 * The upstream's events as the pipeline hands them on, each observed (metering, the
 * crash journal) and the stream's ending reported exactly once: completed, failed or
 * abandoned. A plain iterator rather than an async generator: a generator layer cost a
 * resumption and a promise of its own per event, for every streamed event of every call.
 */
export class SettledEventStream implements AsyncIterableIterator<ModelStreamEvent>, ReadyEvents {
  readonly #upstream: AsyncIterator<ModelStreamEvent>;
  readonly #ending: StreamEnding;
  /** The first result, fetched before the stream was handed on (it proved the upstream answered). */
  #first: IteratorResult<ModelStreamEvent> | undefined;
  #ended = false;

  constructor(upstream: AsyncIterator<ModelStreamEvent>, first: IteratorResult<ModelStreamEvent>, ending: StreamEnding) {
    this.#upstream = upstream;
    this.#first = first;
    this.#ending = ending;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ModelStreamEvent>> {
    if (this.#ended) return Promise.resolve(ITERATION_DONE);
    const first = this.#first;
    if (first !== undefined) {
      this.#first = undefined;
      return Promise.resolve(this.#step(first));
    }
    return this.#upstream.next().then(this.#step, this.#failed);
  }

  takeReady(): ModelStreamEvent | undefined {
    if (this.#ended) return undefined;
    const first = this.#first;
    let event: ModelStreamEvent | undefined;
    if (first !== undefined) {
      if (first.done) return undefined;
      this.#first = undefined;
      event = first.value;
    } else {
      event = (this.#upstream as Partial<ReadyEvents>).takeReady?.();
    }
    if (event !== undefined) this.#ending.observe(event);
    return event;
  }

  /** Called by `for await` when its body leaves early: the upstream is stopped, down to its request. */
  async return(): Promise<IteratorResult<ModelStreamEvent>> {
    if (this.#ended) return ITERATION_DONE;
    this.#ended = true;
    await this.#upstream.return?.().catch(() => undefined);
    this.#ending.abandon();
    return ITERATION_DONE;
  }

  readonly #step = (result: IteratorResult<ModelStreamEvent>): IteratorResult<ModelStreamEvent> => {
    if (result.done) {
      this.#ended = true;
      this.#ending.complete();
      return ITERATION_DONE;
    }
    this.#ending.observe(result.value);
    return result;
  };

  readonly #failed = async (error: unknown): Promise<never> => {
    this.#ended = true;
    // A failed generator is closed already; any other iterator is told to clean up.
    await this.#upstream.return?.().catch(() => undefined);
    throw this.#ending.fail(error);
  };
}
