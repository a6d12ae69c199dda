import { describe, expect, it } from 'vitest';
import { bootstrapMean } from '../../../src/evaluation/bootstrap-interval.ts';
import type { EvaluationResult, EvaluationRun } from '../../../src/evaluation/evaluation-repository.ts';
import { compareEvaluations } from '../../../src/evaluation/experiment-comparison.ts';

const run = (id: string): EvaluationRun => ({
  id,
  accountId: 'a',
  agentId: 'support',
  versionSelector: 'published',
  agentVersion: 'v1',
  datasetId: 'ds_1',
  datasetName: 'refunds',
  scorers: [{ type: 'contains' }],
  status: 'completed',
  concurrency: 4,
  maxCostMicros: null,
  costMicros: 0,
  caseCount: 3,
  casesDone: 3,
  stopReason: null,
  error: null,
  createdBy: null,
  createdAt: new Date(0),
  finishedAt: new Date(0),
  meanScore: null,
});
const result = (evaluationId: string, caseId: string, position: number, score: number): EvaluationResult => ({
  evaluationId,
  caseId,
  position,
  status: 'completed',
  input: caseId,
  reference: null,
  answer: `answer ${score}`,
  runId: `run_${evaluationId}_${caseId}`,
  scores: [{ scorer: 'contains', type: 'contains', score, reason: '' }],
  score,
  costMicros: 10,
  latencyMs: 5,
  error: null,
});

describe('bootstrap interval', () => {
  it('brackets the mean, is the same for the same seed, and is a point for one value', () => {
    const values = [1, 0, 1, 1, 0, 1, 1, 1];
    const first = bootstrapMean(values, 7);
    expect(first.mean).toBe(0.75);
    expect(first.low).toBeLessThan(0.75);
    expect(first.high).toBeGreaterThan(0.75);
    expect(first.high).toBeLessThanOrEqual(1);
    expect(bootstrapMean(values, 7)).toEqual(first);
    expect(bootstrapMean([0.4], 7)).toEqual({ mean: 0.4, low: 0.4, high: 0.4, n: 1 });
    expect(bootstrapMean([], 7)).toEqual({ mean: null, low: null, high: null, n: 0 });
  });
});

describe('experiment comparison', () => {
  it('lists the regression first and keeps the other cases in dataset order', () => {
    const baseline = [result('b', 'case_a', 0, 1), result('b', 'case_b', 1, 1), result('b', 'case_c', 2, 0)];
    const candidate = [result('c', 'case_a', 0, 1), result('c', 'case_b', 1, 0), result('c', 'case_c', 2, 1)];
    const comparison = compareEvaluations('exp_1', { run: run('b'), results: baseline }, { run: run('c'), results: candidate });
    expect(comparison.cases.map((entry) => [entry.caseId, entry.delta, entry.regression])).toEqual([
      ['case_b', -1, true],
      ['case_a', 0, false],
      ['case_c', 1, false],
    ]);
    expect(comparison.regressions).toBe(1);
    expect(comparison.overall.difference.mean).toBe(0);
    // One regression offset by one improvement is within the interval: no gate failure.
    expect(comparison.regressed).toBe(false);
    expect(comparison.scorers.map((entry) => entry.scorer)).toEqual(['contains']);
  });

  it('says the candidate regressed when the whole interval of the difference is below zero', () => {
    const baseline = [0, 1, 2, 3].map((position) => result('b', `case_${position}`, position, 1));
    const candidate = [0, 1, 2, 3].map((position) => result('c', `case_${position}`, position, position === 0 ? 0.5 : 0));
    const comparison = compareEvaluations('exp_2', { run: run('b'), results: baseline }, { run: run('c'), results: candidate });
    expect(comparison.regressed).toBe(true);
    expect(comparison.cases[0]?.caseId).toBe('case_1');
    expect(comparison.overall.difference.high).toBeLessThan(0);
  });
});
