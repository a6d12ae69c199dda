import type { BaseMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';
import type { BudgetLeases } from '../billing/budget-leases.ts';
import type { FinishReason, ModelMessage, ModelRequest, ToolDefinition, Usage } from '../core/model-types.ts';
import type { Embedder } from '../knowledge/embedder.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { contextWith, endSpan, startSpan } from '../ops/tracing.ts';
import type { ChatPipeline } from '../pipeline/chat-pipeline.ts';
import type { Database } from '../store/database.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { type AgentGraphState, type ApprovalInterrupt, agentGraph, checkpointedAgentGraph, type RunHooks } from './agent-graph.ts';
import type { LoadedAgent } from './agent-registry.ts';
import type { AgentCheckpointer } from './durable/agent-checkpointer.ts';
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
  /** A run id decided by the caller (a background run is recorded before it starts). */
  runId?: string;
  /**
   * Go on from the last checkpoint of `threadId` instead of starting: a run whose process
   * died (`from: 'start'`: everything the thread produced belongs to this run), or a
   * paused run given its interrupt's answer (`from: 'pause'`: only what follows is new).
   */
  resume?: { threadId: string; from: 'start' | 'pause'; value?: unknown };
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
  /** The run paused (a LangGraph interrupt) until a person approves or denies these calls. */
  pendingApprovals?: ApprovalInterrupt['calls'];
};

export type AgentRun = {
  runId: string;
  events: AsyncIterable<RunEvent>;
  result(): AgentRunResult | undefined;
  /** What the run has used so far; once `events` ended (or threw), every step it billed, cancelled ones included. */
  totals(): RunTotals | undefined;
};

/** How long a stopped run waits for its model calls to settle (they were aborted with it, so they end at once). */
const SETTLE_WAIT_MS = 5_000;

/**
 * Runs one turn of an agent through the compiled LangGraph graph (or, for an agent
 * without server-side tools, the same nodes in order: see runSingleStep). Every model step
 * goes through the ChatPipeline (authorized, limited, billed, logged per step); every
 * tool call with a cost is reserved and settled against the same key. `events` streams
 * the run as it happens; `result()` is there once `events` is drained.
 */
