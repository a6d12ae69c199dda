import { randomUUID } from 'node:crypto';
import type { AssistantPart, FinishReason, ModelResponse, Usage } from '../../core/model-types.ts';
import { UpstreamError } from '../upstream-error.ts';
import { CohereChatResponseSchema, CohereContentItemSchema, type CohereUsage } from './cohere-wire-schemas.ts';

/** Cohere v2 chat answer (unvalidated JSON) → canonical response: thinking, then the tool plan (both reasoning, in the order the model wrote them), text, tool calls. */
export function mapCohereResponse(body: unknown, model: string): ModelResponse {
  const parsed = CohereChatResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamError(`Cohere returned an unexpected chat body: ${parsed.error.message}`, {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream returned an unexpected response body',
    });
  }
  const { message } = parsed.data;
  const content: AssistantPart[] = [];
  const texts: AssistantPart[] = [];
  for (const raw of message.content ?? []) {
    const item = CohereContentItemSchema.safeParse(raw);
    // Images, documents and other new content types have no canonical form; they are dropped.
    if (!item.success) continue;
    if (item.data.type === 'thinking' && item.data.thinking != null) content.push({ type: 'reasoning', text: item.data.thinking });
    else if ((item.data.type ?? 'text') === 'text' && item.data.text != null) texts.push({ type: 'text', text: item.data.text });
  }
  if (message.tool_plan != null && message.tool_plan !== '') content.push({ type: 'reasoning', text: message.tool_plan });
  content.push(...texts);
  for (const call of message.tool_calls ?? []) {
    content.push({ type: 'tool-call', id: call.id ?? `call_${randomUUID()}`, name: call.function?.name ?? '', arguments: nonEmptyArguments(call.function?.arguments) });
  }
  return {
    id: parsed.data.id ?? randomUUID(),
    model,
    content,
    usage: mapCohereUsage(parsed.data.usage),
    finishReason: mapCohereFinishReason(parsed.data.finish_reason),
  };
}

/** A tool without parameters may come with no arguments; clients still need valid JSON. */
export const nonEmptyArguments = (text: string | null | undefined): string => (text == null || text === '' ? '{}' : text);

/**
 * `billed_units` are what Cohere charges for (the caller's tokens); `tokens` also count the
 * prompt template Cohere wraps around them, so they are the fallback only.
 */
export function mapCohereUsage(usage: CohereUsage | null | undefined): Usage {
  const billed = usage?.billed_units;
  const tokens = usage?.tokens;
  return {
    inputTokens: billed?.input_tokens ?? tokens?.input_tokens ?? 0,
    outputTokens: billed?.output_tokens ?? tokens?.output_tokens ?? 0,
  };
}

export function mapCohereFinishReason(raw: string | null | undefined): FinishReason {
  const value = raw ?? undefined;
  switch (value) {
    case 'COMPLETE':
    case 'STOP_SEQUENCE':
      return { unified: 'stop', raw: value };
    case 'MAX_TOKENS':
      return { unified: 'length', raw: value };
    case 'TOOL_CALL':
      return { unified: 'tool-calls', raw: value };
    case 'ERROR':
      return { unified: 'error', raw: value };
    default:
      return { unified: 'other', raw: value };
  }
}
