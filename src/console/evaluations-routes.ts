import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AgentDirectory } from '../agents/agent-directory.ts';
import type { AgentRuntimeDeps } from '../agents/agent-runner.ts';
import { JunctionError } from '../core/errors.ts';
import { usdToMicros } from '../core/money.ts';
import { getEvaluation, listEvaluations, listExperiments, listResults } from '../evaluation/evaluation-repository.ts';
import { EvaluationService } from '../evaluation/evaluation-service.ts';
import { type ExperimentSide, readExperiment, startExperiment } from '../evaluation/experiment-service.ts';
import { parseInput } from '../http/parse-body.ts';
import type { ChatPipeline } from '../pipeline/chat-pipeline.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { EvaluationListQuerySchema, ExperimentSideSchema, StartEvaluationSchema, StartExperimentSchema } from './contract/evaluations.ts';
import { evaluationDetail, evaluationView, experimentView } from './evaluation-views.ts';

export type EvaluationRoutesDeps = {
  db: Database;
  now: () => Date;
  agents: AgentDirectory;
  runtime: AgentRuntimeDeps;
  chat: ChatPipeline;
  settle: () => Promise<void>;
  onError?: (error: unknown, evaluationId: string) => void;
};

const EvaluationParamsSchema = z.object({ id: z.string().max(64) });
const ExperimentParamsSchema = z.object({ id: z.string().max(64) });
const ListQuerySchema = z.strictObject({ limit: z.coerce.number().int().min(1).max(200).default(50) });

const notFound = (what: string, id: string) => new JunctionError('not_found', `No ${what} '${id.slice(0, 64)}' in this account.`);
const toSide = (side: z.infer<typeof ExperimentSideSchema>): ExperimentSide => ('version' in side ? { version: side.version } : { evaluationId: side.evaluation_id });

/**
 * Evaluations and experiments of the session's account: admins and owners start them
 * (each case is a billed agent run), members read them. They run in this process, in the
 * background; the answer to a start is the stored evaluation, its progress read by id.
 */
export async function consoleEvaluationsRoutes(app: FastifyInstance, deps: EvaluationRoutesDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const starter = requireConsoleUser(deps.db, deps.now, 'admin');
  const evaluations = new EvaluationService({
    db: deps.db,
    runtime: deps.runtime,
    agents: deps.agents,
    chat: deps.chat,
    now: deps.now,
    settle: deps.settle,
    ...(deps.onError && { onError: deps.onError }),
  });
  app.addHook('onClose', () => evaluations.close());

  const runOptions = (body: { scorers?: unknown[] | undefined; concurrency?: number | undefined; max_cost_usd?: number | undefined }) => ({
    ...(body.scorers !== undefined && { scorers: body.scorers }),
    ...(body.concurrency !== undefined && { concurrency: body.concurrency }),
    ...(body.max_cost_usd !== undefined && { maxCostMicros: usdToMicros(body.max_cost_usd) }),
  });

  app.post('/evaluations', { preHandler: starter }, async (request, reply) => {
    const body = parseInput(StartEvaluationSchema, request.body);
    const caller = consoleCaller(request);
    const run = await evaluations.start({
      accountId: caller.accountId,
      agentId: body.agent,
      dataset: body.dataset,
      ...(body.version !== undefined && { version: body.version }),
      ...runOptions(body),
      createdBy: caller.user.email,
    });
    return reply.code(202).send(evaluationView(run, []));
  });

  app.get('/evaluations', { preHandler: reader }, async (request) => {
    const query = parseInput(EvaluationListQuerySchema, request.query, 'query');
    const runs = await listEvaluations(deps.db, consoleCaller(request).accountId, { ...(query.agent && { agentId: query.agent }), limit: query.limit });
    return { data: runs.map((run) => evaluationView(run)) };
  });

  app.get('/evaluations/:id', { preHandler: reader }, async (request) => {
    const { id } = parseInput(EvaluationParamsSchema, request.params, 'path');
    const accountId = consoleCaller(request).accountId;
    const run = await getEvaluation(deps.db, accountId, id);
    if (!run) throw notFound('evaluation', id);
    return evaluationDetail(run, await listResults(deps.db, accountId, id));
  });

  app.post('/experiments', { preHandler: starter }, async (request, reply) => {
    const body = parseInput(StartExperimentSchema, request.body);
    const caller = consoleCaller(request);
    const state = await startExperiment(deps.db, evaluations, {
      accountId: caller.accountId,
      agentId: body.agent,
      dataset: body.dataset,
      baseline: toSide(body.baseline),
      candidate: toSide(body.candidate),
      ...runOptions(body),
      createdBy: caller.user.email,
    });
    return reply.code(202).send(experimentView(state));
  });

  app.get('/experiments', { preHandler: reader }, async (request) => {
    const { limit } = parseInput(ListQuerySchema, request.query, 'query');
    const experiments = await listExperiments(deps.db, consoleCaller(request).accountId, limit);
    return {
      data: experiments.map((experiment) => ({
        id: experiment.id,
        agent: experiment.agentId,
        dataset_id: experiment.datasetId,
        baseline_evaluation_id: experiment.baselineEvaluationId,
        candidate_evaluation_id: experiment.candidateEvaluationId,
        created_at: experiment.createdAt.toISOString(),
      })),
    };
  });

  app.get('/experiments/:id', { preHandler: reader }, async (request) => {
    const { id } = parseInput(ExperimentParamsSchema, request.params, 'path');
    const state = await readExperiment(deps.db, consoleCaller(request).accountId, id);
    if (!state) throw notFound('experiment', id);
    return experimentView(state);
  });
}
