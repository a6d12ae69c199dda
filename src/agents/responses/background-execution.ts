import type { Logger } from 'pino';
import { JunctionError } from '../../core/errors.ts';
import { assertActive } from '../../keys/key-authenticator.ts';
import { findManagedKey } from '../../keys/key-repository.ts';
import type { CallContext } from '../../pipeline/call-context.ts';
import type { Database } from '../../store/database.ts';
import type { AgentDirectory } from '../agent-directory.ts';
import { findAnnounced } from '../agent-pinning.ts';
import type { AgentRuntimeDeps } from '../agent-runner.ts';
import type { RunTotals } from '../run-totals.ts';
import { runAgent } from '../agent-runtime-loader.ts';
import { settleAbandonedRunCalls } from '../../billing/lease-sql.ts';
import type { StopReason } from '../durable/background-runs.ts';
import { type BilledUsage, billedBeyondCheckpoint, billedUsageOfRun, withEarlierAttempts } from '../durable/earlier-attempt-usage.ts';
import { dropEventsAfter, finishRun, type RunRow, type RunSnapshot, RunSnapshotSchema, saveProgress } from '../durable/run-repository.ts';
import { asJunctionFailure, type StoredRunRequest, StoredRunRequestSchema } from './background-response.ts';
import type { McpToolOf } from './mcp-tool-names.ts';
import { approvalItems, recordPause } from './response-approvals.ts';
import { ResponseEventEncoder } from './response-event-encoder.ts';
import type { OutputItem, StreamEvent } from './response-items.ts';
import { prepareOptions, prepareResponse, runOutcome } from './response-preparation.ts';
import { CreateResponseSchema } from './response-request-schema.ts';
import { type ResponseResource, type ResponseSettings, type ResponseState, responseResource, wireUsage } from './response-resource.ts';
import { storeFailedResponse, storeFinishedResponse } from './response-store.ts';

export type BackgroundExecutionDeps = { db: Database; agents: AgentDirectory; runtime: AgentRuntimeDeps; holderId: string; logger: Logger };

/** Events reach the store at least this often while a step streams, and always at a step's end. */
const EVENT_FLUSH_MS = 150;
/** The events sent at submission: response.created, response.queued. */
const SUBMITTED_SEQUENCE = 1;

/**
 * Runs (or resumes) one background run to its end. Rebuilt entirely from its row: the
 * stored body is prepared again, the key must still be active, and the graph goes on
 * from the run's last checkpoint (thread id = run id). After every checkpoint the
 * response as it stands (output, totals, last event) is saved with the new events, so a
 * process that takes over drops the events sent after it and produces them again.
 * Every write is fenced on holding the run, and finishing stores the response in the
 * same transaction as the run's final status: a run finishes once.
 */
export async function executeBackgroundRun(deps: BackgroundExecutionDeps, row: RunRow, stop: AbortSignal, resumed: boolean): Promise<void> {
  const run = await openRunSession(deps, row, stop, resumed);
  const timer = setInterval(() => void run.flush(false).catch(() => undefined), EVENT_FLUSH_MS);
  try {
    await runToEnd(run);
  } catch (error) {
    await finishFailedRun(run, error);
  } finally {
    clearInterval(timer);
  }
}

/** One background run as it executes: its stored request, its event encoder, the events not yet written, and how it stops. */
type RunSession = {
  deps: BackgroundExecutionDeps;
  row: RunRow;
  request: StoredRunRequest;
  owner: { accountId: string; keyId: string };
  encoder: ResponseEventEncoder;
  controller: AbortController;
  /** Set once the run is prepared: the MCP tool behind a wire name. */
  mcpToolOf: McpToolOf | undefined;
  /** Set once the runner started: what it used so far. */
  runTotals: (() => RunTotals | undefined) | undefined;
  /** Set once the runner started: the totals of the checkpoint a run taken over went on from. */
  resumedTotals: (() => RunTotals | undefined) | undefined;
  /** A run taken over: what its usage rows held when this process took it (earlier attempts' bill). */
  earlierAttempts: BilledUsage | undefined;
  /** The totals of the snapshot the response went on from, if any. */
  snapshotTotals: BilledUsage | undefined;
  /** How many of the run's checkpointed messages `encoder.output` shows (unknown for a snapshot that did not say). */
  shownMessages: number | undefined;
  state(fields: Omit<ResponseState, 'id' | 'createdAt'>): ResponseState;
  send(events: StreamEvent[]): void;
  /** Writes the pending events (and the response as it stands, with a snapshot); a lost lease stops the run. */
  flush(withSnapshot: boolean): Promise<void>;
};

