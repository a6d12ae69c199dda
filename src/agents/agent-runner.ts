import type { BaseMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';
import type { BudgetLeases } from '../billing/budget-leases.ts';
import type { FinishReason, ModelMessage, ModelRequest, ToolDefinition, Usage } from '../core/model-types.ts';
import type { Embedder } from '../knowledge/embedder.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { contextWith, endSpan, startSpan } from '../ops/tracing.ts';
import type { ChatPipeline } from '../pipeline/chat-pipeline.ts';
import type { RunStepSink } from '../runs/run-step.ts';
import type { Database } from '../store/database.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { type AgentGraphState, type ApprovalInterrupt, agentGraph, checkpointedAgentGraph, type RunHooks } from './agent-graph.ts';
import type { LoadedAgent } from './agent-registry.ts';
import type { AgentCheckpointer } from './durable/agent-checkpointer.ts';
import { replayedEvents } from './durable/checkpoint-replay.ts';
import { SYNC_CHECKPOINTS } from './durable/store-checkpoint-saver.ts';
import { toCanonicalMessage } from './langchain-messages.ts';
import type { RunEvent } from './run-events.ts';
import { MAX_HANDOFFS_PER_TURN } from './handoffs.ts';
import type { McpServerConfig } from './mcp/mcp-server-config.ts';
import type { McpServers } from './mcp/mcp-servers.ts';
import type { TenantMcpPolicy } from './mcp/tenant-mcp-policy.ts';
import type { CompactionSeal } from './responses/compaction-seal.ts';
import { newRunId } from './run-id.ts';
import { createRunHooks, mcpToolsFor } from './run-hooks.ts';
import { linkedAgentsFor } from './linked-agents.ts';
import { servingFor } from './release-selection.ts';
import { runSingleStep } from './single-step-run.ts';
import { emptyTotals, type RunTotals } from './run-totals.ts';
import { toAbortSignal } from '../core/cancel-signal.ts';
import { overlay } from '../core/overlay.ts';
import { agentBounds, tighterBounds } from './run-bounds.ts';

export type AgentRuntimeDeps = {
  db: Database;
  chat: ChatPipeline;
  budgets: BudgetLeases;
  tools: ToolRegistry;
  /** The embedding model for query-time retrieval; full text alone without one. */
  embedder: (context: CallContext) => Embedder | undefined;
  /** Resolves once the account's folder collections are indexed (indexing them on first need). */
  knowledgeReady?: (accountId: string) => Promise<void>;
  /** Checkpoints every step (thread_id = run id); without one a run lives in its request only. */
  checkpointer?: AgentCheckpointer;
  /** Connections to the MCP servers of agent files (`mcp_servers:`). */
  mcp?: McpServers;
  /** Where a request may add MCP servers (JUNCTION_MCP_ALLOWLIST, JUNCTION_MCP_ALLOW_PRIVATE). */
  mcpPolicy?: Pick<TenantMcpPolicy, 'allowlist' | 'allowPrivate'>;
  /** Seals and opens Responses compaction items (a key derived from JUNCTION_KEY_SECRET). */
  compactions?: CompactionSeal;
  /** The agents an agent may call or hand to (`agents:`, `handoffs:`): that account's agent by id, never another account's. */
  subAgent?: (accountId: string, agentId: string) => Promise<LoadedAgent | undefined>;
  /** Where the run's steps go for the console's run page (queued, written off the turn). */
  runSteps?: RunStepSink;
};

export type AgentRunRequest = {
  agent: LoadedAgent;
  /** The caller's context; the runner adds the agent and run id to it. */
  context: CallContext;
  /** The path from the conversation root to the parent message. */
  history: ModelMessage[];
  /** The new turn: user messages, or tool results for a client tool call. */
  input: ModelMessage[];
  overrides?: {
    /** Added to the agent's instructions for this request only. */
    instructions?: string;
    temperature?: number;
    maxOutputTokens?: number;
    reasoning?: ModelRequest['reasoning'];
    responseFormat?: ModelRequest['responseFormat'];
    /** Client-side function tools: the run stops when the model calls one. */
    clientTools?: ToolDefinition[];
    toolChoice?: ModelRequest['toolChoice'];
    /** MCP servers a request added (`{type: "mcp"}` tools on allowed hosts). */
    mcpServers?: McpServerConfig[];
  };
  /** The Responses API response this run answers, so its run page is found by the response id. */
  responseId?: string;
  /** The conversation the run answers in: an agent it hands to serves that conversation's share of its staged release. */
  conversationId?: string;
  /** A run id decided by the caller (a background run is recorded before it starts). */
  runId?: string;
  /**
   * Go on from the last checkpoint of `threadId` instead of starting: a run whose process
   * died (`from: 'start'`: everything the thread produced belongs to this run), or a
   * paused run given its interrupt's answer (`from: 'pause'`: only what follows is new).
   * `shown` (with `from: 'start'`): how many of the checkpoint's messages the caller's response
   * already shows; the run's messages after them are streamed again before it goes on.
   */
  resume?: { threadId: string; from: 'start' | 'pause'; value?: unknown; shown?: number };
  /** Wall-clock start (a resumed run keeps its first start) and the run's bounds. */
  startedAt?: number;
  /** 'sync' waits for each step's checkpoint before the next (background runs); default 'async'. */
  durability?: 'sync' | 'async';
  /** Keep the checkpoints of a finished run (the caller deletes them once it recorded the result). */
  keepThread?: boolean;
  /** Called after each step's checkpoint, with the state it saved. */
  onStepSaved?: (state: { steps: number; messages: number }) => Promise<void> | void;
};

export type AgentRunResult = {
  runId: string;
  /** Messages the run produced, in order (assistant answers, tool calls, tool results). */
  messages: ModelMessage[];
  usage: Usage;
  modelCostMicros: number;
  toolCostMicros: number;
  costMicros: number;
  finishReason: FinishReason;
  steps: number;
  /** The model used on the last step (after any fallback). */
  model: string;
  /** The bound that ended the run early ('max_run_seconds', 'max_run_cost_usd'), if one did. */
  stoppedBy?: string;
  /** The graph thread (its checkpoints), kept while the run can still be resumed. */
  threadId: string;
  /** The agent that produced each of `messages` (differs after a handoff). */
  messageAgents: string[];
  /** The version each agent of `messageAgents` ran at. */
  agentVersions: ReadonlyMap<string, string>;
  /** The run paused (a LangGraph interrupt) until a person approves or denies these calls. */
  pendingApprovals?: ApprovalInterrupt['calls'];
};

export type AgentRun = {
  runId: string;
  events: AsyncIterable<RunEvent>;
  result(): AgentRunResult | undefined;
  /** What the run has used so far; once `events` ended (or threw), every step it billed, cancelled ones included. */
  totals(): RunTotals | undefined;
  /** A run resumed after its process died: the totals of the checkpoint it went on from (empty when it had none). */
  resumedTotals(): RunTotals | undefined;
};

/** How long a stopped run waits for its model calls to settle (they were aborted with it, so they end at once). */
const SETTLE_WAIT_MS = 5_000;

/** What one turn left: the last graph state, the messages it produced and by which agent, the calls awaiting approval. */
type TurnOutcome = {
  state: Partial<AgentGraphState>;
  produced: BaseMessage[];
  producedBy: string[];
  versions: Map<string, string>;
  pendingApprovals: ApprovalInterrupt['calls'];
};

/** What every part of one run shares: its request, ids, start time, running totals and the steps still settling. */
type RunScope = {
  deps: AgentRuntimeDeps;
  request: AgentRunRequest;
  agent: LoadedAgent;
  context: Parameters<typeof createRunHooks>[0]['context'];
  runId: string;
  threadId: string;
  startedAt: number;
  totals: { current: RunTotals };
  resumedTotals?: RunTotals;
  inFlight: Set<Promise<unknown>>;
};

type StoreSaver = Awaited<ReturnType<AgentCheckpointer['saver']>>;
type AgentGraph = typeof agentGraph | ReturnType<typeof checkpointedAgentGraph>;
type GraphConfig = { configurable: { run: RunHooks; thread_id: string; [SYNC_CHECKPOINTS]: boolean } };

/**
 * Runs one turn of an agent through the compiled LangGraph graph (or, for an agent
 * without server-side tools, the same nodes in order: see runSingleStep). Every model step
 * goes through the ChatPipeline (authorized, limited, billed, logged per step); every
 * tool call with a cost is reserved and settled against the same key. `events` streams
 * the run as it happens; `result()` is there once `events` is drained.
 */
export function runAgentGraph(deps: AgentRuntimeDeps, request: AgentRunRequest): AgentRun {
  const runId = request.runId ?? newRunId();
  const { agent } = request;
  const runSpan = startSpan(`agent.run ${agent.id}`, request.context.trace, {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': agent.id,
    'gen_ai.agent.id': runId,
    'junction.agent_version': agent.version,
  });
  const trace = contextWith(runSpan, request.context.trace);
  const scope: RunScope = {
    deps,
    request,
    agent,
    runId,
    threadId: request.resume?.threadId ?? runId,
    context: overlay(request.context, { agent: { agentId: agent.id, runId, version: agent.version }, trace: trace ?? request.context.trace }),
    startedAt: request.startedAt ?? Date.now(),
    // Shared with sub-agents: their model and tool costs are this run's.
    totals: { current: emptyTotals(agent.config.model) },
    inFlight: new Set<Promise<unknown>>(),
  };

  let result: AgentRunResult | undefined;
  const events = async function* (): AsyncGenerator<RunEvent> {
    // Servers a request added get connections of their own, without the server's environment, closed after the run.
    const requestMcp = request.overrides?.mcpServers?.length ? deps.mcp?.forRun() : undefined;
    const requestMcpTools = requestMcp ? await requestMcp.tools(request.overrides?.mcpServers ?? []) : [];
    const hooks = await topRunHooks(scope, requestMcpTools);
    const oneStep = isOneUncheckpointedStep(hooks, request);
    const saver = oneStep ? undefined : await deps.checkpointer?.saver();
    try {
      const outcome = oneStep ? yield* singleStepTurn(hooks, agent) : yield* graphTurn(scope, hooks, saver);
      result = runResult(scope, scope.totals.current, outcome);
      endRunSpan(runSpan, scope.totals.current, outcome.state);
    } catch (error) {
      await settleInFlight(scope.inFlight);
      endSpan(runSpan, error);
      throw error;
    } finally {
      await requestMcp?.close();
    }
  };
  return { runId, events: events(), result: () => result, totals: () => scope.totals.current, resumedTotals: () => scope.resumedTotals };
}

/** The hooks of the run's own agent: its tools, its file and request MCP servers, the agents it may call. */
async function topRunHooks(scope: RunScope, requestMcpTools: Awaited<ReturnType<typeof mcpToolsFor>>): Promise<RunHooks> {
  const { deps, agent, context, request } = scope;
  const mcpTools = [...(await mcpToolsFor(deps, agent)), ...requestMcpTools];
  const linkedAgents = await linkedAgentsFor(deps, context.key.accountId, agent);
  return createRunHooks({ deps, agent, context, request, totals: scope.totals, inFlight: scope.inFlight, startedAt: scope.startedAt, bounds: {}, depth: 0, mcpTools, linkedAgents });
}

/** A run that is one model step and is never checkpointed (not resumed, kept or written step by step) needs no graph. */
function isOneUncheckpointedStep(hooks: RunHooks, request: AgentRunRequest): boolean {
  return !hooks.hasServerTools && !request.resume && !request.keepThread && request.durability !== 'sync' && !request.onStepSaved;
}

/** A run that fails or is cancelled mid-step still counts that step: the pipeline billed it. */
async function settleInFlight(inFlight: Set<Promise<unknown>>): Promise<void> {
  if (inFlight.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, SETTLE_WAIT_MS)))]);
  clearTimeout(timer);
}

