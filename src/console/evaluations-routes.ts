import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AgentDirectory } from '../agents/agent-directory.ts';
import type { AgentRuntimeDeps } from '../agents/agent-runner.ts';
import { listEvaluations, listExperiments } from '../evaluation/evaluation-repository.ts';
import { EvaluationService } from '../evaluation/evaluation-service.ts';
import { parseInput } from '../http/parse-body.ts';
import type { ChatPipeline } from '../pipeline/chat-pipeline.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { EvaluationListQuerySchema, StartEvaluationSchema, StartExperimentSchema } from './contract/evaluations.ts';
import { evaluationActions } from './evaluation-actions.ts';
import { evaluationView } from './evaluation-views.ts';

export type EvaluationRoutesDeps = {
  db: Database;
  now: () => Date;
  agents: AgentDirectory;
  runtime: AgentRuntimeDeps;
  chat: ChatPipeline;
  settle: () => Promise<void>;
  onError?: (error: unknown, evaluationId: string) => void;
};

/** The evaluations a route plugin starts, run by this process and stopped with the app. */
export function evaluationsOf(app: FastifyInstance, deps: EvaluationRoutesDeps) {
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
  return { actions: evaluationActions(deps.db, evaluations) };
}

const IdParamsSchema = z.object({ id: z.string().max(64) });
const ListQuerySchema = z.strictObject({ limit: z.coerce.number().int().min(1).max(200).default(50) });

/**
 * Evaluations and experiments of the session's account: admins and owners start them
 * (each case is a billed agent run), members read them. They run in this process, in the
 * background; the answer to a start is the stored evaluation, its progress read by id.
 */
export async function consoleEvaluationsRoutes(app: FastifyInstance, deps: EvaluationRoutesDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const starter = requireConsoleUser(deps.db, deps.now, 'admin');
  const { actions } = evaluationsOf(app, deps);
  const starterOf = (request: FastifyRequest) => {
    const caller = consoleCaller(request);
    return { accountId: caller.accountId, createdBy: caller.user.email };
  };

  app.post('/evaluations', { preHandler: starter }, async (request, reply) => {
    const body = parseInput(StartEvaluationSchema, request.body);
    return reply.code(202).send(await actions.startEvaluation(starterOf(request), body));
  });

  app.get('/evaluations', { preHandler: reader }, async (request) => {
    const query = parseInput(EvaluationListQuerySchema, request.query, 'query');
    const runs = await listEvaluations(deps.db, consoleCaller(request).accountId, { ...(query.agent && { agentId: query.agent }), limit: query.limit });
    return { data: runs.map((run) => evaluationView(run)) };
  });

  app.get('/evaluations/:id', { preHandler: reader }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    return actions.readEvaluation(consoleCaller(request).accountId, id);
  });

  app.post('/evaluations/:id/cancel', { preHandler: starter }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    return actions.cancelEvaluation(consoleCaller(request).accountId, id);
  });

  app.post('/experiments', { preHandler: starter }, async (request, reply) => {
    const body = parseInput(StartExperimentSchema, request.body);
    return reply.code(202).send(await actions.startExperiment(starterOf(request), body));
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
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    return actions.readExperiment(consoleCaller(request).accountId, id);
  });
}
