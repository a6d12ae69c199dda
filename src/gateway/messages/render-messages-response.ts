import { parseToolArguments } from '../../core/tool-arguments.ts';
import { randomHex } from '../../core/random-hex.ts';
import { microsToUsd } from '../../core/money.ts';
import type { AssistantPart, FinishReason, ModelResponse, Usage } from '../../core/model-types.ts';

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal' | 'pause_turn' | 'model_context_window_exceeded';

export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export type AnthropicUsageOut = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** Junction extra: what the call cost in USD, as on the chat-completions endpoint. */
  cost?: number;
};

export type AnthropicMessageOut = {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: AnthropicStopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsageOut;
};

export type RenderMessagesOptions = {
  /** The catalog id the client asked for (not the upstream's name). */
  model: string;
  costMicros?: number;
  /** The request's stop_sequences: when exactly one was set, a stop_sequence stop names it. */
  stopSequences?: string[];
};

/**
 * Canonical response → Anthropic message object.
 *
 * - Tool arguments are JSON text canonically but an object here. Invalid JSON or a
 *   non-object (a truncated or confused model) becomes `{}`, the same rule the
 *   Anthropic adapter applies in the other direction; the stop_reason (usually
 *   max_tokens) tells the client why.
 * - Reasoning from other providers has no Anthropic signature; it is rendered as a
 *   thinking block with the signature it has (Gemini's thought signature, which round
 *   trips back to Gemini) or ''.
 * - `usage.cost` (USD) is an extra field; the official SDKs keep unknown fields.
 */
export function renderMessagesResponse(response: ModelResponse, options: RenderMessagesOptions): AnthropicMessageOut {
  const content = response.content.flatMap(renderBlock);
  const stopReason = renderStopReason(response.finishReason);
  return {
    id: messageId(response.id),
    type: 'message',
    role: 'assistant',
    model: options.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopSequenceFor(stopReason, options.stopSequences),
    usage: renderUsage(response.usage, options.costMicros),
  };
}

function renderBlock(part: AssistantPart): AnthropicContentBlock[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'reasoning':
      if (part.redactedData !== undefined) return [{ type: 'redacted_thinking', data: part.redactedData }];
      return [{ type: 'thinking', thinking: part.text, signature: part.signature ?? '' }];
    case 'tool-call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: parseToolArguments(part.arguments) }];
  }
}

const ANTHROPIC_STOP_REASONS = new Set<string>(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal', 'pause_turn', 'model_context_window_exceeded']);
const isAnthropicStopReason = (value: string | undefined): value is AnthropicStopReason => value !== undefined && ANTHROPIC_STOP_REASONS.has(value);

/** An Anthropic upstream's own reason wins (it is more precise); others map from the unified one. */
export function renderStopReason(finishReason: FinishReason): AnthropicStopReason {
  if (isAnthropicStopReason(finishReason.raw)) return finishReason.raw;
  switch (finishReason.unified) {
    case 'length':
      return 'max_tokens';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
      return 'refusal';
    default:
      // stop, error and other: the turn ended; Anthropic has no "error" stop reason.
      return 'end_turn';
  }
}

/** Canonical finish reasons do not carry the matched sequence; one configured sequence is unambiguous. */
export function stopSequenceFor(stopReason: AnthropicStopReason, stopSequences: string[] | undefined): string | null {
  if (stopReason !== 'stop_sequence' || stopSequences?.length !== 1) return null;
  return stopSequences[0] ?? null;
}

/** Canonical inputTokens includes cache reads and writes; Anthropic's input_tokens excludes both. */
export function renderUsage(usage: Usage, costMicros: number | undefined): AnthropicUsageOut {
  const cacheRead = usage.cachedInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.inputTokens - cacheRead - cacheWrite),
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
    ...(costMicros === undefined ? {} : { cost: microsToUsd(costMicros) }),
  };
}

/** Anthropic ids start with msg_; an upstream's own id is kept inside for tracing. */
export function messageId(upstreamId: string | undefined): string {
  if (upstreamId === undefined || upstreamId === '') return `msg_${randomHex(12)}`;
  return upstreamId.startsWith('msg_') ? upstreamId : `msg_${upstreamId}`;
}