async function* singleStepTurn(hooks: RunHooks, agent: LoadedAgent): AsyncGenerator<RunEvent, TurnOutcome> {
  const state = yield* runSingleStep(hooks);
  const produced = (state.messages ?? []).slice(state.initialCount ?? 0);
  return { state, produced, producedBy: produced.map(() => agent.id), versions: new Map([[agent.id, agent.version]]), pendingApprovals: [] };
}

/** What the graph starts from: a fresh turn, the checkpoint as it was, or a paused run given its answer. */
function graphInput(resume: AgentRunRequest['resume']): unknown {
  if (!resume) return {};
  return resume.value === undefined ? null : new Command({ resume: resume.value });
}

/** The turn through the graph: resumed or started, then any handoffs, then its checkpoints dropped or kept. */
async function* graphTurn(scope: RunScope, hooks: RunHooks, saver: StoreSaver | undefined): AsyncGenerator<RunEvent, TurnOutcome> {
  const { request, agent, threadId } = scope;
  const graph = saver ? checkpointedAgentGraph(saver) : agentGraph;
  const config: GraphConfig = { configurable: { run: hooks, thread_id: threadId, [SYNC_CHECKPOINTS]: request.durability === 'sync' } };
  let producedFrom: number | undefined;
  if (!request.resume) saver?.startThread(threadId);
  if (request.resume) {
    const saved = (await graph.getState(config)).values as Partial<AgentGraphState>;
    // A run resumed after its process died goes on counting; one resumed after a pause is a new response, billed from zero.
    if (request.resume.from === 'start') {
      if (saved.totals) scope.totals.current = structuredClone(saved.totals);
      scope.resumedTotals = structuredClone(scope.totals.current);
      yield* replayUnshown(saved, request.resume.shown, request.onStepSaved);
    }
    if (request.resume.from === 'pause') producedFrom = saved.messages?.length;
  }
  const pendingApprovals: ApprovalInterrupt['calls'] = [];
  const options = { streamMode: ['custom', 'values'] as ('custom' | 'values')[], signal: toAbortSignal(scope.context.signal), durability: request.durability ?? 'async' };
  const drive: Drive = (input, runConfig, maxSteps) => driveGraph(graph, input, { ...runConfig, ...options, recursionLimit: maxSteps * 2 + 10 }, pendingApprovals, request.onStepSaved);
  const first = yield* drive(graphInput(request.resume), config, agent.config.maxSteps);
  const produced = (first.messages ?? []).slice(producedFrom ?? first.initialCount ?? 0);
  const turn = { state: first, produced, producedBy: produced.map(() => agent.id), versions: new Map([[agent.id, agent.version]]), threads: [threadId] };
  yield* runHandoffs(scope, turn, drive, config, saver);
  // A finished run cannot resume: its checkpoints go (off the response's critical path).
  if (saver && !request.keepThread && pendingApprovals.length === 0) {
    for (const thread of turn.threads) void saver.deleteThread(thread).catch(() => undefined);
  } else if (saver) {
    // Paused (or kept): the next request, on any process, resumes from these rows.
    await saver.written();
  }
  return { state: turn.state, produced: turn.produced, producedBy: turn.producedBy, versions: turn.versions, pendingApprovals };
}