/** The run rebuilt from its row: the stored body parsed again, events after its last snapshot dropped when another process ran it. */
async function openRunSession(deps: BackgroundExecutionDeps, row: RunRow, stop: AbortSignal, resumed: boolean): Promise<RunSession> {
  const { db, holderId } = deps;
  const stored = StoredRunRequestSchema.parse(row.request);
  const request: StoredRunRequest = { body: CreateResponseSchema.parse(stored.body), settings: stored.settings as ResponseSettings, created_at: stored.created_at };
  const snapshot = row.snapshot === null ? undefined : RunSnapshotSchema.parse(row.snapshot);
  if (resumed) {
    await dropEventsAfter(db, row.id, snapshot?.sequence ?? SUBMITTED_SEQUENCE);
    // The step the dead process had under way is billed now, so this response can count it.
    await settleAbandonedRunCalls(db, row.id, holderId);
  }
  const earlierAttempts = resumed ? await billedUsageOfRun(db, row.id) : undefined;

  const state = (fields: Omit<ResponseState, 'id' | 'createdAt'>): ResponseState => ({ id: row.response_id, createdAt: request.created_at, ...fields });
  // The run stops on cancel, shutdown or a lost lease (from BackgroundRuns), or when a write finds the lease gone.
  const controller = new AbortController();
  const abort = (reason: StopReason) => controller.abort(reason);
  stop.addEventListener('abort', () => abort(stop.reason as StopReason), { once: true });
  if (stop.aborted) abort(stop.reason as StopReason);

  let pending: StreamEvent[] = [];
  let writing = Promise.resolve();
  const session: RunSession = {
    deps,
    row,
    request,
    owner: { accountId: row.account_id, keyId: row.key_id },
    controller,
    mcpToolOf: undefined,
    runTotals: undefined,
    resumedTotals: undefined,
    earlierAttempts,
    snapshotTotals: snapshot?.totals,
    // Without a snapshot the response shows none of what the run produced.
    shownMessages: snapshot ? snapshot.messages : 0,
    state,
    encoder: new ResponseEventEncoder({
      isClientTool: (name) => (request.body.tools ?? []).some((tool) => tool.type === 'function' && tool.name === name),
      mcpToolOf: (name) => session.mcpToolOf?.(name),
      snapshot: (status, output) => responseResource(request.settings, state({ status, completedAt: null, output, usage: null, error: null, incompleteReason: null })),
      resume: snapshot ? { sequence: snapshot.sequence, output: snapshot.output as OutputItem[], totals: snapshot.totals } : { sequence: SUBMITTED_SEQUENCE, output: [], totals: emptyEncoderTotals() },
    }),
    send: (events) => pending.push(...events),
    flush: (withSnapshot) => {
      const events = pending;
      pending = [];
      const { encoder } = session;
      const shown = session.shownMessages === undefined ? {} : { messages: session.shownMessages };
      const progress: RunSnapshot | undefined = withSnapshot
        ? { sequence: encoder.nextSequence - 1, output: structuredClone(encoder.output), totals: structuredClone(encoder.totals), ...shown }
        : undefined;
      writing = writing.then(async () => {
        if (!(await saveProgress(db, row.id, holderId, events, progress))) abort('lease-lost');
      });
      return writing;
    },
  };
  return session;
}

/** The agent and key checked again, the run driven to its end, and the response stored with the run's final status. */
async function runToEnd(session: RunSession): Promise<void> {
  const { deps, row, request, owner, encoder, controller, state, send } = session;
  const { db, holderId } = deps;
  const requested = await findAnnounced(deps.agents, row.account_id, row.agent_id, request.settings.agent_version);
  if (!requested) throw new JunctionError('model_not_found', `The agent '${row.agent_id}' no longer exists.`);
  const key = await findManagedKey(db, row.account_id, row.key_id);
  if (!key) throw new JunctionError('invalid_api_key', 'The key that started this run was deleted.');
  assertActive(key, new Date());
  const prepared = await prepareResponse(db, requested, owner, request.body, prepareOptions(deps));
  const { agent } = prepared;
  session.mcpToolOf = prepared.mcpToolOf;
  send([
    encoder.lifecycle(
      'response.in_progress',
      responseResource(request.settings, state({ status: 'in_progress', completedAt: null, output: encoder.output, usage: null, error: null, incompleteReason: null })),
    ),
  ]);
  const context: CallContext = { key, requestId: row.id, endpoint: 'agents.responses', signal: controller.signal };
  const checkpointed = (await deps.runtime.checkpointer?.hasCheckpoint(row.id)) ?? false;
  const run = runAgent(deps.runtime, {
    agent,
    context,
    conversationId: prepared.continuation.conversation.id,
    history: prepared.continuation.history,
    input: prepared.turn.messages,
    overrides: prepared.overrides,
    runId: row.id,
    // What the checkpoint holds beyond what the response shows is streamed again (a process that died between the two).
    ...(checkpointed && { resume: { threadId: row.id, from: 'start' as const, ...(session.shownMessages !== undefined && { shown: session.shownMessages }) } }),
    startedAt: row.created_at.getTime(),
    durability: 'sync',
    keepThread: true,
    onStepSaved: (saved) => {
      session.shownMessages = saved.messages;
      return session.flush(true);
    },
  });
  session.runTotals = run.totals;
  session.resumedTotals = run.resumedTotals;
  for await (const event of run.events) send(encoder.encode(event));
  const ran = run.result();
  if (!ran) throw new JunctionError('internal_error', 'The agent run ended without a result.');
  const result = withEarlierAttempts(ran, beyondCheckpoint(session, session.resumedTotals?.()));
  send([...encoder.approvalRequests(result.pendingApprovals ?? []), ...encoder.closeAll()]);
  const { status, incompleteReason } = runOutcome(result);
  const usage = wireUsage(result.usage, { modelCostMicros: result.modelCostMicros, toolCostMicros: result.toolCostMicros });
  const resource = responseResource(
    request.settings,
    state({ status, completedAt: status === 'completed' ? Math.floor(Date.now() / 1000) : null, output: encoder.output, usage, error: null, incompleteReason }),
  );
  send([encoder.terminal(resource)]);
  await session.flush(true);
  if (controller.signal.aborted) return;
  const entry = { owner, agentId: agent.id, continuation: prepared.continuation, body: request.body, settings: request.settings, resource, costMicros: result.costMicros };
  const approvals = approvalItems(resource.output);
  await storeFinishedResponse(db, entry, { input: prepared.turn.messages, result }, async (tx) => {
    if (!(await finishRun(tx, row.id, holderId, status))) throw new LeaseLost();
    if (approvals.length > 0) await recordPause(tx, { threadId: row.id, responseId: row.response_id, owner, agentId: agent.id, items: approvals });
  });
  if (approvals.length === 0) await deps.runtime.checkpointer?.deleteThread(row.id);
}

