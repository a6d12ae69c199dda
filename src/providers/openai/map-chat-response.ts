/**
 * OpenAI chat-completions response (non-streamed) → canonical ModelResponse, plus the
 * usage and finish-reason mapping the stream mapper shares.
 */
import { randomUUID } from 'node:crypto';
import type { AssistantPart, FinishReason, ModelResponse, Usage } from '../../core/model-types.ts';
import { parseUpstreamBody } from './parse-upstream-body.ts';
import { OpenAIChatResponseSchema, type OpenAIUsage } from './openai-wire-schemas.ts';
import { isPlainChatResponse } from './plain-chat-response.ts';

export function mapChatResponse(body: unknown, requestedModel: string): ModelResponse {
  const data = isPlainChatResponse(body) ? body : parseUpstreamBody(OpenAIChatResponseSchema, body, 'chat completion');
  const choice = data.choices[0];
  const message = choice?.message;
  const content: AssistantPart[] = [];
  const reasoning = message?.reasoning_content ?? message?.reasoning;
  if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  // A refusal replaces content; surfacing it as text keeps it visible to the caller.
  const text = message?.content ?? message?.refusal;
  if (text) content.push({ type: 'text', text });
  for (const call of message?.tool_calls ?? []) {
    content.push({
      type: 'tool-call',
      id: call.id || generateToolCallId(),
      name: call.function.name ?? '',
      arguments: call.function.arguments ?? '',
    });
  }
  return {
    id: data.id ?? `chatcmpl-${randomUUID()}`,
    model: data.model ?? requestedModel,
    content,
    usage: mapUsage(data.usage),
    finishReason: mapFinishReason(choice?.finish_reason),
  };
}

export function mapUsage(usage: OpenAIUsage | null | undefined): Usage {
  const result: Usage = { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 };
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? usage?.prompt_cache_hit_tokens;
  if (cached !== undefined && cached !== null) result.cachedInputTokens = cached;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined && reasoning !== null) result.reasoningTokens = reasoning;
  return result;
}

export function mapFinishReason(raw: string | null | undefined): FinishReason {
  const rawValue = raw ?? undefined;
  switch (rawValue) {
    case 'stop':
      return { unified: 'stop', raw: rawValue };
    case 'length':
      return { unified: 'length', raw: rawValue };
    case 'tool_calls':
    case 'function_call':
      return { unified: 'tool-calls', raw: rawValue };
    case 'content_filter':
      return { unified: 'content-filter', raw: rawValue };
    case 'error':
      return { unified: 'error', raw: rawValue };
    default:
      return { unified: 'other', raw: rawValue };
  }
}

/** Some compatible servers (older Ollama, Gemini's OpenAI layer) send tool calls without ids; we need one to round-trip the result. */
export const generateToolCallId = (): string => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
