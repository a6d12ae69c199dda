import { isPlainRecord } from '../../core/plain-record.ts';
import type { OpenAIChatResponse } from './openai-wire-schemas.ts';
import { isOptionalString, isPlainUsage } from './plain-usage.ts';

/**
 * The answer nearly every non-streamed call gets (text, reasoning or a refusal, a finish
 * reason, usage), checked by hand: what OpenAIChatResponseSchema would accept unchanged,
 * so the schema only sees the rest (tool calls, the unexpected) and words its errors. The
 * schema's parse was about 1.5% of a JSON call's CPU in a profile. A test holds the two
 * together over generated answers.
 */
export function isPlainChatResponse(body: unknown): body is OpenAIChatResponse {
  if (!isPlainRecord(body) || !isOptionalString(body.id) || !isOptionalString(body.model) || !isPlainUsage(body.usage)) return false;
  const choices = body.choices;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) {
    if (!isPlainRecord(choice) || !isOptionalString(choice.finish_reason)) return false;
    const message = choice.message;
    if (!isPlainRecord(message) || message.tool_calls != null) return false;
    if (!isOptionalString(message.role) || !isOptionalString(message.content) || !isOptionalString(message.refusal)) return false;
    if (!isOptionalString(message.reasoning_content) || !isOptionalString(message.reasoning)) return false;
  }
  return true;
}
