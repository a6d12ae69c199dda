import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { isJunctionError } from '../core/errors.ts';
import type { ModelMessage, ModelRequest, ToolDefinition } from '../core/model-types.ts';
import { formatKnowledgeContext } from '../knowledge/format-knowledge-context.ts';
import { searchKnowledge } from '../knowledge/hybrid-search.ts';
import { endSpan, startSpan } from '../ops/tracing.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { newGenerationId } from '../pipeline/generation-id.ts';
import { usageLogEntry } from '../pipeline/usage-log-entry.ts';
import { runTool } from '../tools/run-tool.ts';
import type { ApprovalDecisions, RunHooks } from './agent-graph.ts';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { LoadedAgent } from './agent-registry.ts';
import type { AgentRunRequest, AgentRuntimeDeps } from './agent-runner.ts';
import { toLangChainMessage } from './langchain-messages.ts';
import { PipelineChatModel } from './pipeline-chat-model.ts';
import type { RunEvent } from './run-events.ts';
import { addUsage, type RunTotals } from './run-totals.ts';
import { handoffTarget, handoffToolDefinitions } from './handoffs.ts';
import type { McpTool } from './mcp/mcp-servers.ts';
import { mcpStep } from './mcp/mcp-step.ts';
import { agentOfTool, agentToolDefinitions, isAgentTool, runSubAgent } from './sub-agents.ts';
import { toAbortSignal } from '../core/cancel-signal.ts';
import { overlay } from '../core/overlay.ts';
import { agentBounds, type RunBounds, tighterBounds } from './run-bounds.ts';
import { answerUnansweredToolCalls } from './unanswered-tool-calls.ts';
import { recordRunSteps } from './run-step-recorder.ts';

type ToolOutcome = { ok: boolean; content: string; costMicros: number; durationMs: number };

/** One agent's part in a run: the top agent, or a sub-agent it called (depth > 0). */
export type HookScope = {
  deps: AgentRuntimeDeps;
  agent: LoadedAgent;
  /** The caller's context with this agent and the run id (shared by sub-agents: one run, one id). */
  context: CallContext & { agent: { agentId: string; runId: string } };
  request: Pick<AgentRunRequest, 'history' | 'input' | 'overrides' | 'responseId'>;
  /** The run's totals, shared by every agent in it. */
  totals: { current: RunTotals };
  /** Model calls still running, shared by every agent in the run: a run that stops waits for them, so what they billed is in its totals. */
  inFlight: Set<Promise<unknown>>;
  startedAt: number;
  /** The bounds of the agents above this one in the run (none for the run's first agent); its own are added. */
  bounds: RunBounds;
  depth: number;
  /** The tools of the agent's MCP servers, listed for this run. */
  mcpTools: McpTool[];
  /** Its `agents:` and `handoffs:` as this account owns them (linked-agents.ts). */
  linkedAgents: ReadonlyMap<string, LoadedAgent>;
  /** The path of agents that called this one, for what it reports (a sub-agent's approval requests); undefined for the run's own agent. */
  agentPath?: string;
  /** Where a sub-agent's events go (the caller's stream, marked with the agent); the graph's writer otherwise. */
  emit?: (event: RunEvent) => void;
};

/** What the hooks of one agent share, worked out once from its scope. */
type AgentHookParts = {
  scope: HookScope;
  serverTools: ToolDefinition[];
  clientTools: ToolDefinition[];
  bounds: RunBounds;
  mcpTool: (name: string) => McpTool | undefined;
};

type Emit = (event: RunEvent) => void;

/**
 * The outside world of one agent's graph (RunHooks): its model over the pipeline, its
 * knowledge, its tools (billed), the agents it may call, its bounds.
 */
