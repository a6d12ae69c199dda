import { bootstrapMean, type MeanInterval, seedOf } from './bootstrap-interval.ts';
import type { EvaluationResult, EvaluationRun } from './evaluation-repository.ts';

export type ComparedSide = Pick<EvaluationResult, 'status' | 'answer' | 'runId' | 'score' | 'scores' | 'costMicros' | 'latencyMs' | 'error'>;

export type ComparedCase = {
  caseId: string;
  position: number;
  input: unknown;
  reference: string | null;
  baseline: ComparedSide | null;
  candidate: ComparedSide | null;
  /** The candidate's case score minus the baseline's, when both have one. */
  delta: number | null;
  regression: boolean;
};

export type ScorerComparison = { scorer: string; baseline: MeanInterval; candidate: MeanInterval; difference: MeanInterval };

export type ExperimentComparison = {
  /** Per scorer, then `overall` (the case scores): each side's mean and the paired difference, with 95% intervals. */
  scorers: ScorerComparison[];
  overall: ScorerComparison;
  /** Regressions first (the largest drop first), then the other cases in dataset order. */
  cases: ComparedCase[];
  regressions: number;
  /** The candidate is worse beyond the interval: the whole 95% interval of the overall difference is below zero. */
  regressed: boolean;
};

const sideOf = (result: EvaluationResult | undefined): ComparedSide | null =>
  result
    ? {
        status: result.status,
        answer: result.answer,
        runId: result.runId,
        score: result.score,
        scores: result.scores,
        costMicros: result.costMicros,
        latencyMs: result.latencyMs,
        error: result.error,
      }
    : null;

/** Two evaluations of one dataset, case by case: scores compared, regressions first (the console adds each case's line diff). */
export function compareEvaluations(
  experimentId: string,
  baseline: { run: EvaluationRun; results: readonly EvaluationResult[] },
  candidate: { run: EvaluationRun; results: readonly EvaluationResult[] },
): ExperimentComparison {
  const baselineByCase = new Map(baseline.results.map((result) => [result.caseId, result]));
  const candidateByCase = new Map(candidate.results.map((result) => [result.caseId, result]));
  const caseIds = [...new Set([...baseline.results, ...candidate.results].sort((a, b) => a.position - b.position).map((result) => result.caseId))];
  const cases = caseIds.map((caseId): ComparedCase => {
    const before = baselineByCase.get(caseId);
    const after = candidateByCase.get(caseId);
    const either = (before ?? after) as EvaluationResult;
    const delta = before?.score != null && after?.score != null ? after.score - before.score : null;
    return {
      caseId,
      position: either.position,
      input: either.input,
      reference: either.reference,
      baseline: sideOf(before),
      candidate: sideOf(after),
      delta,
      regression: delta !== null && delta < 0,
    };
  });
  const seed = seedOf(experimentId);
  const compare = (scorer: string, scoreOf: (result: EvaluationResult) => number | null | undefined): ScorerComparison => {
    const sideScores = (results: readonly EvaluationResult[]) => results.flatMap((result) => (scoreOf(result) == null ? [] : [scoreOf(result) as number]));
    const differences = caseIds.flatMap((caseId) => {
      const before = baselineByCase.get(caseId);
      const after = candidateByCase.get(caseId);
      const from = before ? scoreOf(before) : null;
      const to = after ? scoreOf(after) : null;
      return from == null || to == null ? [] : [to - from];
    });
    return { scorer, baseline: bootstrapMean(sideScores(baseline.results), seed), candidate: bootstrapMean(sideScores(candidate.results), seed + 1), difference: bootstrapMean(differences, seed + 2) };
  };
  const names = [...new Set([...baseline.results, ...candidate.results].flatMap((result) => result.scores.map((score) => score.scorer)))];
  const scorers = names.map((name) => compare(name, (result) => result.scores.find((score) => score.scorer === name)?.score));
  const overall = compare('overall', (result) => result.score);
  const regressions = cases.filter((entry) => entry.regression).sort((a, b) => (a.delta ?? 0) - (b.delta ?? 0) || a.position - b.position);
  const others = cases.filter((entry) => !entry.regression);
  return { scorers, overall, cases: [...regressions, ...others], regressions: regressions.length, regressed: overall.difference.high !== null && overall.difference.high < 0 };
}
