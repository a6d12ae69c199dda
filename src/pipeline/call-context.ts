import type { Context } from '@opentelemetry/api';
import type { CancelSignal } from '../core/cancel-signal.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';

/** Who is calling and on whose behalf: every pipeline call carries one. */
export type CallContext = {
  key: ApiKeyRecord;
  requestId: string;
  /** Wire endpoint for the usage log, e.g. `chat.completions`, `messages`, `agents.responses`. */
  endpoint: string;
  /** Aborted when the client disconnects: the upstream call is aborted with it. */
  signal: CancelSignal;
  /** Set for model steps of an agent run, so its usage rows can be summed per run. */
  agent?: { agentId: string; runId: string; version?: string };
  /** The trace context spans of this call hang under (only when tracing is on). */
  trace?: Context;
  /** The request's own wait for each attempt's answer (`x-junction-timeout-ms`); it only shortens the configured one. */
  timeoutMs?: number;
};
