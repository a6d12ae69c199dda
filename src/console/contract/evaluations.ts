import { z } from 'zod';

/** A version as an evaluation names it: `draft` (the newest, drafts included), `published`, `latest`, a number, or a file agent's content hash. */
export const VersionSelectorSchema = z.string().regex(/^(draft|published|latest|v?[1-9][0-9]{0,8}|[0-9a-f]{16})$/, "'draft', 'published', 'latest', a version number or a file agent's content hash");

const AgentIdSchema = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'an agent id');
const DatasetRefSchema = z.string().min(1).max(200);
const EvaluationIdSchema = z.string().regex(/^eval_[0-9a-f]{24}$/, 'an evaluation id');

const runOptions = {
  /** Scorer declarations (the agent YAML's `scorers:` format); checked by the server. */
  scorers: z.array(z.unknown()).max(20).optional(),
  concurrency: z.number().int().min(1).max(16).optional(),
  max_cost_usd: z.number().positive().max(10_000).optional(),
};

export const StartEvaluationSchema = z.strictObject({ agent: AgentIdSchema, dataset: DatasetRefSchema, version: VersionSelectorSchema.optional(), ...runOptions });
export type StartEvaluation = z.infer<typeof StartEvaluationSchema>;

/** A side of an experiment: a version to run, or a finished evaluation to reuse. */
export const ExperimentSideSchema = z.union([z.strictObject({ version: VersionSelectorSchema }), z.strictObject({ evaluation_id: EvaluationIdSchema })]);

export const StartExperimentSchema = z.strictObject({
  agent: AgentIdSchema,
  dataset: DatasetRefSchema,
  baseline: ExperimentSideSchema.default({ version: 'published' }),
  candidate: ExperimentSideSchema.default({ version: 'draft' }),
  ...runOptions,
});
export type StartExperiment = z.input<typeof StartExperimentSchema>;

export const EvaluationListQuerySchema = z.strictObject({ agent: AgentIdSchema.optional(), limit: z.coerce.number().int().min(1).max(200).default(50) });

export const ScoreViewSchema = z.object({ scorer: z.string(), type: z.string(), score: z.number().nullable(), reason: z.string(), error: z.string().optional() });
export type ScoreView = z.infer<typeof ScoreViewSchema>;

export const ScorerSummarySchema = z.object({ scorer: z.string(), mean: z.number().nullable(), scored: z.number(), errors: z.number() });

export const EvaluationViewSchema = z.object({
  id: z.string(),
  agent: z.string(),
  version: z.string(),
  agent_version: z.string().nullable(),
  dataset: z.object({ id: z.string(), name: z.string() }),
  status: z.enum(['running', 'completed', 'stopped', 'failed']),
  stop_reason: z.string().nullable(),
  error: z.string().nullable(),
  scorers: z.array(z.unknown()),
  concurrency: z.number(),
  max_cost_usd: z.number().nullable(),
  cost_usd: z.number(),
  cases: z.number(),
  cases_done: z.number(),
  /** The mean case score over the cases that have one. */
  mean_score: z.number().nullable(),
  scorer_summary: z.array(ScorerSummarySchema),
  created_by: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
export type EvaluationView = z.infer<typeof EvaluationViewSchema>;

export const CaseResultViewSchema = z.object({
  case_id: z.string(),
  position: z.number(),
  status: z.enum(['completed', 'failed', 'skipped']),
  input: z.unknown(),
  reference: z.string().nullable(),
  answer: z.string().nullable(),
  run_id: z.string().nullable(),
  score: z.number().nullable(),
  scores: z.array(ScoreViewSchema),
  cost_usd: z.number(),
  latency_ms: z.number().nullable(),
  error: z.string().nullable(),
});
export type CaseResultView = z.infer<typeof CaseResultViewSchema>;

export const EvaluationDetailSchema = EvaluationViewSchema.extend({ results: z.array(CaseResultViewSchema) });
export type EvaluationDetail = z.infer<typeof EvaluationDetailSchema>;
export const EvaluationListSchema = z.object({ data: z.array(EvaluationViewSchema) });

const IntervalSchema = z.object({ mean: z.number().nullable(), low: z.number().nullable(), high: z.number().nullable(), n: z.number() });
export const ScorerComparisonSchema = z.object({ scorer: z.string(), baseline: IntervalSchema, candidate: IntervalSchema, difference: IntervalSchema });
export type ScorerComparisonView = z.infer<typeof ScorerComparisonSchema>;

const SideSchema = z
  .object({
    status: z.enum(['completed', 'failed', 'skipped']),
    answer: z.string().nullable(),
    run_id: z.string().nullable(),
    score: z.number().nullable(),
    scores: z.array(ScoreViewSchema),
    cost_usd: z.number(),
    latency_ms: z.number().nullable(),
    error: z.string().nullable(),
  })
  .nullable();

export const ComparedCaseSchema = z.object({
  case_id: z.string(),
  position: z.number(),
  input: z.unknown(),
  reference: z.string().nullable(),
  baseline: SideSchema,
  candidate: SideSchema,
  delta: z.number().nullable(),
  regression: z.boolean(),
  diff: z.array(z.object({ kind: z.enum(['same', 'removed', 'added']), text: z.string() })),
});
export type ComparedCaseView = z.infer<typeof ComparedCaseSchema>;

export const ExperimentViewSchema = z.object({
  id: z.string(),
  agent: z.string(),
  dataset_id: z.string(),
  status: z.enum(['running', 'completed', 'stopped', 'failed']),
  baseline: EvaluationViewSchema,
  candidate: EvaluationViewSchema,
  /** 95% percentile-bootstrap intervals of each side's mean and of the paired difference. */
  scorers: z.array(ScorerComparisonSchema),
  overall: ScorerComparisonSchema,
  regressions: z.number(),
  regressed: z.boolean(),
  cases: z.array(ComparedCaseSchema),
  created_at: z.string(),
});
export type ExperimentView = z.infer<typeof ExperimentViewSchema>;

export const ExperimentSummarySchema = z.object({
  id: z.string(),
  agent: z.string(),
  dataset_id: z.string(),
  baseline_evaluation_id: z.string(),
  candidate_evaluation_id: z.string(),
  created_at: z.string(),
});
export const ExperimentListSchema = z.object({ data: z.array(ExperimentSummarySchema) });
