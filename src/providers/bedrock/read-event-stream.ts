/**
 * ConverseStream's `application/vnd.amazon.eventstream` body → batches of its events, one
 * batch per network read (as readSseBatches does for SSE), so the shared mapped stream
 * maps them. Each binary frame is cut at its length prefix and decoded by Smithy's
 * event-stream codec, which checks both CRCs and parses the typed headers. An event comes
 * out as `{ event: <:event-type>, data: <JSON payload> }`; an exception frame is thrown,
 * after the events of its read, as the UpstreamError of its exception type.
 */
import { EventStreamCodec, type Message } from '@smithy/core/event-streams';
import { ITERATION_DONE } from '../../core/iteration-done.ts';
import type { SseEvent } from '../http/sse-events.ts';
import { UpstreamError } from '../upstream-error.ts';
import { bedrockStreamError } from './bedrock-error.ts';

/** Prelude (total and header lengths, prelude CRC) and the message CRC. */
const FRAME_OVERHEAD_BYTES = 16;
/** Bedrock's frames are small events; a length beyond this is a corrupt prefix, not a frame to wait for. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const codec = new EventStreamCodec(
  (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
  (text: string) => Buffer.from(text, 'utf8'),
);

export type EventStreamSource = () => Promise<AsyncIterable<Uint8Array>>;

export function readEventStreamBatches(source: EventStreamSource): AsyncIterableIterator<SseEvent[]> {
  return new EventStreamBatchReader(source);
}

class EventStreamBatchReader implements AsyncIterableIterator<SseEvent[]> {
  readonly #source: EventStreamSource;
  #body: AsyncIterator<Uint8Array> | undefined;
  /** Bytes of a frame not complete yet. */
  #rest: Buffer = Buffer.alloc(0);
  /** An exception frame met while reading: thrown once the events before it are handed out. */
  #failure: UpstreamError | undefined;
  #closed = false;

  constructor(source: EventStreamSource) {
    this.#source = source;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<SseEvent[]>> {
    if (this.#failure !== undefined) {
      const failure = this.#failure;
      this.#failure = undefined;
      await this.return();
      throw failure;
    }
    if (this.#closed) return ITERATION_DONE;
    this.#body ??= (await this.#source())[Symbol.asyncIterator]();
    for (;;) {
      const read = await this.#body.next();
      if (read.done) {
        this.#closed = true;
        if (this.#rest.length > 0) {
          throw new UpstreamError('Bedrock event stream ended inside a frame', { status: 0, upstreamMessage: 'upstream stream ended before the message was complete' });
        }
        return ITERATION_DONE;
      }
      let events: SseEvent[];
      try {
        events = this.#take(Buffer.from(read.value.buffer, read.value.byteOffset, read.value.byteLength));
      } catch (error) {
        await this.return();
        throw error;
      }
      if (events.length > 0) return { value: events, done: false };
      if (this.#failure !== undefined) return this.next();
    }
  }

  async return(): Promise<IteratorResult<SseEvent[]>> {
    if (!this.#closed) {
      this.#closed = true;
      await this.#body?.return?.();
    }
    return ITERATION_DONE;
  }

  /** The whole frames now buffered, as events; a partial one stays for the next read. */
  #take(chunk: Buffer): SseEvent[] {
    let bytes = this.#rest.length === 0 ? chunk : Buffer.concat([this.#rest, chunk]);
    const events: SseEvent[] = [];
    while (bytes.length >= 4 && this.#failure === undefined) {
      const length = bytes.readUInt32BE(0);
      if (length < FRAME_OVERHEAD_BYTES || length > MAX_FRAME_BYTES) throw malformed(`a frame of ${length} bytes`);
      if (bytes.length < length) break;
      const frame = bytes.subarray(0, length);
      bytes = bytes.subarray(length);
      let message: Message;
      try {
        message = codec.decode(frame);
      } catch (error) {
        throw malformed(error instanceof Error ? error.message : String(error));
      }
      const event = toEvent(message);
      if (event instanceof UpstreamError) this.#failure = event;
      else if (event !== undefined) events.push(event);
    }
    this.#rest = bytes.length === 0 ? Buffer.alloc(0) : Buffer.from(bytes);
    return events;
  }
}

function toEvent(message: Message): SseEvent | UpstreamError | undefined {
  const messageType = headerText(message, ':message-type') ?? 'event';
  const data = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength).toString('utf8');
  if (messageType === 'exception') return bedrockStreamError(headerText(message, ':exception-type') ?? 'internalServerException', parseJson(data));
  if (messageType === 'error') {
    const code = headerText(message, ':error-code') ?? 'InternalServerException';
    return bedrockStreamError(code, { message: headerText(message, ':error-message') ?? data });
  }
  const type = headerText(message, ':event-type');
  return type === undefined ? undefined : { event: type, data };
}

function headerText(message: Message, name: string): string | undefined {
  const header = message.headers[name];
  return header?.type === 'string' ? header.value : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text };
  }
}

/** A frame that fails its checks: the bytes are not Bedrock's, so nothing after them can be trusted. */
const malformed = (detail: string): UpstreamError =>
  new UpstreamError(`Bedrock event stream is malformed: ${detail}`, { status: 502, retryable: false, upstreamMessage: 'upstream sent a malformed event stream' });
