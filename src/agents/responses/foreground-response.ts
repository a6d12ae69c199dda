import type { FastifyBaseLogger } from 'fastify';
import { newResponseId } from '../../conversations/response-repository.ts';
import { JunctionError } from '../../core/errors.ts';
import { agentRunFailure } from '../agent-run-failure.ts';
import type { CallContext } from '../../pipeline/call-context.ts';
import type { Queryable } from '../../store/database.ts';
import type { AgentRunResult } from '../agent-runner.ts';
import { runAgent } from '../agent-runtime-loader.ts';
import type { AgentsApiDeps } from '../api/agents-api-deps.ts';
import type { ConnectionResponses } from './connection-responses.ts';
import { approvalItems, claimPause, recordPause } from './response-approvals.ts';
import { ResponseEventEncoder } from './response-event-encoder.ts';
import type { StreamEvent } from './response-items.ts';
import type { prepareResponse } from './response-preparation.ts';
import { runOutcome } from './response-preparation.ts';
import type { CreateResponseRequest } from './response-request-schema.ts';
import { type ResponseResource, type ResponseState, responseResource, wireUsage } from './response-resource.ts';
import { type ResponseToStore, storeFailedResponse, storeFinishedResponse, storeWarmUpResponse } from './response-store.ts';

const unixNow = () => Math.floor(Date.now() / 1000);

export type ForegroundRequest = {
  owner: { accountId: string; keyId: string };
  body: CreateResponseRequest;
  prepared: Awaited<ReturnType<typeof prepareResponse>>;
  /** The caller's key, request id and disconnect signal (HTTP request or WebSocket). */
  context: CallContext;
  log: FastifyBaseLogger;
  /** A WebSocket connection's memory: an unstored response is kept there for the connection's next turn. */
  remembered?: ConnectionResponses;
};

/** A response run in the caller's request, read whole (`json`) or as its semantic events (`stream`), once. */
export type ForegroundResponse = {
  /** The finished response; a failed run is stored as failed and its error thrown. */
  json(): Promise<ResponseResource>;
  /**
   * Every event in order through `send`, ending with the terminal event. A run that
   * fails midway sends `failureEvent(failure)` (the transport's error event) before it.
   */
  stream(send: (events: StreamEvent[]) => Promise<void>, failureEvent: (failure: JunctionError, encoder: ResponseEventEncoder) => StreamEvent): Promise<void>;
};

/**
 * One foreground response, whatever carries it (HTTP JSON, SSE, a WebSocket): the agent
 * runs in the caller's request, its events become the spec's items and events, and the
 * finished (or failed) response is stored as the request asked.
 */
