import { randomBytes } from 'node:crypto';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { type BaseCheckpointSaver, Command } from '@langchain/langgraph';
import type { BudgetLeases } from '../billing/budget-leases.ts';
import { isJunctionError } from '../core/errors.ts';
import type { FinishReason, ModelMessage, ModelRequest, ToolDefinition, Usage } from '../core/model-types.ts';
import type { Embedder } from '../knowledge/embedder.ts';
import { formatKnowledgeContext } from '../knowledge/format-knowledge-context.ts';
import { searchKnowledge } from '../knowledge/hybrid-search.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import type { ChatPipeline } from '../pipeline/chat-pipeline.ts';
import { newGenerationId } from '../pipeline/generation-id.ts';
import { usageLogEntry } from '../pipeline/usage-log-entry.ts';
import type { Database } from '../store/database.ts';
import { runTool } from '../tools/run-tool.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { type AgentGraphState, type ApprovalInterrupt, agentGraph, checkpointedAgentGraph, type RunHooks } from './agent-graph.ts';
import { StoreCheckpointSaver, SYNC_CHECKPOINTS } from './durable/store-checkpoint-saver.ts';
import type { LoadedAgent } from './agent-registry.ts';
import { toCanonicalMessage, toLangChainMessage } from './langchain-messages.ts';
import { PipelineChatModel } from './pipeline-chat-model.ts';
import type { RunEvent } from './run-events.ts';
import { addUsage, emptyTotals, type RunTotals } from './run-totals.ts';

export type AgentRuntimeDeps = {
  db: Database;
  chat: ChatPipeline;
  budgets: BudgetLeases;
  tools: ToolRegistry;
  /** The embedding model for query-time retrieval; full text alone without one. */
  embedder: (context: CallContext) => Embedder | undefined;
  /** Checkpoints every step (thread_id = run id); without one a run lives in its request only. */
  checkpointer?: BaseCheckpointSaver;
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
  /** The run paused (a LangGraph interrupt) until a person approves or denies these calls. */
  pendingApprovals?: ApprovalInterrupt['calls'];
};

export type AgentRun = { runId: string; events: AsyncIterable<RunEvent>; result(): AgentRunResult | undefined };

const newRunId = () => `run_${randomBytes(12).toString('hex')}`;

/**
 * Runs one turn of an agent through the compiled LangGraph graph. Every model step
 * goes through the ChatPipeline (authorized, limited, billed, logged per step); every
 * tool call with a cost is reserved and settled against the same key. `events` streams
 * the run as it happens; `result()` is there once `events` is drained.
 */