/**
 * A run taken over re-sends what its checkpoint produced after the messages its response
 * shows (the dead process may have checkpointed a step but died before its response took
 * it in), then reports the checkpoint as saved: the response now shows all of it.
 */
async function* replayUnshown(saved: Partial<AgentGraphState>, shown: number | undefined, onStepSaved: AgentRunRequest['onStepSaved']): AsyncGenerator<RunEvent, void> {
  const messages = saved.messages ?? [];
  const from = Math.max(shown ?? messages.length, saved.initialCount ?? 0);
  if (from >= messages.length) return;
  yield* replayedEvents({ messages, steps: saved.steps ?? 0, finish: saved.totals?.finish }, from);
  await onStepSaved?.({ steps: saved.steps ?? 0, messages: messages.length });
}

type Drive = (input: unknown, runConfig: GraphConfig, maxSteps: number) => AsyncGenerator<RunEvent, Partial<AgentGraphState>>;

/** Streams one graph run: its events out, its approval interrupts into `pendingApprovals`, its last state back. */
async function* driveGraph(
  graph: AgentGraph,
  input: unknown,
  options: GraphConfig & { streamMode: ('custom' | 'values')[]; signal: AbortSignal | undefined; durability: 'sync' | 'async'; recursionLimit: number },
  pendingApprovals: ApprovalInterrupt['calls'],
  onStepSaved: AgentRunRequest['onStepSaved'],
): AsyncGenerator<RunEvent, Partial<AgentGraphState>> {
  let last: Partial<AgentGraphState> = {};
  const stream = await graph.stream(input as Record<string, never>, options);
  for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
    if (mode === 'custom') yield chunk as RunEvent;
    else if (typeof chunk === 'object' && chunk !== null && '__interrupt__' in chunk) {
      for (const entry of (chunk as { __interrupt__: Array<{ value?: unknown }> }).__interrupt__) {
        const value = entry.value as ApprovalInterrupt | undefined;
        if (value?.kind === 'approval') pendingApprovals.push(...value.calls);
      }
    } else {
      last = chunk as Partial<AgentGraphState>;
      await onStepSaved?.({ steps: last.steps ?? 0, messages: last.messages?.length ?? 0 });
    }
  }
  return last;
}

