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
  createdAt: Date;
};

export const USAGE_COLUMNS = [
  'id', 'account_id', 'key_id', 'request_id', 'endpoint', 'requested_model', 'model', 'provider', 'upstream_model',
  'status', 'http_status', 'error_code', 'input_tokens', 'output_tokens', 'cached_input_tokens', 'reasoning_tokens',
  'units', 'cost_micros', 'latency_ms', 'attempts', 'streamed', 'agent_id', 'agent_run_id', 'created_at',
] as const;

export const usageValues = (record: UsageRecord): unknown[] => [
  record.id, record.accountId, record.keyId, record.requestId, record.endpoint, record.requestedModel, record.model,
  record.provider, record.upstreamModel, record.status, record.httpStatus, record.errorCode, record.inputTokens,
  record.outputTokens, record.cachedInputTokens, record.reasoningTokens, record.units,
  record.costMicros, record.latencyMs, record.attempts, record.streamed, record.agentId, record.agentRunId, record.createdAt,
];