export async function startForegroundResponse(deps: AgentsApiDeps, request: ForegroundRequest): Promise<ForegroundResponse> {
  const { owner, body, context } = request;
  const { agent, continuation, turn, overrides, settings, clientTools, resume, mcpToolOf } = request.prepared;
  const id = newResponseId();
  const createdAt = unixNow();
  const state = (fields: Omit<ResponseState, 'id' | 'createdAt'>): ResponseState => ({ id, createdAt, ...fields });
  const storeEntry = (resource: ResponseResource, costMicros: number) => ({ owner, agentId: agent.id, continuation, body, settings, resource, costMicros });
  if (body.generate === false) {
    if (resume) throw new JunctionError('invalid_request', 'Answering approvals runs the agent: send it without generate: false.', { param: 'generate' });
    return warmUp(deps, request, { id, state, storeEntry });
  }
  if (resume && !(await claimPause(deps.db, resume.threadId))) {
    throw new JunctionError('invalid_request', 'These approvals were answered already by another request.', { param: 'previous_response_id' });
  }
  const run = runAgent(deps.runtime, {
    agent,
    context,
    conversationId: continuation.conversation.id,
    responseId: id,
    history: continuation.history,
    input: turn.messages,
    overrides,
    ...(resume && { resume: { threadId: resume.threadId, from: 'pause' as const, value: resume.decisions } }),
  });
  const encoder = new ResponseEventEncoder({
    isClientTool: (name) => clientTools.has(name),
    mcpToolOf,
    snapshot: (status, output) => responseResource(settings, state({ status, completedAt: null, output, usage: null, error: null, incompleteReason: null })),
  });

  const finish = async (result: AgentRunResult): Promise<ResponseResource> => {
    const { status, incompleteReason } = runOutcome(result);
    const usage = wireUsage(result.usage, { modelCostMicros: result.modelCostMicros, toolCostMicros: result.toolCostMicros });
    const resource = responseResource(settings, state({ status, completedAt: status === 'completed' ? unixNow() : null, output: encoder.output, usage, error: null, incompleteReason }));
    const approvals = approvalItems(resource.output);
    if (settings.store) {
      // A paused run records its pause in the same transaction; an answered one needs no transaction.
      const recordThePause = approvals.length > 0 ? (tx: Queryable) => recordPause(tx, { threadId: result.threadId, responseId: id, owner, agentId: agent.id, items: approvals }) : undefined;
      await storeFinishedResponse(deps.db, storeEntry(resource, result.costMicros), { input: turn.messages, result }, recordThePause);
    } else {
      if (approvals.length > 0) await deps.runtime.checkpointer?.deleteThread(result.threadId); // unstored: nothing can name it to resume
      request.remembered?.remember(id, { agentId: agent.id, history: [...continuation.history, ...turn.messages, ...result.messages], output: resource.output });
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
    // A failed continuation forgets the unstored response it continued: a retry gets previous_response_not_found.
    if (body.previous_response_id) request.remembered?.forget(body.previous_response_id);
    if (settings.store) {
      await storeFailedResponse(deps.db, storeEntry(resource, totals.modelCostMicros + totals.toolCostMicros)).catch((storeError: unknown) => {
        request.log.error({ err: storeError }, 'could not save a failed response');
      });
    }
    return resource;
  };

  const asFailure = (error: unknown): JunctionError => {
    const failure = agentRunFailure(error);
    if (failure.status >= 500) request.log.error({ err: error }, 'agent response failed');
    return failure;
  };

  return {
    async json() {
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
    },
    async stream(send, failureEvent) {
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
        await send([failureEvent(failure, encoder), encoder.terminal(resource)]);
      }
    },
  };
}

/**
 * `generate: false`: no model call (nothing billed). The response completes at once with
 * no output, and its input is kept (stored, or in the connection's memory) so the next
 * request that names it continues with that input as history.
 */
async function warmUp(
  deps: AgentsApiDeps,
  request: ForegroundRequest,
  made: { id: string; state: (fields: Omit<ResponseState, 'id' | 'createdAt'>) => ResponseState; storeEntry: (resource: ResponseResource, costMicros: number) => ResponseToStore },
): Promise<ForegroundResponse> {
  const { agent, continuation, turn, settings } = request.prepared;
  const usage = wireUsage({ inputTokens: 0, outputTokens: 0 }, { modelCostMicros: 0, toolCostMicros: 0 });
  const resource = responseResource(settings, made.state({ status: 'completed', completedAt: unixNow(), output: [], usage, error: null, incompleteReason: null }));
  if (settings.store) await storeWarmUpResponse(deps.db, made.storeEntry(resource, 0), turn.messages);
  else request.remembered?.remember(made.id, { agentId: agent.id, history: [...continuation.history, ...turn.messages], output: [] });
  const encoder = new ResponseEventEncoder({ isClientTool: () => false, snapshot: (status, output) => ({ ...resource, status, output, completed_at: null, usage: null }) });
  return {
    json: async () => resource,
    async stream(send) {
      await send([...encoder.start(), encoder.terminal(resource)]);
    },
  };
}

const finished = (result: AgentRunResult | undefined): AgentRunResult => {
  if (!result) throw new JunctionError('internal_error', 'The agent run ended without a result.');
  return result;
};
