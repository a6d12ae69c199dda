import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { ConversationOwner } from '../../conversations/conversation-repository.ts';
import { newResponseId } from '../../conversations/response-repository.ts';
import { JunctionError } from '../../core/errors.ts';
import { agentRunFailure } from '../agent-run-failure.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import type { LoadedAgent } from '../agent-registry.ts';
import type { AgentsApiDeps } from '../api/agents-api-deps.ts';
import { insertEvents, insertRun, readEvents, type RunRow, RUN_ACTIVE, runStatus } from '../durable/run-repository.ts';
import { newRunId } from '../run-id.ts';
import { ResponseEventEncoder } from './response-event-encoder.ts';
import type { CreateResponseRequest } from './response-request-schema.ts';
import { type ResponseResource, type ResponseSettings, responseResource } from './response-resource.ts';

/**
 * `background: true`: the request is checked as any other (a bad body or an unknown
 * previous response is still a 400/404 now), recorded as an `agent_runs` row held by
 * this process, and answered at once with the `queued` response. The run goes on in
 * BackgroundRuns; its events are kept for `GET /responses/{id}?stream=true`.
 */

/** What a process needs to rebuild the run (the body is parsed again by its schema). */
export const StoredRunRequestSchema = z.object({ body: z.unknown(), settings: z.record(z.string(), z.unknown()), created_at: z.number().int() });
export type StoredRunRequest = { body: CreateResponseRequest; settings: ResponseSettings; created_at: number };

const unixNow = () => Math.floor(Date.now() / 1000);

export type BackgroundSubmission = { agent: LoadedAgent; owner: ConversationOwner; body: CreateResponseRequest; settings: ResponseSettings; stream: boolean; reply: FastifyReply };

export async function submitBackgroundResponse(deps: AgentsApiDeps, submission: BackgroundSubmission): Promise<ResponseResource | FastifyReply> {
  const runs = deps.backgroundRuns;
  if (!runs) throw new JunctionError('invalid_request', 'Background responses are not available in this process.', { param: 'background' });
  if (submission.body.store === false) throw new JunctionError('invalid_request', 'A background response is always stored: store: false cannot be combined with background: true.', { param: 'store' });
  const { agent, owner, body, settings } = submission;
  const id = newResponseId();
  const runId = newRunId();
  const createdAt = unixNow();
  const queued = responseResource(settings, { id, createdAt, status: 'queued', completedAt: null, output: [], usage: null, error: null, incompleteReason: null });
  const encoder = new ResponseEventEncoder({ isClientTool: () => false, snapshot: () => queued });
  const events = [encoder.lifecycle('response.created', queued), encoder.lifecycle('response.queued', queued)];
  const request: StoredRunRequest = { body, settings, created_at: createdAt };
  await deps.db.transaction(async (tx) => {
    await insertRun(tx, { id: runId, responseId: id, accountId: owner.accountId, keyId: owner.keyId, agentId: agent.id, request, holderId: runs.holderId, leaseSeconds: runs.leaseSeconds });
    await insertEvents(tx, runId, events);
  });
  runs.launch({
    id: runId,
    response_id: id,
    account_id: owner.accountId,
    key_id: owner.keyId,
    agent_id: agent.id,
    status: 'queued',
    background: true,
    request,
    holder_id: runs.holderId,
    cancel_requested: false,
    snapshot: null,
    attempts: 1,
    created_at: new Date(createdAt * 1000),
  });
  if (!submission.stream) return queued;
  return streamRunEvents(deps, submission.reply, runId, -1);
}

const TAIL_INTERVAL_MS = 100;
const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete']);

/**
 * Replays a run's events after `startingAfter` and follows it until its terminal event
 * (polling the store: the run may be held by another process). A client that goes away
 * stops only its own stream; the run goes on.
 */
export async function streamRunEvents(deps: AgentsApiDeps, reply: FastifyReply, runId: string, startingAfter: number): Promise<FastifyReply> {
  const sse = new SseWriter(reply);
  let after = startingAfter;
  let done = false;
  while (!done && !reply.raw.destroyed) {
    const events = await readEvents(deps.db, runId, after);
    for (const event of events) {
      await sse.send(event, String(event.type));
      after = event.sequence_number;
      if (TERMINAL.has(String(event.type))) done = true;
    }
    if (done) break;
    if (events.length === 0) {
      // A run that ended without a terminal event (cancelled while nobody held it) has nothing more to send.
      const status = await runStatus(deps.db, runId);
      if (!RUN_ACTIVE.some((active) => active === status)) break;
      await new Promise((resolve) => setTimeout(resolve, TAIL_INTERVAL_MS));
    }
  }
  sse.end('data: [DONE]\n\n');
  return reply;
}

export const asJunctionFailure = (error: unknown): JunctionError => agentRunFailure(error);
export type { RunRow };
