import type { FinishReason, ModelResponse, Usage } from '../../core/model-types.ts';
import { microsToUsd } from '../../core/money.ts';

export const toChatFinishReason = (reason: FinishReason): string => {
  switch (reason.unified) {
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    default:
      return 'stop';
  }
};

/**
 * OpenAI's usage object, plus `cost` in USD and, when a provider wrote to its prompt cache,
 * `prompt_tokens_details.cache_write_tokens` (OpenRouter's field names).
 */
export const toChatUsage = (usage: Usage, costMicros: number) => ({
  prompt_tokens: usage.inputTokens,
  completion_tokens: usage.outputTokens,
  total_tokens: usage.inputTokens + usage.outputTokens,
  prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0, ...(usage.cacheWriteTokens ? { cache_write_tokens: usage.cacheWriteTokens } : {}) },
  completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  cost: microsToUsd(costMicros),
});

/** toChatUsage's JSON, written by hand: a streamed answer's last chunk (the object and its serialization showed in stream profiles). */
export const chatUsageJson = (usage: Usage, costMicros: number): string =>
  `{"prompt_tokens":${json(usage.inputTokens)},"completion_tokens":${json(usage.outputTokens)},"total_tokens":${json(usage.inputTokens + usage.outputTokens)},` +
  `"prompt_tokens_details":{"cached_tokens":${json(usage.cachedInputTokens ?? 0)}${usage.cacheWriteTokens ? `,"cache_write_tokens":${json(usage.cacheWriteTokens)}` : ''}},"completion_tokens_details":{"reasoning_tokens":${json(usage.reasoningTokens ?? 0)}},` +
  `"cost":${json(microsToUsd(costMicros))}}`;

/** A number as JSON.stringify writes it (null for NaN and the infinities, as the object's serialization did). */
const json = (value: number): string => JSON.stringify(value);

type CompletionMeta = { id: string; model: string; created: number; costMicros: number; provider: string };

const OPENING_KEYS = new Set(['id', 'object', 'created', 'model', 'provider']);

/**
 * `{"id":…,"object":<object>,"created":…,"model":…,"provider":…,` and any `extra` fields:
 * what JSON.stringify of that object gives without its closing brace, written by hand (a
 * completion's, or a stream's chunks', once per stream: the object with `extra` spread into
 * it and its serialization showed in profiles). An `extra` field that would replace one of
 * the five keeps the object's way, so its value lands in that field's place.
 */
export function completionOpening(object: 'chat.completion' | 'chat.completion.chunk', meta: Omit<CompletionMeta, 'costMicros'>, extra?: Record<string, unknown>): string {
  if (extra !== undefined && Object.keys(extra).some((key) => OPENING_KEYS.has(key))) {
    return `${JSON.stringify({ id: meta.id, object, created: meta.created, model: meta.model, provider: meta.provider, ...extra }).slice(0, -1)},`;
  }
  let opening = `{"id":${JSON.stringify(meta.id)},"object":"${object}","created":${json(meta.created)},"model":${JSON.stringify(meta.model)},"provider":${JSON.stringify(meta.provider)},`;
  if (extra !== undefined) {
    for (const key in extra) {
      const value = JSON.stringify(extra[key]);
      // JSON.stringify leaves out a field whose value has no JSON (undefined, a function).
      if (value !== undefined) opening += `${JSON.stringify(key)}:${value},`;
    }
  }
  return opening;
}

type ChatToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

/**
 * The answer's text, reasoning and tool calls as a chat completion's message carries them,
 * in one pass: three `flatMap`s over the parts (and their joins) were 2.2 µs of a JSON call.
 */
function answerOf(response: ModelResponse): { text: string; reasoning: string; toolCalls: ChatToolCall[] } {
  let text = '';
  let reasoning = '';
  const toolCalls: ChatToolCall[] = [];
  for (const part of response.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else if (part.type === 'tool-call') toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
  }
  return { text, reasoning, toolCalls };
}

export function renderChatCompletion(response: ModelResponse, meta: CompletionMeta, extra?: Record<string, unknown>): Record<string, unknown> {
  const { text, reasoning, toolCalls } = answerOf(response);
  const completion: Record<string, unknown> = { id: meta.id, object: 'chat.completion', created: meta.created, model: meta.model, provider: meta.provider };
  // Extra fields (an agent's conversation ids) go in before the choices, assigned rather than
  // spread mid-literal: every field after a spread took the runtime's slow path per answer.
  if (extra !== undefined) Object.assign(completion, extra);
  completion['choices'] = [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: text.length > 0 || toolCalls.length === 0 ? text : null,
        refusal: null,
        ...(reasoning && { reasoning }),
        ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      },
      logprobs: null,
      finish_reason: toChatFinishReason(response.finishReason),
    },
  ];
  completion['usage'] = toChatUsage(response.usage, meta.costMicros);
  return completion;
}

/**
 * JSON.stringify(renderChatCompletion(response, meta)), written by hand: the gateway's
 * answer to every non-streamed call. Building the object and fastify's serialization of it
 * were 6.5 µs of a JSON call's CPU in the gateway's profile, as much as parsing the
 * upstream's answer; only the texts are serialized here, as a stream's chunks are.
 */
export function chatCompletionJson(response: ModelResponse, meta: CompletionMeta): string {
  const { text, reasoning, toolCalls } = answerOf(response);
  const content = text.length > 0 || toolCalls.length === 0 ? JSON.stringify(text) : 'null';
  const message =
    `{"role":"assistant","content":${content},"refusal":null` +
    (reasoning ? `,"reasoning":${JSON.stringify(reasoning)}` : '') +
    (toolCalls.length > 0 ? `,"tool_calls":${JSON.stringify(toolCalls)}` : '') +
    '}';
  return (
    `${completionOpening('chat.completion', meta)}"choices":[{"index":0,"message":${message},"logprobs":null,"finish_reason":${JSON.stringify(toChatFinishReason(response.finishReason))}}],` +
    `"usage":${chatUsageJson(response.usage, meta.costMicros)}}`
  );
}