/** Handoffs: the agent it was handed to answers the turn, in the same run, from the whole conversation so far. */
async function* runHandoffs(
  scope: RunScope,
  turn: { state: Partial<AgentGraphState>; produced: BaseMessage[]; producedBy: string[]; versions: Map<string, string>; threads: string[] },
  drive: Drive,
  config: GraphConfig,
  saver: StoreSaver | undefined,
): AsyncGenerator<RunEvent, void> {
  const { deps, request, context, runId, threadId } = scope;
  // The agents handed to keep the bounds of every agent before them in the turn.
  let handedBounds = agentBounds(scope.agent);
  for (let hop = 1; turn.state.handoffTo && !turn.state.stoppedBy && hop <= MAX_HANDOFFS_PER_TURN; hop += 1) {
    const found = await deps.subAgent?.(context.key.accountId, turn.state.handoffTo);
    if (!found) break;
    // The version a direct call in this conversation would get: a staged release holds for handoffs too.
    const target = request.conversationId === undefined ? found : servingFor(found, request.conversationId);
    turn.versions.set(target.id, target.version);
    const history = (turn.state.messages ?? []).map(toCanonicalMessage);
    const targetScope = {
      deps,
      agent: target,
      context: { ...context, agent: { agentId: target.id, runId, version: target.version } },
      totals: scope.totals,
      inFlight: scope.inFlight,
      startedAt: scope.startedAt,
      bounds: handedBounds,
      depth: 0,
    };
    handedBounds = tighterBounds(handedBounds, agentBounds(target));
    const targetHooks = createRunHooks({
      ...targetScope,
      request: { history, input: [], ...(request.overrides && { overrides: request.overrides }) },
      mcpTools: await mcpToolsFor(deps, target),
      linkedAgents: await linkedAgentsFor(deps, context.key.accountId, target),
    });
    const targetThread = `${threadId}~${hop}`;
    turn.threads.push(targetThread);
    saver?.startThread(targetThread);
    turn.state = yield* drive({}, { configurable: { ...config.configurable, run: targetHooks, thread_id: targetThread } }, target.config.maxSteps);
    const added = (turn.state.messages ?? []).slice(turn.state.initialCount ?? 0);
    turn.produced.push(...added);
    turn.producedBy.push(...added.map(() => target.id));
  }
}

