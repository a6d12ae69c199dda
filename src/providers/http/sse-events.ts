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
 * Yields one `SseEvent` per dispatched event, in order. Comments and `retry:` fields are
 * dropped. An event left incomplete when the stream ends (no trailing blank line, as
 * some small servers do) is still delivered. Errors from `body` propagate unchanged.
 */
export async function* readSseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const pending: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      pending.push(message.event === undefined ? { data: message.data } : { event: message.event, data: message.data });
    },
  });
  // `stream: true` keeps a multi-byte character split across two chunks intact.
  const decoder = new TextDecoder();
  // Plain loops over the parsed events: `yield*` of a sync iterable inside an async
  // generator wraps every element in a promise of its own.
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    for (const event of pending.splice(0)) yield event;
  }
  // Two newlines end a trailing line and dispatch it; after a clean end they are no-ops.
  parser.feed(`${decoder.decode()}\n\n`);
  for (const event of pending.splice(0)) yield event;
}