export function createRunHooks(scope: HookScope): RunHooks {
  const { deps, agent, request } = scope;
  const clientTools = request.overrides?.clientTools ?? [];
  const serverTools = [
    ...deps.tools.definitions(agent.config.tools),
    ...agentToolDefinitions(scope.linkedAgents, agent.config.agents),
    ...handoffToolDefinitions(scope.linkedAgents, agent.config.handoffs),
    ...scope.mcpTools.map((tool) => tool.definition),
  ];
  const mcpTool = (name: string) => scope.mcpTools.find((tool) => tool.definition.name === name);
  const parts: AgentHookParts = { scope, serverTools, clientTools, bounds: tighterBounds(scope.bounds, agentBounds(agent)), mcpTool };
  const hooks: RunHooks = {
    instructions: [agent.instructions, request.overrides?.instructions].filter(Boolean).join('\n\n'),
    maxSteps: agent.config.maxSteps,
    ...(scope.agentPath && { agentPath: scope.agentPath }),
    totals: () => structuredClone(scope.totals.current),
    exceededBound: () => exceededBound(parts),
    isServerTool: (name) => serverTools.some((tool) => tool.name === name),
    isClientTool: (name) => clientTools.some((tool) => tool.name === name) && !serverTools.some((tool) => tool.name === name),
    hasServerTools: serverTools.length > 0,
    initialMessages: async () => answerUnansweredToolCalls([...request.history, ...request.input]).map(toLangChainMessage),
    retrieve: (given) => retrieveKnowledge(scope, scope.emit ?? given),
    callModel: (messages, step, final, given) => callAgentModel(parts, messages, step, final, scope.emit ?? given),
    requiresApproval: (name) => agent.config.approvalTools.includes(name) || mcpTool(name)?.server.requireApproval === true,
    mcpToolOf: (name) => {
      const tool = mcpTool(name);
      return tool && { serverLabel: tool.server.label, tool: tool.tool };
    },
    handoffTarget: (name) => handoffTarget(agent, name, scope.linkedAgents),
    runTools: (message, step, given, decisions, config) => runToolCalls(parts, hooks, message, step, scope.emit ?? given, decisions, config),
  };
  return recordRunSteps(scope, hooks, deps.runSteps);
}

function exceededBound({ scope, bounds }: AgentHookParts): string | undefined {
  if (bounds.seconds !== undefined && Date.now() - scope.startedAt >= bounds.seconds * 1000) return 'max_run_seconds';
  if (bounds.costMicros !== undefined && scope.totals.current.modelCostMicros + scope.totals.current.toolCostMicros >= bounds.costMicros) return 'max_run_cost_usd';
  return undefined;
}

/** The caller's signal, and the time bound: a model call or tool still running when it passes is cut. */
function boundedSignal({ scope, bounds }: AgentHookParts): { signal: AbortSignal; deadline: AbortSignal | undefined } {
  if (bounds.seconds === undefined) return { signal: toAbortSignal(scope.context.signal), deadline: undefined };
  const deadline = AbortSignal.timeout(Math.max(1, scope.startedAt + bounds.seconds * 1000 - Date.now()));
  return { signal: AbortSignal.any([toAbortSignal(scope.context.signal), deadline]), deadline };
}

/** Knowledge for the user's turn from the agent's collections, or undefined (no collections, no user text, no hits). */
async function retrieveKnowledge(scope: HookScope, emit: Emit): Promise<string | undefined> {
  const { deps, agent, context, request } = scope;
  if (agent.config.knowledge.length === 0) return undefined;
  const query = lastUserText(request.input) ?? lastUserText(request.history);
  if (!query) return undefined;
  await deps.knowledgeReady?.(context.key.accountId);
  const embedder = deps.embedder(context);
  const span = startSpan('retrieve', context.trace, { 'junction.collections': agent.config.knowledge.join(',') });
  const found = await searchKnowledge({ db: deps.db, accountId: context.key.accountId, collections: agent.config.knowledge, query, ...(embedder && { embedder }), limit: 4 }).finally(() =>
    endSpan(span),
  );
  span?.setAttribute('junction.hits', found.hits.length);
  emit({ type: 'knowledge-retrieved', query, hits: found.hits.map((hit) => ({ source: hit.source, title: hit.title, score: hit.score, text: hit.content })) });
  return found.hits.length > 0 ? formatKnowledgeContext(found.hits) : undefined;
}

/**
 * The step's tool choice: the last allowed step must answer (no further tool calls), and a
 * caller's tool_choice applies to the first step only (forcing a tool on every step would loop to max_steps).
 */
function stepToolChoice(parts: AgentHookParts, step: number, final: boolean): { toolChoice?: ModelRequest['toolChoice'] } {
  if (final && parts.serverTools.length + parts.clientTools.length > 0) return { toolChoice: 'none' };
  const chosen = parts.scope.request.overrides?.toolChoice;
  return step === 1 && chosen ? { toolChoice: chosen } : {};
}

/** The agent's sampling settings with the request's overrides on top. */
function modelSettings(parts: AgentHookParts, step: number, final: boolean) {
  const { agent, request } = parts.scope;
  const overrides = request.overrides ?? {};
  return {
    ...((overrides.temperature ?? agent.config.temperature) !== undefined && { temperature: overrides.temperature ?? agent.config.temperature }),
    ...((overrides.maxOutputTokens ?? agent.config.maxOutputTokens) !== undefined && { maxOutputTokens: overrides.maxOutputTokens ?? agent.config.maxOutputTokens }),
    ...((overrides.reasoning ?? agent.config.reasoning) !== undefined && { reasoning: overrides.reasoning ?? agent.config.reasoning }),
    ...(overrides.responseFormat && { responseFormat: overrides.responseFormat }),
    ...stepToolChoice(parts, step, final),
  };
}

