import { z } from 'zod';
import { type ScorerDeclaration, ScorerDeclarationSchema } from '../agents/scorer-declarations.ts';
import { storableJson } from '../core/storable-text.ts';
import type { Queryable } from '../store/database.ts';
import type { ScoreResult } from './scorers/case-run.ts';

export type EvaluationStatus = 'running' | 'completed' | 'stopped' | 'failed';
export type ResultStatus = 'completed' | 'failed' | 'skipped';

export type EvaluationRun = {
  id: string;
  accountId: string;
  agentId: string;
  versionSelector: string;
  agentVersion: string | null;
  datasetId: string;
  datasetName: string;
  scorers: ScorerDeclaration[];
  status: EvaluationStatus;
  concurrency: number;
  maxCostMicros: number | null;
  costMicros: number;
  caseCount: number;
  casesDone: number;
  stopReason: string | null;
  error: string | null;
  createdBy: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  /** The mean case score over the results that have one, so far. */
  meanScore: number | null;
};

export type EvaluationResult = {
  evaluationId: string;
  caseId: string;
  position: number;
  status: ResultStatus;
  input: unknown;
  reference: string | null;
  answer: string | null;
  runId: string | null;
  scores: ScoreResult[];
  score: number | null;
  costMicros: number;
  latencyMs: number | null;
  error: string | null;
};

export type Experiment = {
  id: string;
  accountId: string;
  agentId: string;
  datasetId: string;
  baselineEvaluationId: string;
  candidateEvaluationId: string;
  createdBy: string | null;
  createdAt: Date;
};

/** Stored JSON is read back through its schema: a row is a boundary like any other. */
const ScoresSchema = z.array(z.object({ scorer: z.string(), type: z.string(), score: z.number().nullable(), reason: z.string(), error: z.string().optional() }));
const ScorersSchema = z.array(ScorerDeclarationSchema);

type RunRow = {
  id: string;
  account_id: string;
  agent_id: string;
  version_selector: string;
  agent_version: string | null;
  dataset_id: string;
  dataset_name: string;
  scorers: unknown;
  status: EvaluationStatus;
  concurrency: number;
  max_cost_micros: string | number | null;
  cost_micros: string | number;
  case_count: number;
  cases_done: number;
  stop_reason: string | null;
  error: string | null;
  created_by: string | null;
  created_at: Date;
  finished_at: Date | null;
  mean_score: number | null;
};

const RUN_COLUMNS = `id, account_id, agent_id, version_selector, agent_version, dataset_id, dataset_name, scorers, status, concurrency, max_cost_micros, cost_micros,
  case_count, cases_done, stop_reason, error, created_by, created_at, finished_at,
  (SELECT avg(r.score) FROM evaluation_results r WHERE r.evaluation_id = evaluation_runs.id) AS mean_score`;

const toRun = (row: RunRow): EvaluationRun => ({
  id: row.id,
  accountId: row.account_id,
  agentId: row.agent_id,
  versionSelector: row.version_selector,
  agentVersion: row.agent_version,
  datasetId: row.dataset_id,
  datasetName: row.dataset_name,
  scorers: ScorersSchema.parse(row.scorers),
  status: row.status,
  concurrency: row.concurrency,
  maxCostMicros: row.max_cost_micros === null ? null : Number(row.max_cost_micros),
  costMicros: Number(row.cost_micros),
  caseCount: row.case_count,
  casesDone: row.cases_done,
  stopReason: row.stop_reason,
  error: row.error,
  createdBy: row.created_by,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
  meanScore: row.mean_score === null ? null : Number(row.mean_score),
});

export type NewEvaluation = Pick<
  EvaluationRun,
  'id' | 'accountId' | 'agentId' | 'versionSelector' | 'agentVersion' | 'datasetId' | 'datasetName' | 'scorers' | 'concurrency' | 'maxCostMicros' | 'caseCount' | 'createdBy'
>;

