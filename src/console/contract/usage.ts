import { z } from 'zod';

export const USAGE_STATUSES = ['success', 'upstream_error', 'rejected', 'client_closed', 'interrupted', 'deferred_billing', 'error'] as const;

export const UsageQuerySchema = z.object({
  key_id: z.uuid().optional(),
  model: z.string().max(256).optional(),
  endpoint: z.string().max(64).optional(),
  status: z.enum(USAGE_STATUSES).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
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
  http_status: z.number().nullable(),
  error_code: z.string().nullable(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cached_input_tokens: z.number(),
  reasoning_tokens: z.number(),
  cost_usd: z.number(),
  latency_ms: z.number().nullable(),
  attempts: z.number(),
  streamed: z.boolean(),
  agent_id: z.string().nullable(),
  agent_run_id: z.string().nullable(),
  created_at: z.string(),
});
export type UsageEntry = z.infer<typeof UsageEntrySchema>;

export const UsagePageSchema = z.object({ data: z.array(UsageEntrySchema), next_cursor: z.string().nullable() });