/** One model step over the pipeline: streamed out as events, its cost added to the run's totals. */
async function callAgentModel(parts: AgentHookParts, messages: BaseMessage[], step: number, final: boolean, emit: Emit): Promise<AIMessage> {
  const { scope } = parts;
  const { deps, agent, context } = scope;
  emit({ type: 'model-started', step });
  // max_run_seconds also cuts a model call that is still streaming: what it produced so far is the answer.
  const { signal, deadline } = boundedSignal(parts);
  let partialText = '';
  const model = new PipelineChatModel({
    pipeline: deps.chat,
    context: overlay(context, { signal }),
    model: agent.config.model,
    fallbackModels: agent.config.fallbackModels,
    tools: [...parts.serverTools, ...parts.clientTools],
    settings: modelSettings(parts, step, final),
    onEvent: (event) => {
      emit({ type: 'model-event', step, event });
      if (event.type === 'text-delta') partialText += event.delta;
      if (event.type === 'finish') scope.totals.current.finish = { unified: event.finishReason.unified, raw: event.finishReason.raw };
    },
    onOutcome: (outcome) => {
      const totals = scope.totals.current;
      totals.usage = addUsage(totals.usage, outcome.usage);
      totals.modelCostMicros += outcome.costMicros;
      totals.model = outcome.model.id;
      emit({ type: 'model-finished', step, model: outcome.model.id, generationId: outcome.generationId, usage: outcome.usage, costMicros: outcome.costMicros });
    },
  });
  const answer = model.respond(messages);
  scope.inFlight.add(answer);
  try {
    return await answer;
  } catch (error) {
    if (deadline?.aborted && !context.signal.aborted) return new AIMessage({ content: partialText });
    throw error;
  } finally {
    scope.inFlight.delete(answer);
  }
}

/** Every call of a model answer but the client's, in order (a name the run does not have is an error result). */
async function runToolCalls(
  parts: AgentHookParts,
  hooks: RunHooks,
  message: AIMessage,
  step: number,
  emit: Emit,
  decisions: ApprovalDecisions,
  config: LangGraphRunnableConfig,
): Promise<ToolMessage[]> {
  const { scope } = parts;
  const results: ToolMessage[] = [];
  for (const call of (message.tool_calls ?? []).filter((entry) => !hooks.isClientTool(entry.name))) {
    const callId = call.id ?? '';
    const rawArguments = (message.additional_kwargs as { rawArguments?: Record<string, string> }).rawArguments?.[callId] ?? JSON.stringify(call.args);
    const mcp = parts.mcpTool(call.name);
    emit({ type: 'tool-started', step, callId, name: call.name, arguments: rawArguments, ...(mcp && { mcp: mcpStep(mcp, scope.mcpTools) }) });
    const decision = decisions[callId];
    // Bounds are checked before every tool call too, at any depth: a call past them does not run.
    const bound = hooks.exceededBound();
    const span = startSpan(`tool ${call.name}`, scope.context.trace, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name });
    const outcome = await runCall(parts, hooks, { name: call.name, args: call.args, decision, bound }, config, emit);
    span?.setAttributes({ 'junction.cost_usd': outcome.costMicros / 1_000_000, 'junction.tool_ok': outcome.ok });
    endSpan(span, outcome.ok ? undefined : new Error('tool failed'));
    scope.totals.current.toolCostMicros += outcome.costMicros;
    emit({ type: 'tool-finished', step, callId, name: call.name, ok: outcome.ok, output: outcome.content, costMicros: outcome.costMicros, durationMs: outcome.durationMs });
    results.push(new ToolMessage({ content: outcome.content, tool_call_id: callId, name: call.name, status: outcome.ok ? 'success' : 'error' }));
  }
  return results;
}

type ToolCallPlan = { name: string; args: unknown; decision: ApprovalDecisions[string] | undefined; bound: string | undefined };

