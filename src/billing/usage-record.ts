/** A usage-log row as the billing pipeline writes it (see migrations/0002_usage_log.sql). */
export type UsageStatus = 'success' | 'upstream_error' | 'rejected' | 'client_closed' | 'interrupted' | 'deferred_billing' | 'error';

export type UsageRecord = {
  id: string;
  accountId: string;
  keyId: string | null;
  requestId: string;
  endpoint: string;
  requestedModel: string | null;
  model: string | null;
  provider: string | null;
  upstreamModel: string | null;
  status: UsageStatus;
  httpStatus: number | null;
  errorCode: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  units: Record<string, number> | null;
  costMicros: number;
  latencyMs: number | null;
  attempts: number;
  streamed: boolean;
  agentId: string | null;
  agentRunId: string | null;
  /** The agent version that made the call (file agents: a content hash; console agents: vN). */
  agentVersion?: string | null;
  createdAt: Date;
  /** Input tokens written to the provider's prompt cache (a subset of inputTokens). */
  cacheWriteTokens?: number;
  /** Answered from the gateway's response cache, without calling the provider. */
  cacheHit?: boolean;
};

export const USAGE_COLUMNS = [
  'id',
  'account_id',
  'key_id',
  'request_id',
  'endpoint',
  'requested_model',
  'model',
  'provider',
  'upstream_model',
  'status',
  'http_status',
  'error_code',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'reasoning_tokens',
  'units',
  'cost_micros',
  'latency_ms',
  'attempts',
  'streamed',
  'agent_id',
  'agent_run_id',
  'agent_version',
  'created_at',
  // Added after the type's first columns (migration 0029), so they come last, as in usage_row.
  'cache_write_tokens',
  'cache_hit',
] as const;
