/**
 * Server-sent events from an upstream byte stream. Shared by every streaming adapter
 * so that chunk boundaries, CRLF line endings, multi-line `data:` fields and comments
 * (`: keep-alive` pings from OpenRouter and others) are handled in one place, by the
 * spec-complete `eventsource-parser` rather than by string splitting.
 */
import { createParser } from 'eventsource-parser';

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
 * unchanged.
 */
export async function* readSseBatches(source: SseSource): AsyncGenerator<SseEvent[]> {
  let pending: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      pending.push(message.event === undefined ? { data: message.data } : { event: message.event, data: message.data });
    },
  });
  // `stream: true` keeps a multi-byte character split across two chunks intact.
  const decoder = new TextDecoder();
  const body = typeof source === 'function' ? await source() : source;
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (pending.length === 0) continue;
    const batch = pending;
    pending = [];
    yield batch;
  }
  // Two newlines end a trailing line and dispatch it; after a clean end they are no-ops.
  parser.feed(`${decoder.decode()}\n\n`);
  if (pending.length > 0) yield pending;
}