/** A run that failed or was cancelled ends as such, with what it used; one stopped by shutdown or a lost lease is left to the process that takes it over. */
async function finishFailedRun(session: RunSession, error: unknown): Promise<void> {
  const { deps, row, request, encoder, controller, state, send } = session;
  const { db, holderId } = deps;
  const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : undefined;
  if (error instanceof LeaseLost || reason === 'lease-lost' || reason === 'shutdown') return; // another process finishes it
  const cancelled = reason === 'cancelled';
  const failure = asJunctionFailure(error);
  if (!cancelled && failure.status >= 500) deps.logger.error({ err: error, runId: row.id }, 'background run failed');
  // The runner's totals include a step cut short by the stop, whose usage event never streamed (the pipeline billed it).
  const ran = session.runTotals?.();
  const chosen = ran && ran.modelCostMicros + ran.toolCostMicros >= encoder.totals.modelCostMicros + encoder.totals.toolCostMicros ? ran : encoder.totals;
  // The encoder's totals went on from the snapshot, the runner's from its checkpoint.
  const totals = withEarlierAttempts(chosen, beyondCheckpoint(session, chosen === ran ? session.resumedTotals?.() : session.snapshotTotals));
  const usage = wireUsage(totals.usage, totals);
  const resource = responseResource(
    request.settings,
    state({
      status: cancelled ? 'cancelled' : 'failed',
      completedAt: null,
      output: encoder.output,
      usage,
      error: cancelled ? null : { code: failure.code, message: failure.message },
      incompleteReason: null,
    }),
  );
  send([...(cancelled ? [] : [encoder.error(failure)]), encoder.terminal(resource)]);
  await session.flush(true).catch(() => undefined);
  const costMicros = totals.modelCostMicros + totals.toolCostMicros;
  const { entry } = await failedEntry(session, resource, costMicros).catch(() => ({ entry: undefined }));
  await db.transaction(async (tx) => {
    if (!(await finishRun(tx, row.id, holderId, resource.status))) return;
    if (entry) await storeFailedResponse(tx, entry);
  });
  await deps.runtime.checkpointer?.deleteThread(row.id);
}

/** The stored response of a run that did not finish, prepared again (its agent may be gone: then there is none). */
async function failedEntry(session: RunSession, resource: ResponseResource, costMicros: number) {
  const { deps, row, request, owner } = session;
  const agent = await findAnnounced(deps.agents, row.account_id, row.agent_id, request.settings.agent_version);
  if (!agent) throw new JunctionError('model_not_found', `The agent '${row.agent_id}' no longer exists.`);
  const prepared = await prepareResponse(deps.db, agent, owner, request.body, prepareOptions(deps));
  return { entry: { owner, agentId: row.agent_id, continuation: prepared.continuation, body: request.body, settings: request.settings, resource, costMicros }, prepared };
}

class LeaseLost extends Error {}

/** What a run taken over was billed by earlier attempts beyond the checkpoint it went on from (nothing for a run that was not). */
const beyondCheckpoint = (session: RunSession, from: BilledUsage | undefined): BilledUsage | undefined => session.earlierAttempts && billedBeyondCheckpoint(session.earlierAttempts, from);

const emptyEncoderTotals = () => ({ usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 }, modelCostMicros: 0, toolCostMicros: 0 });