export async function insertEvaluation(db: Queryable, run: NewEvaluation): Promise<EvaluationRun> {
  const result = await db.query<RunRow>(
    `INSERT INTO evaluation_runs (id, account_id, agent_id, version_selector, agent_version, dataset_id, dataset_name, scorers, status, concurrency, max_cost_micros, case_count, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, 'running', $9, $10, $11, $12) RETURNING ${RUN_COLUMNS}`,
    [
      run.id,
      run.accountId,
      run.agentId,
      run.versionSelector,
      run.agentVersion,
      run.datasetId,
      run.datasetName,
      JSON.stringify(run.scorers),
      run.concurrency,
      run.maxCostMicros,
      run.caseCount,
      run.createdBy,
    ],
  );
  const row = result.rows[0];
  if (!row) throw new Error('evaluation row not returned');
  return toRun(row);
}

export async function finishEvaluation(db: Queryable, id: string, outcome: { status: Exclude<EvaluationStatus, 'running'>; stopReason?: string; error?: string }): Promise<void> {
  await db.query(`UPDATE evaluation_runs SET status = $2, stop_reason = $3, error = $4, finished_at = now() WHERE id = $1 AND status = 'running'`, [
    id,
    outcome.status,
    outcome.stopReason ?? null,
    outcome.error ?? null,
  ]);
}

/** Ends a running evaluation as cancelled; false when the account has no such evaluation running. */
export async function cancelEvaluation(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const result = await db.query(`UPDATE evaluation_runs SET status = 'stopped', stop_reason = 'cancelled', finished_at = now() WHERE account_id = $1 AND id = $2 AND status = 'running'`, [
    accountId,
    id,
  ]);
  return result.rowCount > 0;
}

/** Whether the evaluation is still to go on (any process may have cancelled it). */
export async function isRunning(db: Queryable, id: string): Promise<boolean> {
  const result = await db.query<{ status: string }>('SELECT status FROM evaluation_runs WHERE id = $1', [id]);
  return result.rows[0]?.status === 'running';
}

/** Evaluations a process left running when it stopped: they will not go on, so they are marked as failed. */
export async function failAbandoned(db: Queryable, ids: readonly string[], error: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query(`UPDATE evaluation_runs SET status = 'failed', error = $2, finished_at = now() WHERE id = ANY($1::text[]) AND status = 'running'`, [ids, error]);
}

export async function getEvaluation(db: Queryable, accountId: string, id: string): Promise<EvaluationRun | undefined> {
  const result = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM evaluation_runs WHERE account_id = $1 AND id = $2`, [accountId, id]);
  const row = result.rows[0];
  return row ? toRun(row) : undefined;
}

export async function listEvaluations(db: Queryable, accountId: string, filter: { agentId?: string; limit: number }): Promise<EvaluationRun[]> {
  const result = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM evaluation_runs WHERE account_id = $1 AND ($2::text IS NULL OR agent_id = $2) ORDER BY created_at DESC, id LIMIT $3`, [
    accountId,
    filter.agentId ?? null,
    filter.limit,
  ]);
  return result.rows.map(toRun);
}

type ResultRow = {
  evaluation_id: string;
  case_id: string;
  position: string | number;
  status: ResultStatus;
  input: unknown;
  reference: string | null;
  answer: string | null;
  run_id: string | null;
  scores: unknown;
  score: number | null;
  cost_micros: string | number;
  latency_ms: number | null;
  error: string | null;
};

/** Model text as PostgreSQL takes it: no NUL, no lone surrogate. */
const storable = (text: string | null): string | null => (text === null ? null : text.toWellFormed().replaceAll('\u0000', ''));

