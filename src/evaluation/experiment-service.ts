import { JunctionError } from '../core/errors.ts';
import { randomHex } from '../core/random-hex.ts';
import type { Database } from '../store/database.ts';
import { createDatasetRepository } from './dataset-repository.ts';
import { type EvaluationRun, type Experiment, getEvaluation, getExperiment, insertExperiment, listResults } from './evaluation-repository.ts';
import type { EvaluationRequest, EvaluationService } from './evaluation-service.ts';
import { compareEvaluations, type ExperimentComparison } from './experiment-comparison.ts';

/** One side of an experiment: a version to run now, or an evaluation that already ran. */
export type ExperimentSide = { version: string } | { evaluationId: string };

export type ExperimentRequest = Omit<EvaluationRequest, 'version'> & { baseline: ExperimentSide; candidate: ExperimentSide };

export type ExperimentView = { experiment: Experiment; baseline: EvaluationRun; candidate: EvaluationRun; comparison: ExperimentComparison };

export const newExperimentId = () => `exp_${randomHex(12)}`;

/**
 * Starts an experiment: both versions run over the dataset (at once), or a side reuses a
 * finished evaluation of the same agent and dataset; a new side is scored like a reused one.
 */
export async function startExperiment(db: Database, evaluations: EvaluationService, request: ExperimentRequest): Promise<ExperimentView> {
  const reused = async (side: ExperimentSide, param: string): Promise<EvaluationRun | undefined> => {
    if (!('evaluationId' in side)) return undefined;
    const found = await getEvaluation(db, request.accountId, side.evaluationId);
    if (!found) throw new JunctionError('not_found', `No evaluation '${side.evaluationId}' in this account.`, { param });
    if (found.agentId !== request.agentId) throw new JunctionError('invalid_request', `Evaluation '${found.id}' ran agent '${found.agentId}', not '${request.agentId}'.`, { param });
    if (found.status === 'running') throw new JunctionError('conflict', `Evaluation '${found.id}' is still running: compare it once it has ended.`, { param });
    return found;
  };
  const baselineReused = await reused(request.baseline, 'baseline');
  const candidateReused = await reused(request.candidate, 'candidate');
  // Both sides are checked before either starts: a refused candidate must not leave a billed baseline running.
  const dataset = await createDatasetRepository(db).find(request.accountId, request.dataset);
  if (!dataset) throw new JunctionError('not_found', `No dataset '${request.dataset}' in this account.`, { param: 'dataset' });
  const sides = [
    { side: request.baseline, found: baselineReused, param: 'baseline' },
    { side: request.candidate, found: candidateReused, param: 'candidate' },
  ];
  for (const { side, found, param } of sides) {
    if (found && found.datasetId !== dataset.id) throw new JunctionError('invalid_request', `Evaluation '${found.id}' ran dataset '${found.datasetName}', not '${dataset.name}'.`, { param });
    if ('version' in side) await evaluations.checkVersion(request.accountId, request.agentId, side.version);
  }
  const scorers = request.scorers ?? baselineReused?.scorers ?? candidateReused?.scorers;
  const run = (side: ExperimentSide, found: EvaluationRun | undefined): Promise<EvaluationRun> =>
    found ? Promise.resolve(found) : evaluations.start({ ...request, ...(scorers !== undefined && { scorers }), version: 'version' in side ? side.version : 'published' });
  const baseline = await run(request.baseline, baselineReused);
  const candidate = await run(request.candidate, candidateReused);
  const experiment = await insertExperiment(db, {
    id: newExperimentId(),
    accountId: request.accountId,
    agentId: request.agentId,
    datasetId: baseline.datasetId,
    baselineEvaluationId: baseline.id,
    candidateEvaluationId: candidate.id,
    createdBy: request.createdBy ?? null,
  });
  return viewOf(db, experiment);
}

/** The experiment as it stands: each side's progress and the comparison of the cases run so far. */
export async function readExperiment(db: Database, accountId: string, id: string): Promise<ExperimentView | undefined> {
  const experiment = await getExperiment(db, accountId, id);
  return experiment ? viewOf(db, experiment) : undefined;
}

async function viewOf(db: Database, experiment: Experiment): Promise<ExperimentView> {
  const { accountId } = experiment;
  const [baseline, candidate, baselineResults, candidateResults] = await Promise.all([
    getEvaluation(db, accountId, experiment.baselineEvaluationId),
    getEvaluation(db, accountId, experiment.candidateEvaluationId),
    listResults(db, accountId, experiment.baselineEvaluationId),
    listResults(db, accountId, experiment.candidateEvaluationId),
  ]);
  if (!baseline || !candidate) throw new JunctionError('not_found', `Experiment '${experiment.id}' lost an evaluation.`);
  const comparison = compareEvaluations(experiment.id, { run: baseline, results: baselineResults }, { run: candidate, results: candidateResults });
  return { experiment, baseline, candidate, comparison };
}
