import type { FinishReason, Usage } from '../core/model-types.ts';

/** What a run has used so far. Plain JSON: it lives in the checkpointed graph state. */
export type RunTotals = {
  usage: Usage;
  modelCostMicros: number;
  toolCostMicros: number;
  /** The finish reason of the last model step. */
  finish: FinishReason;
  /** The model used on the last step (after any fallback). */
  model: string;
};

export const emptyTotals = (model: string): RunTotals => ({
  usage: { inputTokens: 0, outputTokens: 0 },
  modelCostMicros: 0,
  toolCostMicros: 0,
  finish: { unified: 'stop', raw: undefined },
  model,
});

export const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cachedInputTokens: (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0),
  reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0),
});
