import type { AssistantPart, FinishReason, ModelResponse, Usage } from '../../core/model-types.ts';
import { UpstreamError } from '../upstream-error.ts';
import { GeminiGenerateResponseSchema, type GeminiGenerateResponse, type GeminiResponsePart, type GeminiUsageMetadata } from './gemini-wire-schemas.ts';

/** generateContent response body (unvalidated JSON) → canonical response. */
export function mapGenerateResponse(body: unknown, requestedModel: string): ModelResponse {
  const response = parseGenerateResponse(body);
  const content: AssistantPart[] = [];
  let toolCount = 0;
  for (const part of response.candidates?.[0]?.content?.parts ?? []) {
    content.push(...mapPart(part, () => `call_${toolCount++}`));
  }
  return {
    id: response.responseId ?? '',
    model: response.modelVersion ?? requestedModel,
    content,
    usage: mapGeminiUsage(response.usageMetadata ?? {}),
    finishReason: mapFinishReason(
      response,
      content.some((part) => part.type === 'tool-call'),
    ),
  };
}

export function parseGenerateResponse(body: unknown): GeminiGenerateResponse {
  const parsed = GeminiGenerateResponseSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new UpstreamError(`Gemini returned an unexpected body: ${parsed.error.message}`, {
    status: 502,
    retryable: false,
    upstreamMessage: 'upstream returned an unexpected response body',
  });
}

/**
 * One Gemini part → canonical parts. `thought: true` text is reasoning. A signature on
 * any other part (Gemini puts them on function calls and final text) becomes a bare
 * reasoning part right before it, which convert-generate-request.ts re-attaches to the
 * same part on the next turn. Gemini gives function calls no id (or an id of its own):
 * we keep Gemini's when present, else number them `call_<n>` within the response.
 */
export function mapPart(part: GeminiResponsePart, nextToolId: () => string): AssistantPart[] {
  const signature = part.thoughtSignature ?? undefined;
  if (part.thought === true) {
    return [{ type: 'reasoning', text: part.text ?? '', ...(signature === undefined ? {} : { signature }) }];
  }
  const parts: AssistantPart[] = signature === undefined ? [] : [{ type: 'reasoning', text: '', signature }];
  if (part.functionCall != null) {
    const id = part.functionCall.id ?? nextToolId();
    parts.push({ type: 'tool-call', id, name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) });
  } else if (part.text != null && part.text !== '') {
    parts.push({ type: 'text', text: part.text });
  }
  return parts;
}

/**
 * Gemini's candidatesTokenCount excludes thinking, which is billed as output too, so
 * canonical outputTokens = candidates + thoughts. promptTokenCount already includes
 * cached tokens; tool-use prompt tokens (search, code execution) are billed as input.
 */
export function mapGeminiUsage(usage: GeminiUsageMetadata): Usage {
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const cached = usage.cachedContentTokenCount ?? 0;
  return {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    ...(cached > 0 ? { cachedInputTokens: cached } : {}),
    ...(thoughts > 0 ? { reasoningTokens: thoughts } : {}),
  };
}

const CONTENT_FILTER_REASONS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT']);
const TOOL_ERROR_REASONS = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']);

/** Gemini says STOP even after function calls, so `sawToolCall` decides between stop and tool-calls. */
export function mapFinishReason(response: GeminiGenerateResponse, sawToolCall: boolean): FinishReason {
  const raw = response.candidates?.[0]?.finishReason ?? undefined;
  // A blocked prompt has no candidates at all, only promptFeedback.
  if (raw === undefined) {
    const blocked = response.promptFeedback?.blockReason ?? undefined;
    return blocked === undefined ? { unified: 'other', raw: undefined } : { unified: 'content-filter', raw: blocked };
  }
  return mapFinishReasonValue(raw, sawToolCall);
}

export function mapFinishReasonValue(raw: string, sawToolCall: boolean): FinishReason {
  if (raw === 'STOP') return { unified: sawToolCall ? 'tool-calls' : 'stop', raw };
  if (raw === 'MAX_TOKENS') return { unified: 'length', raw };
  if (CONTENT_FILTER_REASONS.has(raw)) return { unified: 'content-filter', raw };
  if (TOOL_ERROR_REASONS.has(raw)) return { unified: 'error', raw };
  return { unified: 'other', raw };
}
