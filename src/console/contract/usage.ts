import { z } from 'zod';
import { USAGE_GROUPINGS, UsageFilterFields } from '../../billing/usage-filter-schema.ts';

export { USAGE_OUTCOMES, USAGE_STATUS_FILTERS } from '../../billing/usage-status.ts';

/** The Usage page's query: the usage log's filters (shared with `GET /v1/usage`) and a page. */
export const UsageQuerySchema = z.object({
  ...UsageFilterFields,
  /** Opaque cursor from `next_cursor`. */
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type UsageQuery = z.input<typeof UsageQuerySchema>;

export const UsageEntrySchema = z.object({
  id: z.string(),
  key_id: z.string().nullable(),
  key_name: z.string().nullable(),
  request_id: z.string(),
  endpoint: z.string(),
  requested_model: z.string().nullable(),
  model: z.string().nullable(),
  provider: z.string().nullable(),
  status: z.string(),
  /** What the status means to people: success, error or refused (usage-status.ts). */
  outcome: z.enum(['success', 'error', 'refused']),
  http_status: z.number().nullable(),
  error_code: z.string().nullable(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cached_input_tokens: z.number(),
  /** Input tokens written to the provider's prompt cache, priced at the cache-write rate. */
  cache_write_tokens: z.number(),
  reasoning_tokens: z.number(),
  cost_usd: z.number(),
  latency_ms: z.number().nullable(),
  attempts: z.number(),
  streamed: z.boolean(),
  /** Answered from the gateway's response cache, without calling the provider. */
  cache_hit: z.boolean(),
  agent_id: z.string().nullable(),
  /** The agent version that made the call: a staged release's share shows here. */
  agent_version: z.string().nullable(),
  agent_run_id: z.string().nullable(),
  created_at: z.string(),
});
export type UsageEntry = z.infer<typeof UsageEntrySchema>;

export const UsagePageSchema = z.object({ data: z.array(UsageEntrySchema), next_cursor: z.string().nullable() });

export { USAGE_GROUPINGS };

/** Group-by: the same filters, a grouping, and for days the caller's time zone (an IANA name). */
export const UsageSummaryQuerySchema = z.object({
  ...UsageFilterFields,
  group_by: z.enum(USAGE_GROUPINGS),
  time_zone: z.string().max(64).default('UTC'),
});
export type UsageSummaryQuery = z.input<typeof UsageSummaryQuerySchema>;

const UsageTotalsSchema = z.object({ requests: z.number(), input_tokens: z.number(), output_tokens: z.number(), cost_usd: z.number() });

export const UsageSummarySchema = z.object({
  group_by: z.enum(USAGE_GROUPINGS),
  /** Largest spend first; days in order. `key` is a key id, model name, agent id or `YYYY-MM-DD`; null: no key or no agent. */
  groups: z.array(UsageTotalsSchema.extend({ key: z.string().nullable(), name: z.string() })),
  /** Every matching row, listed in a group or not. */
  totals: UsageTotalsSchema,
  /** More groups matched than are listed. */
  truncated: z.boolean(),
});
export type UsageSummary = z.infer<typeof UsageSummarySchema>;
