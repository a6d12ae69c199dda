import { isPlainRecord } from '../../core/plain-record.ts';
import type { CreateResponseRequest } from './response-request-schema.ts';

/** Fields a plain request may carry; anything else goes through the schema. */
const PLAIN_FIELDS = new Set(['model', 'input', 'instructions', 'stream', 'store', 'previous_response_id', 'temperature', 'max_output_tokens', 'background', 'generate']);
const FLAGS = ['stream', 'store', 'background', 'generate'] as const;

const isAbsentOr = (record: Record<string, unknown>, field: string, check: (value: unknown) => boolean): boolean => !(field in record) || record[field] === null || check(record[field]);

/**
 * The request nearly every Responses call is (an agent, a string input, a few flags),
 * checked by hand and turned into exactly what CreateResponseSchema produces for it (the
 * string becomes one user message item); undefined leaves the request to the schema,
 * which also words the errors. The schema's parse (a preprocess, then a union of every
 * input item type) cost 0.1–0.2 ms per call in the agent bench's profile. A test holds
 * the two to each other over generated requests.
 */
export function plainResponseRequest(body: unknown): CreateResponseRequest | undefined {
  if (!isPlainRecord(body)) return undefined;
  for (const key in body) if (!PLAIN_FIELDS.has(key)) return undefined;
  if (typeof body.model !== 'string' || body.model.length === 0 || typeof body.input !== 'string') return undefined;
  for (const flag of FLAGS) if (!isAbsentOr(body, flag, (value) => typeof value === 'boolean')) return undefined;
  if (!isAbsentOr(body, 'instructions', (value) => typeof value === 'string')) return undefined;
  if (!isAbsentOr(body, 'previous_response_id', (value) => typeof value === 'string' && value.length > 0)) return undefined;
  if (!isAbsentOr(body, 'temperature', (value) => typeof value === 'number' && value >= 0 && value <= 2)) return undefined;
  if (!isAbsentOr(body, 'max_output_tokens', (value) => Number.isSafeInteger(value) && (value as number) >= 16)) return undefined;
  return { ...body, input: [{ type: 'message', role: 'user', content: body.input }] } as CreateResponseRequest;
}
