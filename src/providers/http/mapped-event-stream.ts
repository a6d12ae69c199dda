/**
 * An upstream's SSE events → canonical stream events, for every adapter: the adapter
 * supplies the mapping (synchronous, one event at a time), this supplies the iterator.
 *
 * A plain iterator rather than an async generator: each network read's events are mapped
 * at once into a queue and `next()` hands them out as resolved promises. A generator paid
 * a suspension and a resumption per event, for every event of every streamed call.
 *
 * What the consumer sees is what a generator would give: a read's events in order, then
 * an error met while mapping that read (after the events before it). `return()` stops the
 * upstream down to its request; so does an error, and a mapping that says the answer is
 * complete.
 */
import type { ModelStreamEvent } from '../../core/model-types.ts';
import type { SseEvent } from './sse-events.ts';
import { ITERATION_DONE } from '../../core/iteration-done.ts';
import type { ReadyEvents } from '../../core/settled-event-stream.ts';

export interface SseEventMapping {
  /**
   * Maps one event into `out` (or throws an UpstreamError). Returns true once the answer is
   * complete and nothing after it need be read; false reads on to the body's end.
   */
  map(event: SseEvent, out: ModelStreamEvent[]): boolean;
  /** The body ended: pushes what was held back (usage, finish), or throws for an answer cut short. */
  end(out: ModelStreamEvent[]): void;
}

export function mapSseStream(batches: AsyncIterable<SseEvent[]>, mapping: SseEventMapping): AsyncIterableIterator<ModelStreamEvent> {
  return new MappedEventStream(batches[Symbol.asyncIterator](), mapping);
}

class MappedEventStream implements AsyncIterableIterator<ModelStreamEvent>, ReadyEvents {
  readonly #batches: AsyncIterator<SseEvent[]>;
  readonly #mapping: SseEventMapping;
  #queue: ModelStreamEvent[] = [];
  #read = 0;
  /** Met while mapping a read: thrown once the events before it are handed out. */
  #failure: { error: unknown } | undefined;
  /** Nothing more comes: the body ended, the answer completed, an error was met, or the consumer left. */
  #closed = false;

  constructor(batches: AsyncIterator<SseEvent[]>, mapping: SseEventMapping) {
    this.#batches = batches;
    this.#mapping = mapping;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ModelStreamEvent>> {
    if (this.#read < this.#queue.length) return Promise.resolve({ value: this.#queue[this.#read++] as ModelStreamEvent, done: false });
    const failure = this.#failure;
    if (failure !== undefined) {
      this.#failure = undefined;
      return Promise.reject(failure.error);
    }
    if (this.#closed) return Promise.resolve(ITERATION_DONE);
    return this.#batches.next().then(this.#mapRead, this.#readFailed);
  }

  /** An event of the last read not handed out yet, without a promise (see ReadyEvents). */
  takeReady(): ModelStreamEvent | undefined {
    return this.#read < this.#queue.length ? this.#queue[this.#read++] : undefined;
  }

  async return(): Promise<IteratorResult<ModelStreamEvent>> {
    this.#queue = [];
    this.#read = 0;
    this.#failure = undefined;
    if (!this.#closed) {
      this.#closed = true;
      await this.#batches.return?.();
    }
    return ITERATION_DONE;
  }

  readonly #mapRead = (result: IteratorResult<SseEvent[]>): Promise<IteratorResult<ModelStreamEvent>> => {
    this.#queue = [];
    this.#read = 0;
    try {
      if (result.done) {
        this.#closed = true;
        this.#mapping.end(this.#queue);
      } else {
        for (const event of result.value) {
          if (this.#mapping.map(event, this.#queue)) {
            this.#stopUpstream();
            break;
          }
        }
      }
    } catch (error) {
      this.#failure = { error };
      this.#stopUpstream();
    }
    return this.next();
  };

  readonly #readFailed = (error: unknown): never => {
    this.#closed = true;
    throw error;
  };

  /** As a generator's for-await does when its body returns or throws: the upstream is stopped. */
  #stopUpstream(): void {
    if (this.#closed) return;
    this.#closed = true;
    void this.#batches.return?.()?.catch(() => undefined);
  }
}
