import { microsToUsd } from '../../core/money.ts';
import type { CaseRun, ScoreResult } from './case-run.ts';

type Verdict = Omit<ScoreResult, 'scorer' | 'type'>;

/** 1 when the run answered within `maxMs`, 0 otherwise. */
export function scoreLatency(maxMs: number, run: CaseRun): Verdict {
  const within = run.latencyMs <= maxMs;
  return { score: within ? 1 : 0, reason: `${run.latencyMs} ms ${within ? 'within' : 'over'} the ${maxMs} ms allowed` };
}

/** 1 when the agent run (its model steps and tools) cost at most `maxUsd`, 0 otherwise. */
export function scoreCost(maxUsd: number, run: CaseRun): Verdict {
  const within = run.costMicros <= Math.round(maxUsd * 1_000_000);
  return { score: within ? 1 : 0, reason: `$${microsToUsd(run.costMicros)} ${within ? 'within' : 'over'} the $${maxUsd} allowed` };
}
