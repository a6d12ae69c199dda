import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { getResponse } from '../../conversations/response-repository.ts';
import { isJunctionError, JunctionError } from '../../core/errors.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import type { AgentsApiDeps } from '../api/agents-api-deps.ts';
import { cancelPausedRun, cancelUnheldRun, findRunByResponse, readEvents, requestCancel, RUN_ACTIVE, type RunRow, RunSnapshotSchema } from '../durable/run-repository.ts';
import { StoredRunRequestSchema, streamRunEvents } from './background-response.ts';
import type { OutputItem, StreamEvent } from './response-items.ts';
import { type ResponseSettings, type ResponseState, responseResource, wireUsage } from './response-resource.ts';
import type { Queryable } from '../../store/database.ts';
import { storedResource } from './response-store.ts';
import { applyStreamedEvents } from './streamed-output.ts';

const RetrieveQuerySchema = z.strictObject({
  stream: z.enum(['true', 'false']).optional(),
  starting_after: z.coerce.number().int().min(-1).optional(),
  include: z.union([z.string(), z.array(z.string())]).optional(),
});

const CANCEL_WAIT_MS = 10_000;
const isActive = (row: RunRow) => RUN_ACTIVE.some((status) => status === row.status);

/**
 * `GET /responses/{id}` (the response as it stands; `?stream=true&starting_after=N`
 * replays a background response's events and follows it) and
 * `POST /responses/{id}/cancel` (background responses, and any response waiting for
 * approval; ends `cancelled`).
 */
export async function backgroundResponseRoutes(app: FastifyInstance, deps: AgentsApiDeps): Promise<void> {
  const ownerOf = (request: FastifyRequest) => {
    const key = authenticatedKey(request);
    return { accountId: key.accountId, keyId: key.id };
  };

  /** The stored response once a run is over; while it runs (or if it ended unstored), the run's own view. */
  const currentResource = async (owner: { accountId: string; keyId: string }, id: string, run: RunRow | undefined) => {
    if (!run || !isActive(run)) {
      try {
        return storedResource(await getResponse(deps.db, owner, id));
      } catch (error) {
        if (!run || !isJunctionError(error) || error.code !== 'not_found') throw error;
      }
    }
    return runResource(deps.db, run);
  };

  app.get('/responses/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const query = parseInput(RetrieveQuerySchema, request.query);
    const owner = ownerOf(request);
    const run = await findRunByResponse(deps.db, owner, id);
    if (query.stream === 'true') {
      if (!run) {
        await getResponse(deps.db, owner, id); // 404 when unknown
        throw new JunctionError('invalid_request', 'Only background responses can be streamed again; this one was not created with background: true.', { param: 'stream' });
      }
      return streamRunEvents(deps, reply, run.id, query.starting_after ?? -1);
    }
    return currentResource(owner, id, run);
  });

  app.post('/responses/:id/cancel', { config: { bodyOptional: true } }, async (request) => {
    const { id } = request.params as { id: string };
    const owner = ownerOf(request);
    let run = await findRunByResponse(deps.db, owner, id);
    if (!run) {
      await getResponse(deps.db, owner, id); // 404 when unknown
      throw new JunctionError('invalid_request', 'Only background responses can be cancelled.', { param: 'response_id' });
    }
    if (isActive(run)) {
      // Nobody holds it (its process died and no other took it over yet): cancelled here. Else its holder stops it.
      if (await cancelUnheldRun(deps.db, run.id)) await deps.runtime.checkpointer?.deleteThread(run.id);
      else await requestCancel(deps.db, run.id);
      const deadline = Date.now() + CANCEL_WAIT_MS;
      run = await findRunByResponse(deps.db, owner, id);
      while (run && isActive(run) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        run = await findRunByResponse(deps.db, owner, id);
      }
    }
    // A run paused for approval ends here, also one that reached its pause while the cancel
    // waited: no later approval can resume it.
    if (run?.status === 'requires_action' && (await cancelPausedRun(deps.db, run.id))) {
      await deps.runtime.checkpointer?.deleteThread(run.id);
      run = await findRunByResponse(deps.db, owner, id);
    }
    return currentResource(owner, id, run);
  });
}

/**
 * A run's response from its row: the settings it was created with, the totals at its last
 * checkpoint, and, while it runs, the output as far as its events have streamed (a
 * checkpoint's output lacks the text of an item still open, and everything since).
 */
async function runResource(db: Queryable, run: RunRow) {
  const request = StoredRunRequestSchema.parse(run.request);
  const snapshot = run.snapshot === null ? undefined : RunSnapshotSchema.parse(run.snapshot);
  const checkpointed = (snapshot?.output ?? []) as OutputItem[];
  const output = isActive(run) ? applyStreamedEvents([], (await readEvents(db, run.id, -1)) as StreamEvent[]) : checkpointed;
  return responseResource(request.settings as ResponseSettings, {
    id: run.response_id,
    createdAt: request.created_at,
    status: run.status as ResponseState['status'],
    completedAt: null,
    output,
    usage: snapshot ? wireUsage(snapshot.totals.usage, snapshot.totals) : null,
    error: null,
    incompleteReason: null,
  });
}
