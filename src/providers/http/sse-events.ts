/**
 * Server-sent events from an upstream byte stream. Shared by every streaming adapter
 * so that chunk boundaries, CRLF line endings, multi-line `data:` fields and comments
 * (`: keep-alive` pings from OpenRouter and others) are handled in one place, by the
 * spec-complete `eventsource-parser` rather than by string splitting.
 */
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import { ITERATION_DONE } from '../../core/iteration-done.ts';

export type SseEvent = {
  /** The `event:` field, when the server sent one (Anthropic does; OpenAI does not). */
  event?: string;
  data: string;
};

/**
 * Where the bytes come from: the body itself, or a function that opens it (the request
 * then starts on the first `next()`, which keeps an adapter's stream lazy without an
 * async generator of its own around the reader).
 */
export type SseSource = AsyncIterable<Uint8Array> | (() => Promise<AsyncIterable<Uint8Array>>);

/**
 * The events of each network read, as one batch, in order: a consumer pays one async
 * step per read rather than one per event (an upstream's reply often arrives as one read
 * of many events). Reads that complete no event yield nothing. Comments and `retry:`
 * fields are dropped. An event left incomplete when the stream ends (no trailing blank
 * line, as some small servers do) is still delivered. Errors from the body propagate
 * unchanged; leaving early (`return`) stops the body.
 */
export function readSseBatches(source: SseSource): AsyncIterableIterator<SseEvent[]> {
  return new SseBatchReader(source);
}

/** readSseBatches as a plain iterator: an async generator cost a suspension and a resumption per read. */
class SseBatchReader implements AsyncIterableIterator<SseEvent[]> {
  readonly #source: SseSource;
  #body: AsyncIterator<Uint8Array> | undefined;
  #pending: SseEvent[] = [];
  #closed = false;
  readonly #parser = createParser({
    onEvent: (message) => {
      this.#pending.push(message.event === undefined ? { data: message.data } : { event: message.event, data: message.data });
    },
  });
  // Keeps a multi-byte character split across two reads intact. Node's StringDecoder takes
  // about half of TextDecoder's time on a read, but leaves a byte-order mark in: #feed drops it.
  readonly #decoder = new StringDecoder('utf8');
  #atStart = true;

  constructor(source: SseSource) {
    this.#source = source;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<SseEvent[]>> {
    if (this.#closed) return Promise.resolve(ITERATION_DONE);
    if (this.#body !== undefined) return this.#read(this.#body);
    const source = this.#source;
    if (typeof source !== 'function') return this.#read((this.#body = source[Symbol.asyncIterator]()));
    return source().then((body) => this.#read((this.#body = body[Symbol.asyncIterator]())), this.#failed);
  }

  async return(): Promise<IteratorResult<SseEvent[]>> {
    if (!this.#closed) {
      this.#closed = true;
      await this.#body?.return?.();
    }
    return ITERATION_DONE;
  }

  #read(body: AsyncIterator<Uint8Array>): Promise<IteratorResult<SseEvent[]>> {
    return body.next().then(this.#received, this.#failed);
  }

  readonly #received = (result: IteratorResult<Uint8Array>): IteratorResult<SseEvent[]> | Promise<IteratorResult<SseEvent[]>> => {
    if (result.done) {
      this.#closed = true;
      // Two newlines end a trailing line and dispatch it; after a clean end they are no-ops.
      this.#feed(`${this.#decoder.end()}\n\n`);
      return this.#pending.length > 0 ? { value: this.#take(), done: false } : ITERATION_DONE;
    }
    this.#feed(this.#decoder.write(result.value));
    if (this.#pending.length === 0) return this.#read(this.#body as AsyncIterator<Uint8Array>);
    return { value: this.#take(), done: false };
  };

  readonly #failed = (error: unknown): never => {
    this.#closed = true;
    throw error;
  };

  /** Text to the parser; a byte-order mark opening the stream is not part of it (the SSE spec). */
  #feed(text: string): void {
    if (this.#atStart && text !== '') {
      this.#atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.#parser.feed(text);
  }

  #take(): SseEvent[] {
    const batch = this.#pending;
    this.#pending = [];
    return batch;
  }
}
