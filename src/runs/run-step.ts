/** What a step of an agent run did. `mcp` and `agent` are tool calls served by an MCP server or a sub-agent. */
export const RUN_STEP_KINDS = ['retrieval', 'model', 'tool', 'mcp', 'agent', 'handoff', 'approval'] as const;
export type RunStepKind = (typeof RUN_STEP_KINDS)[number];

/** One step as the runtime hands it over; `content` is built lazily, off the turn, when the batch is written. */
export type RunStepRecord = {
  id: string;
  accountId: string;
  runId: string;
  responseId: string | undefined;
  parentStepId: string | undefined;
  seq: number;
  kind: RunStepKind;
  name: string;
  agentId: string;
  agentVersion: string | undefined;
  agentPath: string | undefined;
  keyId: string | undefined;
  startedAt: number;
  endedAt: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  status: string;
  content: (() => unknown) | undefined;
};

/** Where the runtime puts its steps: never blocks and never throws (a lost step must not fail a run). */
export interface RunStepSink {
  record(step: RunStepRecord): void;
  /** Writes what is queued: a page read right after a run sees all of its steps. */
  flush(): Promise<void>;
}
