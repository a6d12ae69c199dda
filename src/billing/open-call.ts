/**
 * A call that reached a provider and has not settled: the crash journal's row
 * (migrations/0005_billing_journal.sql). The pipeline owns the object and updates
 * tokens and cost as a stream goes on; the settlement queue writes it in its batches.
 */
export type OpenCall = {
  id: string;
  accountId: string;
  keyId: string | null;
  requestId: string;
  endpoint: string;
  requestedModel: string | null;
  model: string | null;
  provider: string | null;
  upstreamModel: string | null;
  inputTokens: number;
  outputTokens: number;
  /** What the call has cost so far: the input estimate at the start, then observed tokens. */
  costMicros: number;
  streamed: boolean;
  agentId: string | null;
  agentRunId: string | null;
  startedAt: Date;
};

/** How often a long stream's progress is journaled (tokens and cost so far). */
export const JOURNAL_PROGRESS_MS = 2_000;
/** A stream is journaled once it has lasted this long (its first event after it). */
export const JOURNAL_START_MS = 1_000;
