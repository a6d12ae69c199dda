import type { UsageRecord, UsageStatus } from '../billing/usage-record.ts';
import type { CatalogModel } from '../catalog/types.ts';
import type { Usage } from '../core/model-types.ts';
import type { CallContext } from './call-context.ts';

export type UsageEntryInput = {
  id: string;
  context: CallContext;
  requestedModel: string | null;
  model: CatalogModel | undefined;
  status: UsageStatus;
  httpStatus: number | null;
  errorCode?: string | null;
  usage?: Usage;
  units?: Record<string, number> | null;
  costMicros: number;
  /** performance.now() at the call's start: its latency. */
  startedAt: number;
  /**
   * The wall-clock time of the call's start: the row's created_at, half of the log's key with
   * the id. Every write of one call's row (its crash-journal row too) carries this same time,
   * so a write repeated by a retry or a replay meets the row already stored.
   */
  createdAt: Date;
  attempts?: number;
  streamed?: boolean;
  /** Answered from the response cache. */
  cacheHit?: boolean;
};

/** One usage-log row from what the pipeline knows at the end of a call. */
export function usageLogEntry(input: UsageEntryInput): UsageRecord {
  return {
    id: input.id,
    accountId: input.context.key.accountId,
    // The system caller (src/keys/system-key.ts) has no key row.
    keyId: input.context.key.id || null,
    requestId: input.context.requestId,
    endpoint: input.context.endpoint,
    requestedModel: input.requestedModel,
    model: input.model?.id ?? null,
    provider: input.model?.providerId ?? null,
    upstreamModel: input.model?.upstreamName ?? null,
    status: input.status,
    httpStatus: input.httpStatus,
    errorCode: input.errorCode ?? null,
    inputTokens: input.usage?.inputTokens ?? 0,
    outputTokens: input.usage?.outputTokens ?? 0,
    cachedInputTokens: input.usage?.cachedInputTokens ?? 0,
    reasoningTokens: input.usage?.reasoningTokens ?? 0,
    units: input.units ?? null,
    costMicros: input.costMicros,
    latencyMs: Math.round(performance.now() - input.startedAt),
    attempts: input.attempts ?? 1,
    streamed: input.streamed ?? false,
    agentId: input.context.agent?.agentId ?? null,
    agentRunId: input.context.agent?.runId ?? null,
    agentVersion: input.context.agent?.version ?? null,
    createdAt: input.createdAt,
    cacheWriteTokens: input.usage?.cacheWriteTokens ?? 0,
    cacheHit: input.cacheHit ?? false,
  };
}
