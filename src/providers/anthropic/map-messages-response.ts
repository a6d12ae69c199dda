import type { AssistantPart, FinishReason, ModelResponse, Usage } from '../../core/model-types.ts';
import { UpstreamError } from '../upstream-error.ts';
import { cacheInclusiveUsage } from '../cache-inclusive-usage.ts';
import { AnthropicMessageSchema, AnthropicResponseBlockSchema, type AnthropicUsage } from './anthropic-wire-schemas.ts';

/** Messages API response body (unvalidated JSON) → canonical response. */
export function mapMessagesResponse(body: unknown): ModelResponse {
  const parsed = AnthropicMessageSchema.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamError(`Anthropic returned an unexpected message body: ${parsed.error.message}`, {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream returned an unexpected response body',
    });
  }
  const message = parsed.data;
  const content: AssistantPart[] = [];
  for (const raw of message.content) {
    const block = AnthropicResponseBlockSchema.safeParse(raw);
    // Server-tool blocks (web search results…) have no canonical form; they are dropped.
    if (!block.success) continue;
    const value = block.data;
    switch (value.type) {
      case 'text':
        content.push({ type: 'text', text: value.text });
        break;
      case 'thinking':
        content.push({
          type: 'reasoning',
          text: value.thinking,
          ...(value.signature == null ? {} : { signature: value.signature }),
        });
        break;
      case 'redacted_thinking':
        content.push({ type: 'reasoning', text: '', redactedData: value.data });
        break;
      case 'tool_use':
        content.push({ type: 'tool-call', id: value.id, name: value.name, arguments: JSON.stringify(value.input ?? {}) });
        break;
    }
  }
  return {
    id: message.id,
    model: message.model,
    content,
    usage: mapAnthropicUsage(message.usage ?? {}),
    finishReason: mapStopReason(message.stop_reason),
  };
}

/** Anthropic's usage, its cache reads and writes counted in the input. */
export function mapAnthropicUsage(usage: AnthropicUsage): Usage {
  return cacheInclusiveUsage({ uncachedInput: usage.input_tokens, output: usage.output_tokens, cacheRead: usage.cache_read_input_tokens, cacheWrite: usage.cache_creation_input_tokens });
}

export function mapStopReason(raw: string | null | undefined): FinishReason {
  const value = raw ?? undefined;
  switch (value) {
    case 'end_turn':
    case 'stop_sequence':
      return { unified: 'stop', raw: value };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { unified: 'length', raw: value };
    case 'tool_use':
      return { unified: 'tool-calls', raw: value };
    case 'refusal':
      return { unified: 'content-filter', raw: value };
    default:
      // pause_turn (a server tool paused the turn) and anything new
      return { unified: 'other', raw: value };
  }
}