export function runAgent(deps: AgentRuntimeDeps, request: AgentRunRequest): AgentRun {
  const runId = request.runId ?? newRunId();
  const threadId = request.resume?.threadId ?? runId;
  const { agent } = request;
  const context: CallContext = { ...request.context, agent: { agentId: agent.id, runId } };
  const clientTools = request.overrides?.clientTools ?? [];
  const serverTools = deps.tools.definitions(agent.config.tools);
  let totals: RunTotals = emptyTotals(agent.config.model);
  const startedAt = request.startedAt ?? Date.now();
  const bounds = { seconds: agent.config.maxRunSeconds, costMicros: agent.config.maxRunCostMicros };

  const hooks: RunHooks = {
    instructions: [request.agent.instructions, request.overrides?.instructions].filter(Boolean).join('\n\n'),
    maxSteps: agent.config.maxSteps,
    totals: () => structuredClone(totals),
    exceededBound: () => {
      if (bounds.seconds !== undefined && Date.now() - startedAt >= bounds.seconds * 1000) return 'max_run_seconds';
      if (bounds.costMicros !== undefined && totals.modelCostMicros + totals.toolCostMicros >= bounds.costMicros) return 'max_run_cost_usd';
      return undefined;
    },
    isServerTool: (name) => serverTools.some((tool) => tool.name === name),
    initialMessages: async () => [...request.history, ...request.input].map(toLangChainMessage),
    retrieve: async (emit) => {
      if (agent.config.knowledge.length === 0) return undefined;
      const query = lastUserText(request.input) ?? lastUserText(request.history);
      if (!query) return undefined;
      const embedder = deps.embedder(context);
      const found = await searchKnowledge({ db: deps.db, accountId: context.key.accountId, collections: agent.config.knowledge, query, ...(embedder && { embedder }), limit: 4 });
      emit({ type: 'knowledge-retrieved', query, hits: found.hits.map((hit) => ({ source: hit.source, title: hit.title, score: hit.score })) });
      return found.hits.length > 0 ? formatKnowledgeContext(found.hits) : undefined;
    },
    callModel: async (messages, step, final, emit) => {
      emit({ type: 'model-started', step });
      const overrides = request.overrides ?? {};
      // max_run_seconds also cuts a model call that is still streaming: what it produced so far is the answer.
      const deadline = bounds.seconds === undefined ? undefined : AbortSignal.timeout(Math.max(1, startedAt + bounds.seconds * 1000 - Date.now()));
      const signal = deadline ? AbortSignal.any([context.signal, deadline]) : context.signal;
      let partialText = '';
      const model = new PipelineChatModel({
        pipeline: deps.chat,
        context: { ...context, signal },
        model: agent.config.model,
        fallbackModels: agent.config.fallbackModels,
        tools: [...serverTools, ...clientTools],
        settings: {
          ...(overrides.temperature ?? agent.config.temperature) !== undefined && { temperature: overrides.temperature ?? agent.config.temperature },
          ...(overrides.maxOutputTokens ?? agent.config.maxOutputTokens) !== undefined && { maxOutputTokens: overrides.maxOutputTokens ?? agent.config.maxOutputTokens },
          ...(overrides.reasoning ?? agent.config.reasoning) !== undefined && { reasoning: overrides.reasoning ?? agent.config.reasoning },
          ...(overrides.responseFormat && { responseFormat: overrides.responseFormat }),
          // The last allowed step must answer: no further tool calls. A caller's tool_choice
          // applies to the first step only; forcing a tool on every step would loop to max_steps.
          ...(final && serverTools.length + clientTools.length > 0 ? { toolChoice: 'none' as const } : step === 1 && overrides.toolChoice ? { toolChoice: overrides.toolChoice } : {}),
        },
        onEvent: (event) => {
          emit({ type: 'model-event', step, event });
          if (event.type === 'text-delta') partialText += event.delta;
          if (event.type === 'finish') totals.finish = { unified: event.finishReason.unified, raw: event.finishReason.raw };
        },
        onOutcome: (outcome) => {
          totals.usage = addUsage(totals.usage, outcome.usage);
          totals.modelCostMicros += outcome.costMicros;
          totals.model = outcome.model.id;
          emit({ type: 'model-finished', step, model: outcome.model.id, generationId: outcome.generationId, usage: outcome.usage, costMicros: outcome.costMicros });
        },
      });
      try {
        return (await model.invoke(messages, { signal })) as AIMessage;
      } catch (error) {
        if (deadline?.aborted && !context.signal.aborted) return new AIMessage({ content: partialText });
        throw error;
      }
    },
    requiresApproval: (name) => agent.config.approvalTools.includes(name),
    runTools: async (message, step, emit, decisions) => {
      const results: ToolMessage[] = [];
      // Only the agent's own tools run here; a client-side call in the same answer is left for the client.
      for (const call of (message.tool_calls ?? []).filter((entry) => hooks.isServerTool(entry.name))) {
        const callId = call.id ?? '';
        const rawArguments = (message.additional_kwargs as { rawArguments?: Record<string, string> }).rawArguments?.[callId] ?? JSON.stringify(call.args);
        emit({ type: 'tool-started', step, callId, name: call.name, arguments: rawArguments });
        const decision = decisions[callId];
        const outcome =
          decision && !decision.approve
            ? { ok: false, content: `The user denied this call of ${call.name}; it did not run.${decision.reason ? ` Reason: ${decision.reason}` : ''}`, costMicros: 0, durationMs: 0 }
            : await runBilledTool(deps, context, call.name, call.args, agent);
        totals.toolCostMicros += outcome.costMicros;
        emit({ type: 'tool-finished', step, callId, name: call.name, ok: outcome.ok, output: outcome.content, costMicros: outcome.costMicros, durationMs: outcome.durationMs });
        const result = new ToolMessage({ content: outcome.content, tool_call_id: callId, name: call.name, status: outcome.ok ? 'success' : 'error' });
        results.push(result);
      }
      return results;
    },
  };

  let result: AgentRunResult | undefined;
  const events = async function* (): AsyncGenerator<RunEvent> {
    const graph = deps.checkpointer ? checkpointedAgentGraph(deps.checkpointer) : agentGraph;
    const config = { configurable: { run: hooks, thread_id: threadId, [SYNC_CHECKPOINTS]: request.durability === 'sync' } };
    let producedFrom: number | undefined;
    if (!request.resume && deps.checkpointer instanceof StoreCheckpointSaver) deps.checkpointer.startThread(threadId);
    if (request.resume) {
      const saved = (await graph.getState(config)).values as Partial<AgentGraphState>;
      // A run resumed after its process died goes on counting; one resumed after a pause is a new response, billed from zero.
      if (saved.totals && request.resume.from === 'start') totals = structuredClone(saved.totals);
      if (request.resume.from === 'pause') producedFrom = saved.messages?.length;
    }
    const input = request.resume ? (request.resume.value === undefined ? null : new Command({ resume: request.resume.value })) : {};
    let state: Partial<AgentGraphState> = {};
    const pendingApprovals: ApprovalInterrupt['calls'] = [];
    const stream = await graph.stream(input, { ...config, streamMode: ['custom', 'values'], signal: context.signal, recursionLimit: agent.config.maxSteps * 2 + 10, durability: request.durability ?? 'async' });
    for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      if (mode === 'custom') yield chunk as RunEvent;
      else if (typeof chunk === 'object' && chunk !== null && '__interrupt__' in chunk) {
        for (const entry of (chunk as { __interrupt__: Array<{ value?: unknown }> }).__interrupt__) {
          const value = entry.value as ApprovalInterrupt | undefined;
          if (value?.kind === 'approval') pendingApprovals.push(...value.calls);
        }
      } else {
        state = chunk as Partial<AgentGraphState>;
        await request.onStepSaved?.({ steps: state.steps ?? 0, messages: state.messages?.length ?? 0 });
      }
    }
    const messages = state.messages ?? [];
    // A finished run cannot resume: its checkpoints go (off the response's critical path).
    if (deps.checkpointer && !request.keepThread && pendingApprovals.length === 0) {
      const checkpointer = deps.checkpointer;
      void checkpointer.deleteThread(threadId).catch(() => undefined);
    }
    result = {
      runId,
      threadId,
      messages: messages.slice(producedFrom ?? state.initialCount ?? 0).map(toCanonicalMessage),
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
  return { runId, events: events(), result: () => result };
}

/**
 * A tool call is billed like a model call: its `cost_usd` is reserved against the
 * key and account first (a refusal goes back to the model as a tool error, and the
 * run goes on), then settled with a usage row of its own.
 */
async function runBilledTool(deps: AgentRuntimeDeps, context: CallContext, name: string, args: unknown, agent: LoadedAgent) {
  const tool = deps.tools.get(name);
  if (!tool) return { ok: false, content: `Error: the tool "${name}" does not exist.`, costMicros: 0, durationMs: 0 };
  const startedAt = performance.now();
  let reservation;
  if (tool.costMicros > 0) {
    try {
      reservation = await deps.budgets.reserve(context.key, tool.costMicros);
    } catch (error) {
      if (!isJunctionError(error)) throw error;
      return { ok: false, content: `Error: the tool "${name}" was not run: ${error.message}`, costMicros: 0, durationMs: 0 };
    }
  }
  const knowledge = {
    search: async (query: string, options?: { limit?: number }) => {
      const embedder = deps.embedder(context);
      const found = await searchKnowledge({ db: deps.db, accountId: context.key.accountId, collections: agent.config.knowledge, query, ...(embedder && { embedder }), limit: options?.limit ?? 5 });
      return found.hits.map((hit) => ({ content: hit.content, source: hit.source, collection: hit.collection, score: hit.score }));
    },
  };
  const outcome = await runTool(tool, args, { signal: context.signal, accountId: context.key.accountId, agentId: agent.id, knowledge });
  deps.budgets.settle(
    reservation,
    outcome.costMicros,
    usageLogEntry({ id: newGenerationId(), context: { ...context, endpoint: 'agents.tool' }, requestedModel: `tool:${name}`, model: undefined, status: outcome.ok ? 'success' : 'error', httpStatus: null, usage: { inputTokens: 0, outputTokens: 0 }, units: { tool_calls: 1 }, costMicros: outcome.costMicros, startedAt }),
    context.key,
  );
  return outcome;
}

function lastUserText(messages: readonly ModelMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n') || undefined;
  }
  return undefined;
}


