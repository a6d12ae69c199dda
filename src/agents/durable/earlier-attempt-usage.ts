import type { Queryable } from '../../store/database.ts';
import { addUsage, type RunTotals } from '../run-totals.ts';

/** What a run's usage rows add up to: tokens, and cost split as a response reports it. */
export type BilledUsage = Pick<RunTotals, 'usage' | 'modelCostMicros' | 'toolCostMicros'>;

/**
 * Every usage row of a run written so far. Read when a process takes a run over (after the
 * dead process's open calls are settled), these are what the earlier attempts billed.
 */
export async function billedUsageOfRun(db: Queryable, runId: string): Promise<BilledUsage> {
  const result = await db.query<{ input: string; output: string; cached: string; reasoning: string; model_cost: string; tool_cost: string }>(
    `SELECT coalesce(sum(input_tokens), 0)::bigint AS input, coalesce(sum(output_tokens), 0)::bigint AS output,
       coalesce(sum(cached_input_tokens), 0)::bigint AS cached, coalesce(sum(reasoning_tokens), 0)::bigint AS reasoning,
       coalesce(sum(cost_micros) FILTER (WHERE endpoint <> 'agents.tool'), 0)::bigint AS model_cost,
       coalesce(sum(cost_micros) FILTER (WHERE endpoint = 'agents.tool'), 0)::bigint AS tool_cost
     FROM usage_log WHERE agent_run_id = $1`,
    [runId],
  );
  const row = result.rows[0];
  return {
    usage: { inputTokens: Number(row?.input ?? 0), outputTokens: Number(row?.output ?? 0), cachedInputTokens: Number(row?.cached ?? 0), reasoningTokens: Number(row?.reasoning ?? 0) },
    modelCostMicros: Number(row?.model_cost ?? 0),
    toolCostMicros: Number(row?.tool_cost ?? 0),
  };
}

/**
 * What earlier attempts billed beyond the checkpoint the run resumed from: a step cut short
 * by the dead process (its `interrupted` row), or one it finished and billed but died before
 * checkpointing, which this attempt runs again. Never negative.
 */
export function billedBeyondCheckpoint(earlier: BilledUsage, checkpoint: BilledUsage | undefined): BilledUsage {
  const from = checkpoint ?? { usage: { inputTokens: 0, outputTokens: 0 }, modelCostMicros: 0, toolCostMicros: 0 };
  const over = (a: number, b: number | undefined) => Math.max(0, a - (b ?? 0));
  return {
    usage: {
      inputTokens: over(earlier.usage.inputTokens, from.usage.inputTokens),
      outputTokens: over(earlier.usage.outputTokens, from.usage.outputTokens),
      cachedInputTokens: over(earlier.usage.cachedInputTokens ?? 0, from.usage.cachedInputTokens),
      reasoningTokens: over(earlier.usage.reasoningTokens ?? 0, from.usage.reasoningTokens),
    },
    modelCostMicros: over(earlier.modelCostMicros, from.modelCostMicros),
    toolCostMicros: over(earlier.toolCostMicros, from.toolCostMicros),
  };
}

/** A run's totals with what earlier attempts billed beyond its checkpoint added: the response's usage is then the sum of the run's usage rows. */
export function withEarlierAttempts<T extends BilledUsage & { costMicros?: number }>(totals: T, beyond: BilledUsage | undefined): T {
  if (!beyond) return totals;
  const added = {
    ...totals,
    usage: addUsage(totals.usage, beyond.usage),
    modelCostMicros: totals.modelCostMicros + beyond.modelCostMicros,
    toolCostMicros: totals.toolCostMicros + beyond.toolCostMicros,
  };
  return totals.costMicros === undefined ? added : { ...added, costMicros: totals.costMicros + beyond.modelCostMicros + beyond.toolCostMicros };
}
