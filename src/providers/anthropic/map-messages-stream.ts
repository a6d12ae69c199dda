import type { ModelStreamEvent } from '../../core/model-types.ts';
import { mapSseStream, type SseEventMapping } from '../http/mapped-event-stream.ts';
import type { SseEvent } from '../http/sse-events.ts';
import { UpstreamError } from '../upstream-error.ts';
import { anthropicStreamError } from './anthropic-error.ts';
import { AnthropicDeltaSchema, AnthropicResponseBlockSchema, AnthropicStreamEventSchema, type AnthropicUsage } from './anthropic-wire-schemas.ts';
import { mapAnthropicUsage, mapStopReason } from './map-messages-response.ts';

/** What we remember about an open content block, keyed by Anthropic's block index. */
type OpenBlock = { kind: 'text' | 'thinking' | 'other' } | { kind: 'tool'; toolIndex: number; sawArguments: boolean };

/**
 * Messages API SSE events → canonical stream events.
 *
 * - Tool-call `index` is the ordinal among tool calls (0, 1, …), not Anthropic's block
 *   index, because that is what chat-completions clients expect.
 * - Usage is emitted once, before `finish`: input side from message_start, output side
 *   from message_delta (whose fields, when present, are cumulative and win).
 * - An `error` event throws UpstreamError; a stream that ends without message_stop
 *   throws too, so a truncated answer is never billed or shown as complete.
 */
export function mapMessagesStream(batches: AsyncIterable<SseEvent[]>): AsyncIterableIterator<ModelStreamEvent> {
  return mapSseStream(batches, new MessagesEventMapping());
}

class MessagesEventMapping implements SseEventMapping {
  readonly #blocks = new Map<number, OpenBlock>();
  #toolCount = 0;
  #usage: AnthropicUsage = {};
  #stopReason: string | null | undefined;

  /** True at message_stop: the answer is complete and the rest of the body is not read. */
  map(sse: SseEvent, out: ModelStreamEvent[]): boolean {
    if (sse.data.trim() === '') return false;
    const parsed = AnthropicStreamEventSchema.safeParse(parseJson(sse.data));
    // Unknown event types are allowed by Anthropic's versioning policy: skip them.
    if (!parsed.success) return false;
    const event = parsed.data;
    switch (event.type) {
      case 'message_start':
        this.#usage = { ...this.#usage, ...withoutNulls(event.message.usage ?? {}) };
        out.push({
          type: 'response-metadata',
          ...(event.message.id == null ? {} : { id: event.message.id }),
          ...(event.message.model == null ? {} : { model: event.message.model }),
        });
        return false;
      case 'content_block_start': {
        const block = AnthropicResponseBlockSchema.safeParse(event.content_block);
        if (!block.success) {
          this.#blocks.set(event.index, { kind: 'other' });
          return false;
        }
        const value = block.data;
        if (value.type === 'tool_use') {
          const toolIndex = this.#toolCount++;
          this.#blocks.set(event.index, { kind: 'tool', toolIndex, sawArguments: false });
          out.push({ type: 'tool-call-start', index: toolIndex, id: value.id, name: value.name });
        } else if (value.type === 'redacted_thinking') {
          this.#blocks.set(event.index, { kind: 'other' });
          out.push({ type: 'reasoning-redacted', data: value.data });
        } else {
          this.#blocks.set(event.index, { kind: value.type === 'text' ? 'text' : 'thinking' });
          // Starts normally carry empty text; a non-empty one is still content.
          if (value.type === 'text' && value.text !== '') out.push({ type: 'text-delta', delta: value.text });
          if (value.type === 'thinking' && value.thinking !== '') out.push({ type: 'reasoning-delta', delta: value.thinking });
        }
        return false;
      }
      case 'content_block_delta': {
        const delta = AnthropicDeltaSchema.safeParse(event.delta);
        if (!delta.success) return false;
        const value = delta.data;
        if (value.type === 'text_delta') out.push({ type: 'text-delta', delta: value.text });
        else if (value.type === 'thinking_delta') out.push({ type: 'reasoning-delta', delta: value.thinking });
        else if (value.type === 'signature_delta') out.push({ type: 'reasoning-signature', signature: value.signature });
        else {
          const block = this.#blocks.get(event.index);
          if (block?.kind !== 'tool' || value.partial_json === '') return false;
          block.sawArguments = true;
          out.push({ type: 'tool-call-delta', index: block.toolIndex, argumentsDelta: value.partial_json });
        }
        return false;
      }
      case 'content_block_stop': {
        const block = this.#blocks.get(event.index);
        // A tool without arguments streams no delta at all; clients still need valid JSON.
        if (block?.kind === 'tool' && !block.sawArguments) {
          out.push({ type: 'tool-call-delta', index: block.toolIndex, argumentsDelta: '{}' });
        }
        this.#blocks.delete(event.index);
        return false;
      }
      case 'message_delta':
        this.#usage = { ...this.#usage, ...withoutNulls(event.usage ?? {}) };
        this.#stopReason = event.delta.stop_reason ?? this.#stopReason;
        return false;
      case 'message_stop':
        out.push({ type: 'usage', usage: mapAnthropicUsage(this.#usage) });
        out.push({ type: 'finish', finishReason: mapStopReason(this.#stopReason) });
        return true;
      case 'error':
        throw anthropicStreamError(event.error);
      case 'ping':
        return false;
    }
    return false;
  }

  /** The body ended before message_stop (which stops reading): the answer was cut short. */
  end(): void {
    throw new UpstreamError('Anthropic stream ended before message_stop', {
      status: 0,
      upstreamMessage: 'upstream stream ended before the message was complete',
    });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** message_delta repeats usage fields as null; they must not erase message_start's numbers. */
function withoutNulls(usage: AnthropicUsage): AnthropicUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value != null));
}
