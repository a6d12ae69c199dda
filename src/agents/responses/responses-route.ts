import type { FastifyInstance, FastifyRequest } from 'fastify';
import { deleteResponse } from '../../conversations/response-repository.ts';
import { JunctionError } from '../../core/errors.ts';
import { callContextFrom } from '../../gateway/call-context-from-request.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { parseInput } from '../../http/parse-body.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import type { AgentsApiDeps } from '../api/agents-api-deps.ts';
import { submitBackgroundResponse } from './background-response.ts';
import { backgroundResponseRoutes } from './background-routes.ts';
import { compactResponseRoute } from './compact-response.ts';
import { startForegroundResponse } from './foreground-response.ts';
import { inputItemsRoutes } from './input-items-routes.ts';
import { prepareOptions, prepareResponse } from './response-preparation.ts';
import { CreateResponseSchema } from './response-request-schema.ts';

/**
 * `POST /agents/v1/responses` (Open Responses), `GET` and `DELETE /responses/{id}`.
 * The same agent runtime as the Agents chat endpoint; every step of the run (reasoning,
 * text, server tool calls and their results, client tool calls) becomes an output item
 * and, when streaming, the spec's semantic events as it happens.
 */
export async function agentResponsesRoutes(app: FastifyInstance, deps: AgentsApiDeps): Promise<void> {
  const ownerOf = (request: FastifyRequest) => {
    const key = authenticatedKey(request);
    return { accountId: key.accountId, keyId: key.id };
  };

  // GET /responses/{id} (also for runs still going) and POST /responses/{id}/cancel.
  await app.register(backgroundResponseRoutes, deps);
  await app.register(compactResponseRoute, deps);
  await app.register(inputItemsRoutes, deps);

  app.delete('/responses/:id', async (request) => {
    const { id } = request.params as { id: string };
    if (!(await deleteResponse(deps.db, ownerOf(request), id))) throw new JunctionError('not_found', `No response found with id '${id}'.`);
    return { id, object: 'response', deleted: true };
  });

  app.post('/responses', { bodyLimit: LARGE_BODY_LIMIT }, async (request, reply) => {
    const body = parseInput(CreateResponseSchema, request.body);
    if (body.background && body.generate === false) throw new JunctionError('invalid_request', 'A generate: false warm-up answers at once: send it without background.', { param: 'generate' });
    const owner = ownerOf(request);
    const requested = await deps.agents.require(owner.accountId, body.model);
    const prepared = await prepareResponse(deps.db, requested, owner, body, prepareOptions(deps));
    if (body.background) return submitBackgroundResponse(deps, { agent: requested, owner, body, settings: prepared.settings, stream: body.stream === true, reply });

    const response = await startForegroundResponse(deps, { owner, body, prepared, context: callContextFrom(request, reply, 'agents.responses'), log: request.log });
    if (!body.stream) return response.json();
    const sse = new SseWriter(reply);
    await response.stream(
      async (events) => {
        for (const event of events) {
          // A promise only while the client lags: awaiting nothing cost a microtask per event.
          const full = sse.send(event, event.type);
          if (full) await full;
        }
      },
      (failure, encoder) => encoder.error(failure),
    );
    sse.end('data: [DONE]\n\n');
    return reply;
  });
}
