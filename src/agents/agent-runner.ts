import { randomBytes } from 'node:crypto';
import { type AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { BudgetLeases } from '../billing/budget-leases.ts';
import { isJunctionError } from '../core/errors.ts';
import type { FinishReason, ModelMessage, ModelRequest, ToolDefinition, Usage } from '../core/model-types.ts';
import type { Embedder } from '../knowledge/embedder.ts';
import { formatKnowledgeContext } from '../knowledge/format-knowledge-context.ts';
import { searchKnowledge } from '../knowledge/hybrid-search.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { contextWith, endSpan, startSpan } from '../ops/tracing.ts';
import type { ChatPipeline } from '../pipeline/chat-pipeline.ts';
import { newGenerationId } from '../pipeline/generation-id.ts';
import { usageLogEntry } from '../pipeline/usage-log-entry.ts';
import type { Database } from '../store/database.ts';
import { runTool } from '../tools/run-tool.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { agentGraph, type RunHooks } from './agent-graph.ts';
import type { LoadedAgent } from './agent-registry.ts';
import { toCanonicalMessage, toLangChainMessage } from './langchain-messages.ts';
import { PipelineChatModel } from './pipeline-chat-model.ts';
import type { RunEvent } from './run-events.ts';

export type AgentRuntimeDeps = {
  db: Database;
  chat: ChatPipeline;
  budgets: BudgetLeases;
  tools: ToolRegistry;
  /** The embedding model for query-time retrieval; full text alone without one. */
  embedder: (context: CallContext) => Embedder | undefined;
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
  const runId = newRunId();
  const { agent } = request;
  const runSpan = startSpan(`agent.run ${agent.id}`, request.context.trace, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent.id, 'gen_ai.agent.id': runId, 'junction.agent_version': agent.version });
  const trace = contextWith(runSpan, request.context.trace);
  const context: CallContext = { ...request.context, agent: { agentId: agent.id, runId, version: agent.version }, ...(trace && { trace }) };
  const clientTools = request.overrides?.clientTools ?? [];
  const serverTools = deps.tools.definitions(agent.config.tools);
  const totals = { usage: { inputTokens: 0, outputTokens: 0 } as Usage, modelCost: 0, toolCost: 0, finish: { unified: 'stop', raw: undefined } as FinishReason, model: agent.config.model };
  const produced: BaseMessage[] = [];

  const hooks: RunHooks = {
    instructions: [request.agent.instructions, request.overrides?.instructions].filter(Boolean).join('\n\n'),
    maxSteps: agent.config.maxSteps,
    isServerTool: (name) => serverTools.some((tool) => tool.name === name),
    initialMessages: async () => [...request.history, ...request.input].map(toLangChainMessage),
    retrieve: async (emit) => {
      if (agent.config.knowledge.length === 0) return undefined;
      const query = lastUserText(request.input) ?? lastUserText(request.history);
      if (!query) return undefined;
      const embedder = deps.embedder(context);
      const span = startSpan('retrieve', trace, { 'junction.collections': agent.config.knowledge.join(',') });
      const found = await searchKnowledge({ db: deps.db, accountId: context.key.accountId, collections: agent.config.knowledge, query, ...(embedder && { embedder }), limit: 4 }).finally(() => endSpan(span));
      span?.setAttribute('junction.hits', found.hits.length);
      emit({ type: 'knowledge-retrieved', query, hits: found.hits.map((hit) => ({ source: hit.source, title: hit.title, score: hit.score })) });
      return found.hits.length > 0 ? formatKnowledgeContext(found.hits) : undefined;
    },
    callModel: async (messages, step, final, emit) => {
      emit({ type: 'model-started', step });
      const overrides = request.overrides ?? {};
      const model = new PipelineChatModel({
        pipeline: deps.chat,
        context,
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
          if (event.type === 'finish') totals.finish = event.finishReason;
        },
        onOutcome: (outcome) => {
          totals.usage = addUsage(totals.usage, outcome.usage);
          totals.modelCost += outcome.costMicros;
          totals.model = outcome.model.id;
          emit({ type: 'model-finished', step, model: outcome.model.id, generationId: outcome.generationId, usage: outcome.usage, costMicros: outcome.costMicros });
        },
      });
      const answer = (await model.invoke(messages, { signal: context.signal })) as AIMessage;
      produced.push(answer);
      return answer;
    },
    runTools: async (message, step, emit) => {
      const results: ToolMessage[] = [];
      // Only the agent's own tools run here; a client-side call in the same answer is left for the client.
      for (const call of (message.tool_calls ?? []).filter((entry) => hooks.isServerTool(entry.name))) {
        const callId = call.id ?? '';
        const rawArguments = (message.additional_kwargs as { rawArguments?: Record<string, string> }).rawArguments?.[callId] ?? JSON.stringify(call.args);
        emit({ type: 'tool-started', step, callId, name: call.name, arguments: rawArguments });
        const span = startSpan(`tool ${call.name}`, trace, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name });
        const outcome = await runBilledTool(deps, context, call.name, call.args, agent);
        span?.setAttributes({ 'junction.cost_usd': outcome.costMicros / 1_000_000, 'junction.tool_ok': outcome.ok });
        endSpan(span, outcome.ok ? undefined : new Error('tool failed'));
        totals.toolCost += outcome.costMicros;
        emit({ type: 'tool-finished', step, callId, name: call.name, ok: outcome.ok, output: outcome.content, costMicros: outcome.costMicros, durationMs: outcome.durationMs });
        const result = new ToolMessage({ content: outcome.content, tool_call_id: callId, name: call.name, status: outcome.ok ? 'success' : 'error' });
        results.push(result);
        produced.push(result);
      }
      return results;
    },
  };

  let result: AgentRunResult | undefined;
  const events = async function* (): AsyncGenerator<RunEvent> {
    let steps = 0;
    try {
      const stream = await agentGraph.stream({}, { configurable: { run: hooks }, streamMode: ['custom', 'values'], signal: context.signal, recursionLimit: agent.config.maxSteps * 2 + 10 });
      for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
        if (mode === 'custom') yield chunk as RunEvent;
        else steps = (chunk as { steps?: number }).steps ?? steps;
      }
      result = {
        runId,
        messages: produced.map(toCanonicalMessage),
        usage: totals.usage,
        modelCostMicros: totals.modelCost,
        toolCostMicros: totals.toolCost,
        costMicros: totals.modelCost + totals.toolCost,
        finishReason: totals.finish,
        steps,
        model: totals.model,
      };
      runSpan?.setAttributes({ 'gen_ai.usage.input_tokens': totals.usage.inputTokens, 'gen_ai.usage.output_tokens': totals.usage.outputTokens, 'junction.cost_usd': (totals.modelCost + totals.toolCost) / 1_000_000, 'junction.steps': steps });
      endSpan(runSpan);
    } catch (error) {
      endSpan(runSpan, error);
      throw error;
    }
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

const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cachedInputTokens: (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0),
  reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0),
});


