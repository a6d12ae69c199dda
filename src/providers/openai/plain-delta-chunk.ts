import { isPlainRecord } from '../../core/plain-record.ts';
import type { OpenAIChatChunk } from './openai-wire-schemas.ts';
import { isOptionalString, isPlainUsage } from './plain-usage.ts';

/**
 * The chunk nearly every event is (text or reasoning deltas, a finish reason, the usage at
 * the end), checked by hand: what OpenAIChatChunkSchema would accept unchanged, so the
 * schema only sees the rest (tool calls, Groq's usage, errors, the unexpected). Saves most
 * of a stream's validation time; the usage chunk alone, through the schema, cost about 2%
 * of a streamed call's CPU. A test holds the two together over generated chunks.
 */
export function isPlainDeltaChunk(json: unknown): json is OpenAIChatChunk {
  if (!isPlainRecord(json) || !isOptionalString(json.id) || !isOptionalString(json.model)) return false;
  if (json.x_groq != null || 'error' in json || !isPlainUsage(json.usage)) return false;
  const choices = json.choices;
  if (choices === undefined || choices === null) return true;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) {
    if (!isPlainRecord(choice) || !isOptionalString(choice.finish_reason)) return false;
    const delta = choice.delta;
    if (delta === undefined || delta === null) continue;
    if (!isPlainRecord(delta) || delta.tool_calls != null) return false;
    if (!isOptionalString(delta.content) || !isOptionalString(delta.refusal) || !isOptionalString(delta.reasoning_content) || !isOptionalString(delta.reasoning)) return false;
  }
  return true;
}