/** One call of a model answer that is not the client's: refused (bound, unknown name, denial) or run and billed. */
async function runCall(parts: AgentHookParts, hooks: RunHooks, { name, args, decision, bound }: ToolCallPlan, config: LangGraphRunnableConfig, emit: Emit): Promise<ToolOutcome> {
  const { scope } = parts;
  const { deps, agent, context } = scope;
  const refused = (content: string) => ({ ok: false, content, costMicros: 0, durationMs: 0 });
  if (bound) return refused(`Error: ${name} did not run: the run reached its ${bound} bound.`);
  if (!hooks.isServerTool(name)) return refused(`Error: there is no tool "${name}" in this run; use one of the tools you were given.`);
  if (decision && !decision.approve) return refused(`The user denied this call of ${name}; it did not run.${decision.reason ? ` Reason: ${decision.reason}` : ''}`);
  const handedTo = handoffTarget(agent, name, scope.linkedAgents);
  if (handedTo) return { ok: true, content: `Transferred to ${handedTo}: that agent answers from here.`, costMicros: 0, durationMs: 0 };
  if (isAgentTool(name)) return runSubAgent({ ...scope, bounds: parts.bounds }, agentOfTool(name), args, config, emit);
  const { signal } = boundedSignal(parts);
  const mcp = parts.mcpTool(name);
  return mcp ? runBilledMcpTool(deps, context, mcp, args, signal) : runBilledTool(deps, context, name, args, agent, signal);
}

/**
 * A tool call is billed like a model call: its `cost_usd` is reserved against the
 * key and account first (a refusal goes back to the model as a tool error, and the
 * run goes on), then settled with a usage row of its own.
 */
export async function runBilledTool(deps: AgentRuntimeDeps, context: CallContext, name: string, args: unknown, agent: LoadedAgent, signal: AbortSignal) {
  const tool = deps.tools.get(name);
  if (!tool) return { ok: false, content: `Error: the tool "${name}" does not exist.`, costMicros: 0, durationMs: 0 };
  const startedAt = performance.now();
  const createdAt = new Date();
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
      await deps.knowledgeReady?.(context.key.accountId);
      const embedder = deps.embedder(context);
      const found = await searchKnowledge({ db: deps.db, accountId: context.key.accountId, collections: agent.config.knowledge, query, ...(embedder && { embedder }), limit: options?.limit ?? 5 });
      return found.hits.map((hit) => ({ content: hit.content, source: hit.source, collection: hit.collection, score: hit.score }));
    },
  };
  const outcome = await runTool(tool, args, { signal, accountId: context.key.accountId, agentId: agent.id, knowledge });
  deps.budgets.settle(reservation, outcome.costMicros, toolUsageEntry(context, name, outcome.ok, outcome.costMicros, startedAt, createdAt), context.key);
  return outcome;
}

/** The usage row of one server-side tool call, whatever ran it (a tool file, a built-in, an MCP server). */
function toolUsageEntry(context: CallContext, name: string, ok: boolean, costMicros: number, startedAt: number, createdAt: Date) {
  return usageLogEntry({
    id: newGenerationId(),
    context: overlay(context, { endpoint: 'agents.tool' }),
    requestedModel: `tool:${name}`,
    model: undefined,
    status: ok ? 'success' : 'error',
    httpStatus: null,
    usage: { inputTokens: 0, outputTokens: 0 },
    units: { tool_calls: 1 },
    costMicros,
    startedAt,
    createdAt,
  });
}

/** The tools of an agent's MCP servers (none without servers or a connection manager). */
export const mcpToolsFor = async (deps: AgentRuntimeDeps, agent: LoadedAgent): Promise<McpTool[]> => (deps.mcp && agent.config.mcpServers.length > 0 ? deps.mcp.tools(agent.config.mcpServers) : []);

/** An MCP call is billed like any server tool: its server's `cost_usd` reserved first, then settled with a usage row. */
async function runBilledMcpTool(deps: AgentRuntimeDeps, context: CallContext, tool: McpTool, args: unknown, signal: AbortSignal) {
  const name = tool.definition.name;
  const costMicros = tool.server.costMicros;
  const startedAt = performance.now();
  const createdAt = new Date();
  let reservation;
  if (costMicros > 0) {
    try {
      reservation = await deps.budgets.reserve(context.key, costMicros);
    } catch (error) {
      if (!isJunctionError(error)) throw error;
      return { ok: false, content: `Error: the tool "${name}" was not run: ${error.message}`, costMicros: 0, durationMs: 0 };
    }
  }
  const outcome = await tool.via.call(tool, args, signal);
  // A call that never reached the server, or that it never answered, costs nothing.
  const charged = outcome.answered ? costMicros : 0;
  deps.budgets.settle(reservation, charged, toolUsageEntry(context, name, outcome.ok, charged, startedAt, createdAt), context.key);
  return overlay(outcome, { costMicros: charged, durationMs: performance.now() - startedAt });
}

function lastUserText(messages: readonly ModelMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n') || undefined;
  }
  return undefined;
}
