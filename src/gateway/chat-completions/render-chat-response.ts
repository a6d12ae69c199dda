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

/** OpenAI's usage object, plus `cost` in USD (OpenRouter's field name). */
export const toChatUsage = (usage: Usage, costMicros: number) => ({
  prompt_tokens: usage.inputTokens,
  completion_tokens: usage.outputTokens,
  total_tokens: usage.inputTokens + usage.outputTokens,
  prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
  completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  cost: microsToUsd(costMicros),
});

/** toChatUsage's JSON, written by hand: a streamed answer's last chunk (the object and its serialization showed in stream profiles). */
export const chatUsageJson = (usage: Usage, costMicros: number): string =>
  `{"prompt_tokens":${json(usage.inputTokens)},"completion_tokens":${json(usage.outputTokens)},"total_tokens":${json(usage.inputTokens + usage.outputTokens)},` +
  `"prompt_tokens_details":{"cached_tokens":${json(usage.cachedInputTokens ?? 0)}},"completion_tokens_details":{"reasoning_tokens":${json(usage.reasoningTokens ?? 0)}},` +
  `"cost":${json(microsToUsd(costMicros))}}`;

/** A number as JSON.stringify writes it (null for NaN and the infinities, as the object's serialization did). */
const json = (value: number): string => JSON.stringify(value);

export function renderChatCompletion(
  response: ModelResponse,
  meta: { id: string; model: string; created: number; costMicros: number; provider: string },
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  const text = response.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const reasoning = response.content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
  const toolCalls = response.content.flatMap((part) =>
    part.type === 'tool-call' ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } }] : [],
  );
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