export function runAgentGraph(deps: AgentRuntimeDeps, request: AgentRunRequest): AgentRun {
  const runId = request.runId ?? newRunId();
  const threadId = request.resume?.threadId ?? runId;
  const { agent } = request;
  const runSpan = startSpan(`agent.run ${agent.id}`, request.context.trace, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent.id, 'gen_ai.agent.id': runId, 'junction.agent_version': agent.version });
  const trace = contextWith(runSpan, request.context.trace);
  const context = overlay(request.context, { agent: { agentId: agent.id, runId, version: agent.version }, trace: trace ?? request.context.trace });
  const startedAt = request.startedAt ?? Date.now();

  // Shared with sub-agents: their model and tool costs are this run's.
  const totalsHolder = { current: emptyTotals(agent.config.model) };
  const inFlight = new Set<Promise<unknown>>();
  /** A run that fails or is cancelled mid-step still counts that step: the pipeline billed it. */
  const settleInFlight = async () => {
    if (inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, SETTLE_WAIT_MS)))]);
    clearTimeout(timer);
  };

  let result: AgentRunResult | undefined;
  const events = async function* (): AsyncGenerator<RunEvent> {
    // Servers a request added get connections of their own, without the server's environment, closed after the run.
    const requestMcp = request.overrides?.mcpServers?.length ? deps.mcp?.forRun() : undefined;
    const requestMcpTools = requestMcp ? await requestMcp.tools(request.overrides?.mcpServers ?? []) : [];
    const hooks: RunHooks = createRunHooks({ deps, agent, context, request, totals: totalsHolder, inFlight, startedAt, bounds: {}, depth: 0, mcpTools: [...(await mcpToolsFor(deps, agent)), ...requestMcpTools], linkedAgents: await linkedAgentsFor(deps, context.key.accountId, agent) });
    // A run that is one model step and is never checkpointed (not resumed, kept or written step by step) needs no graph.
    if (!hooks.hasServerTools && !request.resume && !request.keepThread && request.durability !== 'sync' && !request.onStepSaved) {
      try {
        const state = yield* runSingleStep(hooks);
        const produced = (state.messages ?? []).slice(state.initialCount ?? 0);
        setResult(totalsHolder.current, state, produced, produced.map(() => agent.id), []);
        endRunSpan(totalsHolder.current, state);
      } catch (error) {
        await settleInFlight();
        endSpan(runSpan, error);
        throw error;
      } finally {
        await requestMcp?.close();
      }
      return;
    }
    const saver = await deps.checkpointer?.saver();
    const graph = saver ? checkpointedAgentGraph(saver) : agentGraph;
    try {
      const config = { configurable: { run: hooks, thread_id: threadId, [SYNC_CHECKPOINTS]: request.durability === 'sync' } };
      let producedFrom: number | undefined;
      if (!request.resume) saver?.startThread(threadId);
      if (request.resume) {
        const saved = (await graph.getState(config)).values as Partial<AgentGraphState>;
        // A run resumed after its process died goes on counting; one resumed after a pause is a new response, billed from zero.
        if (saved.totals && request.resume.from === 'start') totalsHolder.current = structuredClone(saved.totals);
        if (request.resume.from === 'pause') producedFrom = saved.messages?.length;
      }
      const input = request.resume ? (request.resume.value === undefined ? null : new Command({ resume: request.resume.value })) : {};
      const pendingApprovals: ApprovalInterrupt['calls'] = [];
      const options = { streamMode: ['custom', 'values'] as ('custom' | 'values')[], signal: toAbortSignal(context.signal), durability: request.durability ?? 'async' };
      /** Streams one graph run: its events out, its last state back. */
      const drive = async function* (graphInput: unknown, runConfig: typeof config, maxSteps: number): AsyncGenerator<RunEvent, Partial<AgentGraphState>> {
        let last: Partial<AgentGraphState> = {};
        const stream = await graph.stream(graphInput as Record<string, never>, { ...runConfig, ...options, recursionLimit: maxSteps * 2 + 10 });
        for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
          if (mode === 'custom') yield chunk as RunEvent;
          else if (typeof chunk === 'object' && chunk !== null && '__interrupt__' in chunk) {
            for (const entry of (chunk as { __interrupt__: Array<{ value?: unknown }> }).__interrupt__) {
              const value = entry.value as ApprovalInterrupt | undefined;
              if (value?.kind === 'approval') pendingApprovals.push(...value.calls);
            }
          } else {
            last = chunk as Partial<AgentGraphState>;
            await request.onStepSaved?.({ steps: last.steps ?? 0, messages: last.messages?.length ?? 0 });
          }
        }
        return last;
      };
      let state = yield* drive(input, config, agent.config.maxSteps);
      const threads = [threadId];
      const produced = (state.messages ?? []).slice(producedFrom ?? state.initialCount ?? 0);
      const producedBy = produced.map(() => agent.id);
      // The agents handed to keep the bounds of every agent before them in the turn.
      let handedBounds = agentBounds(agent);
      // Handoffs: the agent it was handed to answers the turn, in the same run, from the whole conversation so far.
      for (let hop = 1; state.handoffTo && !state.stoppedBy && hop <= MAX_HANDOFFS_PER_TURN; hop += 1) {
        const target = await deps.subAgent?.(context.key.accountId, state.handoffTo);
        if (!target) break;
        const history = (state.messages ?? []).map(toCanonicalMessage);
        const targetScope = { deps, agent: target, context: { ...context, agent: { agentId: target.id, runId, version: target.version } }, totals: totalsHolder, inFlight, startedAt, bounds: handedBounds, depth: 0 };
        handedBounds = tighterBounds(handedBounds, agentBounds(target));
        const targetHooks = createRunHooks({ ...targetScope, request: { history, input: [], ...(request.overrides && { overrides: request.overrides }) }, mcpTools: await mcpToolsFor(deps, target), linkedAgents: await linkedAgentsFor(deps, context.key.accountId, target) });
        const targetThread = `${threadId}~${hop}`;
        threads.push(targetThread);
        saver?.startThread(targetThread);
        state = yield* drive({}, { configurable: { ...config.configurable, run: targetHooks, thread_id: targetThread } }, target.config.maxSteps);
        const added = (state.messages ?? []).slice(state.initialCount ?? 0);
        produced.push(...added);
        producedBy.push(...added.map(() => target.id));
      }
      // A finished run cannot resume: its checkpoints go (off the response's critical path).
      if (saver && !request.keepThread && pendingApprovals.length === 0) {
        for (const thread of threads) void saver.deleteThread(thread).catch(() => undefined);
      } else if (saver) {
        // Paused (or kept): the next request, on any process, resumes from these rows.
        await saver.written();
      }
      const totals = totalsHolder.current;
      setResult(totals, state, produced, producedBy, pendingApprovals);
      endRunSpan(totals, state);
    } catch (error) {
      await settleInFlight();
      endSpan(runSpan, error);
      throw error;
    } finally {
      await requestMcp?.close();
    }
  };
  const endRunSpan = (totals: RunTotals, state: Partial<AgentGraphState>) => {
    runSpan?.setAttributes({ 'gen_ai.usage.input_tokens': totals.usage.inputTokens, 'gen_ai.usage.output_tokens': totals.usage.outputTokens, 'junction.cost_usd': (totals.modelCostMicros + totals.toolCostMicros) / 1_000_000, 'junction.steps': state.steps ?? 0 });
    endSpan(runSpan);
  };
  const setResult = (totals: RunTotals, state: Partial<AgentGraphState>, produced: BaseMessage[], producedBy: string[], pendingApprovals: ApprovalInterrupt['calls']) => {
    result = {
      runId,
      threadId,
      messages: produced.map(toCanonicalMessage),
      messageAgents: producedBy,
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
  };
  return { runId, events: events(), result: () => result, totals: () => totalsHolder.current };
}

