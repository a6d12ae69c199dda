import type { FastifyInstance, FastifyRequest } from 'fastify';
import { deleteResponse, newResponseId } from '../../conversations/response-repository.ts';
import { isJunctionError, JunctionError } from '../../core/errors.ts';
import { callContextFrom } from '../../gateway/call-context-from-request.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { parseInput } from '../../http/parse-body.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import type { AgentRunResult } from '../agent-runner.ts';
import { runAgent } from '../agent-runtime-loader.ts';
import type { AgentsApiDeps } from '../api/agents-api-deps.ts';
import { ResponseEventEncoder } from './response-event-encoder.ts';
import { submitBackgroundResponse } from './background-response.ts';
import { backgroundResponseRoutes } from './background-routes.ts';
import { approvalItems, claimPause, recordPause } from './response-approvals.ts';
import { prepareResponse, runOutcome } from './response-preparation.ts';
import type { StreamEvent } from './response-items.ts';
import { CreateResponseSchema } from './response-request-schema.ts';
import { type ResponseResource, type ResponseState, responseResource, wireUsage } from './response-resource.ts';
import { storeFailedResponse, storeFinishedResponse } from './response-store.ts';

const unixNow = () => Math.floor(Date.now() / 1000);

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

  app.delete('/responses/:id', async (request) => {
    const { id } = request.params as { id: string };
    if (!(await deleteResponse(deps.db, ownerOf(request), id))) throw new JunctionError('not_found', `No response found with id '${id}'.`);
    return { id, object: 'response', deleted: true };
  });

  app.post('/responses', { bodyLimit: LARGE_BODY_LIMIT }, async (request, reply) => {
    const body = parseInput(CreateResponseSchema, request.body);
    const owner = ownerOf(request);
    const requested = await deps.agents.require(owner.accountId, body.model);
    const { agent, continuation, turn, overrides, settings, clientTools, resume } = await prepareResponse(deps.db, requested, owner, body, (agentId) => deps.agents.files.get(agentId), deps.runtime.mcpAllowlist);
    if (body.background) return submitBackgroundResponse(deps, { agent: requested, owner, body, settings, stream: body.stream === true, reply });

    const id = newResponseId();
    const createdAt = unixNow();
    const state = (fields: Omit<ResponseState, 'id' | 'createdAt'>): ResponseState => ({ id, createdAt, ...fields });
    const context = callContextFrom(request, reply, 'agents.responses');
    if (resume && !(await claimPause(deps.db, resume.threadId))) {
      throw new JunctionError('invalid_request', 'These approvals were answered already by another request.', { param: 'previous_response_id' });
    }
    const run = runAgent(deps.runtime, {
      agent,
      context,
      history: continuation.history,
      input: turn.messages,
      overrides,
      ...(resume && { resume: { threadId: resume.threadId, from: 'pause' as const, value: resume.decisions } }),
    });
    const encoder = new ResponseEventEncoder({
      isClientTool: (name) => clientTools.has(name),
      snapshot: (status, output) => responseResource(settings, state({ status, completedAt: null, output, usage: null, error: null, incompleteReason: null })),
    });
    const storeEntry = (resource: ResponseResource, costMicros: number) => ({ owner, agentId: agent.id, continuation, body, settings, resource, costMicros });

    const finish = async (result: AgentRunResult): Promise<ResponseResource> => {
      const { status, incompleteReason } = runOutcome(result);
      const usage = wireUsage(result.usage, { modelCostMicros: result.modelCostMicros, toolCostMicros: result.toolCostMicros });
      const resource = responseResource(settings, state({ status, completedAt: status === 'completed' ? unixNow() : null, output: encoder.output, usage, error: null, incompleteReason }));
      const approvals = approvalItems(resource.output);
      if (settings.store) {
        await storeFinishedResponse(deps.db, storeEntry(resource, result.costMicros), { input: turn.messages, result }, async (tx) => {
          if (approvals.length > 0) await recordPause(tx, { threadId: result.threadId, responseId: id, owner, agentId: agent.id, items: approvals });
        });
      } else if (approvals.length > 0) {
        await deps.runtime.checkpointer?.deleteThread(result.threadId); // unstored: nothing can name it to resume
      }
      return resource;
    };

    /**
     * The failed response, from what the run's events reported before it broke (its steps
     * were billed). A client that went away cancelled it: `cancelled`, billed the same way.
     */
    const fail = async (failure: JunctionError): Promise<ResponseResource> => {
      const { totals } = encoder;
      const usage = wireUsage(totals.usage, totals);
      const cancelled = context.signal.aborted;
      const error = cancelled ? null : { code: failure.code, message: failure.message };
      const resource = responseResource(settings, state({ status: cancelled ? 'cancelled' : 'failed', completedAt: null, output: encoder.output, usage, error, incompleteReason: null }));
      if (settings.store) {
        await storeFailedResponse(deps.db, storeEntry(resource, totals.modelCostMicros + totals.toolCostMicros)).catch((storeError: unknown) => {
          request.log.error({ err: storeError }, 'could not save a failed response');
        });
      }
      return resource;
    };

    const asFailure = (error: unknown): JunctionError => {
      const failure = isJunctionError(error) ? error : new JunctionError('internal_error', 'The agent run failed.', { cause: error });
      if (failure.status >= 500) request.log.error({ err: error }, 'agent response failed');
      return failure;
    };

    if (!body.stream) {
      try {
        for await (const event of run.events) encoder.encode(event);
        const result = finished(run.result());
        encoder.approvalRequests(result.pendingApprovals ?? []);
        encoder.closeAll();
        return await finish(result);
      } catch (error) {
        const failure = asFailure(error);
        await fail(failure);
        throw failure;
      }
    }

    const sse = new SseWriter(reply);
    const send = async (events: StreamEvent[]) => {
      for (const event of events) await sse.send(event, event.type);
    };
    try {
      await send(encoder.start());
      for await (const event of run.events) await send(encoder.encode(event));
      const result = finished(run.result());
      await send([...encoder.approvalRequests(result.pendingApprovals ?? []), ...encoder.closeAll()]);
      const resource = await finish(result);
      await send([encoder.terminal(resource)]);
    } catch (error) {
      const failure = asFailure(error);
      const resource = await fail(failure);
      await send([encoder.error(failure), encoder.terminal(resource)]);
    }
    sse.end('data: [DONE]\n\n');
    return reply;
  });
}

const finished = (result: AgentRunResult | undefined): AgentRunResult => {
  if (!result) throw new JunctionError('internal_error', 'The agent run ended without a result.');
  return result;
};
