import type { Usage } from '../../core/model-types.ts';
import type { Queryable } from '../../store/database.ts';

export type InterruptedSteps = { usage: Usage; modelCostMicros: number };

/**
 * What a run's steps cut short by a dead process were billed: their `interrupted` usage
 * rows, written from the crash journal. Such a step never reached a checkpoint, so the
 * run's own totals never hold it and its response adds it.
 */
export async function interruptedSteps(db: Queryable, runId: string): Promise<InterruptedSteps> {
  const result = await db.query<{ input: number; output: number; cost: number }>(
    `SELECT coalesce(sum(input_tokens), 0)::bigint AS input, coalesce(sum(output_tokens), 0)::bigint AS output, coalesce(sum(cost_micros), 0)::bigint AS cost
       FROM usage_log WHERE agent_run_id = $1 AND status = 'interrupted'`,
    [runId],
  );
  const row = result.rows[0];
  return { usage: { inputTokens: row?.input ?? 0, outputTokens: row?.output ?? 0 }, modelCostMicros: row?.cost ?? 0 };
}
