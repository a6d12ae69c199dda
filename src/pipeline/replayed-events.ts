import { ITERATION_DONE } from '../core/iteration-done.ts';
import type { ModelStreamEvent } from '../core/model-types.ts';
import type { ReadyEvents } from '../core/settled-event-stream.ts';

/** A stored answer's events handed out as a stream: all of them ready at once, as a cache hit has them. */
export class ReplayedEvents implements AsyncIterableIterator<ModelStreamEvent>, ReadyEvents {
  readonly #events: readonly ModelStreamEvent[];
  #next = 0;

  constructor(events: readonly ModelStreamEvent[]) {
    this.#events = events;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ModelStreamEvent>> {
    const event = this.takeReady();
    return Promise.resolve(event === undefined ? ITERATION_DONE : { done: false, value: event });
  }

  takeReady(): ModelStreamEvent | undefined {
    if (this.#next >= this.#events.length) return undefined;
    const event = this.#events[this.#next];
    this.#next += 1;
    return event;
  }

  /** The consumer left early: nothing upstream to stop. */
  async return(): Promise<IteratorResult<ModelStreamEvent>> {
    this.#next = this.#events.length;
    return ITERATION_DONE;
  }
}