/** A case's result, and the evaluation's progress and spend with it, in one statement. */
export async function insertResult(db: Queryable, accountId: string, result: EvaluationResult): Promise<void> {
  await db.query(
    `WITH inserted AS (
       INSERT INTO evaluation_results (evaluation_id, case_id, account_id, position, status, input, reference, answer, run_id, scores, score, cost_micros, latency_ms, error)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10::jsonb, $11, $12, $13, $14)
       ON CONFLICT (evaluation_id, case_id) DO NOTHING
       RETURNING evaluation_id, cost_micros)
     UPDATE evaluation_runs r SET cases_done = r.cases_done + 1, cost_micros = r.cost_micros + i.cost_micros FROM inserted i WHERE r.id = i.evaluation_id`,
    [
      result.evaluationId,
      result.caseId,
      accountId,
      result.position,
      result.status,
      storableJson(result.input),
      storable(result.reference),
      storable(result.answer),
      result.runId,
      storableJson(result.scores),
      result.score,
      result.costMicros,
      result.latencyMs,
      storable(result.error),
    ],
  );
}

export async function listResults(db: Queryable, accountId: string, evaluationId: string): Promise<EvaluationResult[]> {
  const result = await db.query<ResultRow>(
    `SELECT evaluation_id, case_id, position, status, input, reference, answer, run_id, scores, score, cost_micros, latency_ms, error
     FROM evaluation_results WHERE account_id = $1 AND evaluation_id = $2 ORDER BY position, case_id`,
    [accountId, evaluationId],
  );
  return result.rows.map((row) => ({
    evaluationId: row.evaluation_id,
    caseId: row.case_id,
    position: Number(row.position),
    status: row.status,
    input: row.input,
    reference: row.reference,
    answer: row.answer,
    runId: row.run_id,
    scores: ScoresSchema.parse(row.scores),
    score: row.score,
    costMicros: Number(row.cost_micros),
    latencyMs: row.latency_ms,
    error: row.error,
  }));
}

type ExperimentRow = {
  id: string;
  account_id: string;
  agent_id: string;
  dataset_id: string;
  baseline_evaluation_id: string;
  candidate_evaluation_id: string;
  created_by: string | null;
  created_at: Date;
};

const toExperiment = (row: ExperimentRow): Experiment => ({
  id: row.id,
  accountId: row.account_id,
  agentId: row.agent_id,
  datasetId: row.dataset_id,
  baselineEvaluationId: row.baseline_evaluation_id,
  candidateEvaluationId: row.candidate_evaluation_id,
  createdBy: row.created_by,
  createdAt: row.created_at,
});

const EXPERIMENT_COLUMNS = 'id, account_id, agent_id, dataset_id, baseline_evaluation_id, candidate_evaluation_id, created_by, created_at';

export async function insertExperiment(db: Queryable, experiment: Omit<Experiment, 'createdAt'>): Promise<Experiment> {
  const result = await db.query<ExperimentRow>(
    `INSERT INTO experiments (id, account_id, agent_id, dataset_id, baseline_evaluation_id, candidate_evaluation_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${EXPERIMENT_COLUMNS}`,
    [experiment.id, experiment.accountId, experiment.agentId, experiment.datasetId, experiment.baselineEvaluationId, experiment.candidateEvaluationId, experiment.createdBy],
  );
  const row = result.rows[0];
  if (!row) throw new Error('experiment row not returned');
  return toExperiment(row);
}

export async function getExperiment(db: Queryable, accountId: string, id: string): Promise<Experiment | undefined> {
  const result = await db.query<ExperimentRow>(`SELECT ${EXPERIMENT_COLUMNS} FROM experiments WHERE account_id = $1 AND id = $2`, [accountId, id]);
  const row = result.rows[0];
  return row ? toExperiment(row) : undefined;
}

export async function listExperiments(db: Queryable, accountId: string, limit: number): Promise<Experiment[]> {
  const result = await db.query<ExperimentRow>(`SELECT ${EXPERIMENT_COLUMNS} FROM experiments WHERE account_id = $1 ORDER BY created_at DESC, id LIMIT $2`, [accountId, limit]);
  return result.rows.map(toExperiment);
}