function endRunSpan(runSpan: ReturnType<typeof startSpan>, totals: RunTotals, state: Partial<AgentGraphState>): void {
  runSpan?.setAttributes({
    'gen_ai.usage.input_tokens': totals.usage.inputTokens,
    'gen_ai.usage.output_tokens': totals.usage.outputTokens,
    'junction.cost_usd': (totals.modelCostMicros + totals.toolCostMicros) / 1_000_000,
    'junction.steps': state.steps ?? 0,
  });
  endSpan(runSpan);
}

function runResult(scope: RunScope, totals: RunTotals, { state, produced, producedBy, versions, pendingApprovals }: TurnOutcome): AgentRunResult {
  return {
    runId: scope.runId,
    threadId: scope.threadId,
    messages: produced.map(toCanonicalMessage),
    messageAgents: producedBy,
    agentVersions: versions,
    usage: totals.usage,
    modelCostMicros: totals.modelCostMicros,
    toolCostMicros: totals.toolCostMicros,
    costMicros: totals.modelCostMicros + totals.toolCostMicros,
    finishReason: totals.finish,
    steps: state.steps ?? 0,
    model: totals.model,
    ...(state.stoppedBy && { stoppedBy: state.stoppedBy }),
    ...(pendingApprovals.length > 0 && { pendingApprovals }),
  };
}
