import type { ModelStreamEvent } from '../../core/model-types.ts';
import type { SseEvent } from '../http/sse-events.ts';
import { UpstreamError } from '../upstream-error.ts';
import { anthropicStreamError } from './anthropic-error.ts';
import {
  AnthropicDeltaSchema,
  AnthropicResponseBlockSchema,
  AnthropicStreamEventSchema,
  type AnthropicUsage,
} from './anthropic-wire-schemas.ts';
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
export async function* mapMessagesStream(batches: AsyncIterable<SseEvent[]>): AsyncGenerator<ModelStreamEvent> {
  const blocks = new Map<number, OpenBlock>();
  let toolCount = 0;
  let usage: AnthropicUsage = {};
  let stopReason: string | null | undefined;
  let finished = false;

  for await (const batch of batches) for (const sse of batch) {
    if (sse.data.trim() === '') continue;
    const parsed = AnthropicStreamEventSchema.safeParse(parseJson(sse.data));
    // Unknown event types are allowed by Anthropic's versioning policy: skip them.
    if (!parsed.success) continue;
    const event = parsed.data;
    switch (event.type) {
      case 'message_start':
        usage = { ...usage, ...withoutNulls(event.message.usage ?? {}) };
        yield {
          type: 'response-metadata',
          ...(event.message.id == null ? {} : { id: event.message.id }),
          ...(event.message.model == null ? {} : { model: event.message.model }),
        };
        break;
      case 'content_block_start': {
        const block = AnthropicResponseBlockSchema.safeParse(event.content_block);
        if (!block.success) {
          blocks.set(event.index, { kind: 'other' });
          break;
        }
        const value = block.data;
        if (value.type === 'tool_use') {
          const toolIndex = toolCount++;
          blocks.set(event.index, { kind: 'tool', toolIndex, sawArguments: false });
          yield { type: 'tool-call-start', index: toolIndex, id: value.id, name: value.name };
        } else if (value.type === 'redacted_thinking') {
          blocks.set(event.index, { kind: 'other' });
          yield { type: 'reasoning-redacted', data: value.data };
        } else {
          blocks.set(event.index, { kind: value.type === 'text' ? 'text' : 'thinking' });
          // Starts normally carry empty text; a non-empty one is still content.
          if (value.type === 'text' && value.text !== '') yield { type: 'text-delta', delta: value.text };
          if (value.type === 'thinking' && value.thinking !== '') yield { type: 'reasoning-delta', delta: value.thinking };
        }
        break;
      }
      case 'content_block_delta': {
        const delta = AnthropicDeltaSchema.safeParse(event.delta);
        if (!delta.success) break;
        const value = delta.data;
        if (value.type === 'text_delta') yield { type: 'text-delta', delta: value.text };
        else if (value.type === 'thinking_delta') yield { type: 'reasoning-delta', delta: value.thinking };
        else if (value.type === 'signature_delta') yield { type: 'reasoning-signature', signature: value.signature };
        else {
          const block = blocks.get(event.index);
          if (block?.kind !== 'tool' || value.partial_json === '') break;
          block.sawArguments = true;
          yield { type: 'tool-call-delta', index: block.toolIndex, argumentsDelta: value.partial_json };
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(event.index);
        // A tool without arguments streams no delta at all; clients still need valid JSON.
        if (block?.kind === 'tool' && !block.sawArguments) {
          yield { type: 'tool-call-delta', index: block.toolIndex, argumentsDelta: '{}' };
        }
        blocks.delete(event.index);
        break;
      }
      case 'message_delta':
        usage = { ...usage, ...withoutNulls(event.usage ?? {}) };
        stopReason = event.delta.stop_reason ?? stopReason;
        break;
      case 'message_stop':
        finished = true;
        yield { type: 'usage', usage: mapAnthropicUsage(usage) };
        yield { type: 'finish', finishReason: mapStopReason(stopReason) };
        break;
      case 'error':
        throw anthropicStreamError(event.error);
      case 'ping':
        break;
    }
    if (finished) return;
  }
  throw new UpstreamError('Anthropic stream ended before message_stop', {
    status: 0,
    upstreamMessage: 'upstream stream ended before the message was complete',
  });
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
