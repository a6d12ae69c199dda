import { isPlainRecord } from '../../core/plain-record.ts';

export const isOptionalString = (value: unknown): boolean => value === undefined || value === null || typeof value === 'string';
export const isOptionalNumber = (value: unknown): boolean => value === undefined || value === null || typeof value === 'number';

/** `{ <field>: number | null }` or absent, other fields free (the schema's loose details objects). */
const isOptionalDetails = (value: unknown, field: string): boolean => value === undefined || value === null || (isPlainRecord(value) && isOptionalNumber(value[field]));

/**
 * The usage object OpenAI and most compatible servers send (absent or null included), as
 * OpenAIUsageSchema accepts it unchanged: the part of the hand checks of chunks and
 * responses that reads usage.
 */
export function isPlainUsage(usage: unknown): boolean {
  if (usage === undefined || usage === null) return true;
  if (!isPlainRecord(usage)) return false;
  return (
    isOptionalNumber(usage.prompt_tokens) &&
    isOptionalNumber(usage.completion_tokens) &&
    isOptionalNumber(usage.total_tokens) &&
    isOptionalNumber(usage.prompt_cache_hit_tokens) &&
    isOptionalDetails(usage.prompt_tokens_details, 'cached_tokens') &&
    isOptionalDetails(usage.completion_tokens_details, 'reasoning_tokens')
  );
}
