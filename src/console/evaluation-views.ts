import { microsToUsd } from '../core/money.ts';
import type { EvaluationResult, EvaluationRun } from '../evaluation/evaluation-repository.ts';
import type { ComparedCase, ComparedSide } from '../evaluation/experiment-comparison.ts';
import type { ExperimentView as ExperimentState } from '../evaluation/experiment-service.ts';
import type { CaseResultView, ComparedCaseView, EvaluationDetail, EvaluationView, ExperimentView } from './contract/evaluations.ts';
import { lineDiff } from './line-diff.ts';

/** An evaluation as the API shows it; with its results, each scorer's mean over the cases it scored. */
export function evaluationView(run: EvaluationRun, results?: readonly EvaluationResult[]): EvaluationView {
  return {
    id: run.id,
    agent: run.agentId,
    version: run.versionSelector,
    agent_version: run.agentVersion,
    dataset: { id: run.datasetId, name: run.datasetName },
    status: run.status,
    stop_reason: run.stopReason,
    error: run.error,
    scorers: run.scorers,
    concurrency: run.concurrency,
    max_cost_usd: run.maxCostMicros === null ? null : microsToUsd(run.maxCostMicros),
    cost_usd: microsToUsd(run.costMicros),
    cases: run.caseCount,
    cases_done: run.casesDone,
    mean_score: run.meanScore,
    scorer_summary: results ? scorerSummary(results) : [],
    created_by: run.createdBy,
    created_at: run.createdAt.toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
  };
}

export function evaluationDetail(run: EvaluationRun, results: readonly EvaluationResult[]): EvaluationDetail {
  return { ...evaluationView(run, results), results: results.map(resultView) };
}

function scorerSummary(results: readonly EvaluationResult[]): EvaluationView['scorer_summary'] {
  const byScorer = new Map<string, { sum: number; scored: number; errors: number }>();
  for (const result of results) {
    for (const score of result.scores) {
      const entry = byScorer.get(score.scorer) ?? { sum: 0, scored: 0, errors: 0 };
      if (score.score !== null) {
        entry.sum += score.score;
        entry.scored += 1;
      }
      if (score.error) entry.errors += 1;
      byScorer.set(score.scorer, entry);
    }
  }
  return [...byScorer.entries()].map(([scorer, entry]) => ({ scorer, mean: entry.scored === 0 ? null : entry.sum / entry.scored, scored: entry.scored, errors: entry.errors }));
}

const resultView = (result: EvaluationResult): CaseResultView => ({
  case_id: result.caseId,
  position: result.position,
  status: result.status,
  input: result.input,
  reference: result.reference,
  answer: result.answer,
  run_id: result.runId,
  score: result.score,
  scores: result.scores,
  cost_usd: microsToUsd(result.costMicros),
  latency_ms: result.latencyMs,
  error: result.error,
});

const sideView = (side: ComparedSide | null): ComparedCaseView['baseline'] =>
  side && {
    status: side.status,
    answer: side.answer,
    run_id: side.runId,
    score: side.score,
    scores: side.scores,
    cost_usd: microsToUsd(side.costMicros),
    latency_ms: side.latencyMs,
    error: side.error,
  };

const caseView = (entry: ComparedCase): ComparedCaseView => ({
  case_id: entry.caseId,
  position: entry.position,
  input: entry.input,
  reference: entry.reference,
  baseline: sideView(entry.baseline),
  candidate: sideView(entry.candidate),
  delta: entry.delta,
  regression: entry.regression,
  diff: lineDiff(entry.baseline?.answer ?? '', entry.candidate?.answer ?? ''),
});

/** Running while either side runs; otherwise the worse of the two ends. */
function experimentStatus(baseline: EvaluationRun, candidate: EvaluationRun): ExperimentView['status'] {
  const order = ['running', 'failed', 'stopped', 'completed'] as const;
  return order.find((status) => baseline.status === status || candidate.status === status) ?? 'completed';
}

export function experimentView(state: ExperimentState): ExperimentView {
  const { experiment, baseline, candidate, comparison } = state;
  return {
    id: experiment.id,
    agent: experiment.agentId,
    dataset_id: experiment.datasetId,
    status: experimentStatus(baseline, candidate),
    baseline: evaluationView(baseline),
    candidate: evaluationView(candidate),
    scorers: comparison.scorers,
    overall: comparison.overall,
    regressions: comparison.regressions,
    regressed: comparison.regressed,
    cases: comparison.cases.map(caseView),
    created_at: experiment.createdAt.toISOString(),
  };
}
