import type { AssistantPart, FinishReason, ModelResponse, Usage } from '../../core/model-types.ts';
import { UpstreamError } from '../upstream-error.ts';
import { cacheInclusiveUsage } from '../cache-inclusive-usage.ts';
import { ConverseResponseBlockSchema, ConverseResponseSchema, type ConverseUsage } from './bedrock-wire-schemas.ts';

/** Converse answer (unvalidated JSON) → canonical response; Converse names neither the answer nor the model, so the caller does. */
export function mapConverseResponse(body: unknown, id: string, model: string): ModelResponse {
  const parsed = ConverseResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamError(`Bedrock returned an unexpected Converse body: ${parsed.error.message}`, {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream returned an unexpected response body',
    });
  }
  const content: AssistantPart[] = [];
  for (const raw of parsed.data.output.message.content) {
    const block = ConverseResponseBlockSchema.safeParse(raw);
    // Citations, guard content and other new blocks have no canonical form; they are dropped.
    if (!block.success) continue;
    const { text, toolUse, reasoningContent } = block.data;
    if (text != null) content.push({ type: 'text', text });
    else if (toolUse != null) content.push({ type: 'tool-call', id: toolUse.toolUseId, name: toolUse.name, arguments: JSON.stringify(toolUse.input ?? {}) });
    else if (reasoningContent?.reasoningText != null) {
      const { text: thought, signature } = reasoningContent.reasoningText;
      content.push({ type: 'reasoning', text: thought, ...(signature == null ? {} : { signature }) });
    } else if (reasoningContent?.redactedContent != null) content.push({ type: 'reasoning', text: '', redactedData: reasoningContent.redactedContent });
  }
  return { id, model, content, usage: mapConverseUsage(parsed.data.usage ?? {}), finishReason: mapStopReason(parsed.data.stopReason) };
}

/** Bedrock's usage, its cache reads and writes counted in the input (as the price data's own Bedrock extractor counts them). */
export function mapConverseUsage(usage: ConverseUsage): Usage {
  return cacheInclusiveUsage({ uncachedInput: usage.inputTokens, output: usage.outputTokens, cacheRead: usage.cacheReadInputTokens, cacheWrite: usage.cacheWriteInputTokens });
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
    case 'guardrail_intervened':
    case 'content_filtered':
      return { unified: 'content-filter', raw: value };
    default:
      return { unified: 'other', raw: value };
  }
}
