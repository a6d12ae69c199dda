import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import { checkKey } from '../http/auth-hook.ts';
import { parseInput } from '../http/parse-body.ts';
import type { KeyAuthenticator } from '../keys/key-authenticator.ts';
import { StartEvaluationSchema, StartExperimentSchema } from './contract/evaluations.ts';
import type { Starter } from './evaluation-actions.ts';
import { type EvaluationRoutesDeps, evaluationsOf } from './evaluations-routes.ts';

const IdParamsSchema = z.object({ id: z.string().max(64) });

/**
 * `/agents/v1/evaluations` and `/agents/v1/experiments`: the console's evaluation routes
 * for a team's CI, with an agent key only (never a console session: a member's playground
 * key must not start billed runs). The runs are billed to that key, within its limits.
 */
export async function agentsEvaluationsRoutes(app: FastifyInstance, deps: EvaluationRoutesDeps & { authenticator: KeyAuthenticator }): Promise<void> {
  app.addHook('preHandler', checkKey(deps.authenticator, { kinds: ['agent'] }));
  const { actions } = evaluationsOf(app, deps);
  const starterOf = (request: FastifyRequest): Starter => {
    const key = request.apiKey;
    if (!key) throw new JunctionError('invalid_api_key', 'An agent key is required.');
    return { accountId: key.accountId, createdBy: `key ${key.name}`, key };
  };

  app.post('/evaluations', async (request, reply) => reply.code(202).send(await actions.startEvaluation(starterOf(request), parseInput(StartEvaluationSchema, request.body))));
  app.get('/evaluations/:id', async (request) => actions.readEvaluation(starterOf(request).accountId, parseInput(IdParamsSchema, request.params, 'path').id));
  app.post('/evaluations/:id/cancel', async (request) => actions.cancelEvaluation(starterOf(request).accountId, parseInput(IdParamsSchema, request.params, 'path').id));
  app.post('/experiments', async (request, reply) => reply.code(202).send(await actions.startExperiment(starterOf(request), parseInput(StartExperimentSchema, request.body))));
  app.get('/experiments/:id', async (request) => actions.readExperiment(starterOf(request).accountId, parseInput(IdParamsSchema, request.params, 'path').id));
}
