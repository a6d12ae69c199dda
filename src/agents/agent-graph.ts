import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage, SystemMessage, type ToolMessage } from '@langchain/core/messages';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { Annotation, END, interrupt, type LangGraphRunnableConfig, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { RunEvent } from './run-events.ts';
import type { RunTotals } from './run-totals.ts';

/**
 * What one run needs from the outside world, passed in `configurable.run`, so one
 * compiled graph serves every request: the graph is the control flow only.
 */
export type RunHooks = {
  /** History from the conversation tree plus the new input (load history). */
  initialMessages(): Promise<BaseMessage[]>;
  /** Knowledge context for the user's turn, or undefined (retrieve). */
  retrieve(emit: (event: RunEvent) => void): Promise<string | undefined>;
  /** One model call over the pipeline (model). `final` forbids further tool calls. */
  callModel(messages: BaseMessage[], step: number, final: boolean, emit: (event: RunEvent) => void): Promise<AIMessage>;
  /** Runs the server-side tool calls of a model answer (tools); calls a person denied are answered with the denial. */
  runTools(message: AIMessage, step: number, emit: (event: RunEvent) => void, decisions: ApprovalDecisions, config: LangGraphRunnableConfig): Promise<ToolMessage[]>;
  /** The agent a `transfer_to_<id>` tool hands the conversation to, or undefined for other tools. */
  handoffTarget(name: string): string | undefined;
  /** Whether a tool waits for a person's approval before it runs. */
  requiresApproval(name: string): boolean;
  /** The MCP server behind a tool name and its own name for the tool, for a call that waits: shown as OpenAI's MCP approval request. */
  mcpToolOf?(name: string): { serverLabel: string; tool: string } | undefined;
  /** Whether a tool name is one of the agent's own (server-side) tools. */
  isServerTool(name: string): boolean;
  /**
   * Whether a tool name is one the request declared for the client to run: only those end
   * the run for the client. A call to any other name the run does not have (made up, or on
   * an MCP server that is down) runs here as an error result, and the run goes on.
   */
  isClientTool(name: string): boolean;
  /** Whether the agent has any server-side tool (without one, a run is a single model step). */
  hasServerTools: boolean;
  /** What the run has used so far; kept in the checkpointed state, so a resumed run goes on counting. */
  totals(): RunTotals;
  /** Why the run must stop now (a time or cost bound), or undefined. */
  exceededBound(): string | undefined;
  instructions: string;
  maxSteps: number;
  /** The path of agents that called this one (`researcher`, `researcher/fetcher`); undefined for the run's own agent. */
  agentPath?: string;
};

/** What a paused run asks for: the calls that wait for approval. The interrupt's value. */
export type ApprovalInterrupt = { kind: 'approval'; calls: Array<{ callId: string; name: string; arguments: string; agent?: string; mcp?: { serverLabel: string; tool: string } }> };
/** The answer a resumed run gets back from its interrupt, by call id. */
export type ApprovalDecisions = Record<string, { approve: boolean; reason?: string }>;

const RunState = Annotation.Root({
  ...MessagesAnnotation.spec,
  context: Annotation<string | undefined>({ reducer: (_, next) => next, default: () => undefined }),
  steps: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }),
  /** How many messages came from history and input: the rest the run produced. */
  initialCount: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }),
  totals: Annotation<RunTotals | undefined>({ reducer: (_, next) => next, default: () => undefined }),
  /** The agent the conversation was handed to by this step's `transfer_to_<id>` call. */
  handoffTo: Annotation<string | undefined>({ reducer: (_, next) => next, default: () => undefined }),
  /** Set when a bound stopped the run (max_run_seconds, max_run_cost_usd). */
  stoppedBy: Annotation<string | undefined>({ reducer: (_, next) => next, default: () => undefined }),
});
type State = typeof RunState.State;

const hooksOf = (config: LangGraphRunnableConfig): RunHooks => {
  const hooks = config.configurable?.run as RunHooks | undefined;
  if (!hooks) throw new Error('agent graph invoked without configurable.run');
  return hooks;
};
const emitter = (config: LangGraphRunnableConfig) => (event: RunEvent) => config.writer?.(event);

async function loadHistory(_state: State, config: LangGraphRunnableConfig) {
  const messages = await hooksOf(config).initialMessages();
  return { messages, initialCount: messages.length };
}

async function retrieve(_state: State, config: LangGraphRunnableConfig) {
  return { context: await hooksOf(config).retrieve(emitter(config)) };
}

/**
 * One model step from the run's state, as the graph's model node and the single-step run
 * both take it: the bound checked before, the prompt rebuilt, the call, and the bound after.
 */
export async function modelStep(state: Pick<State, 'messages' | 'context' | 'steps'>, hooks: RunHooks, emit: (event: RunEvent) => void): Promise<Partial<State>> {
  const before = hooks.exceededBound();
  if (before) return { stoppedBy: before };
  const step = state.steps + 1;
  // System prompt and retrieved knowledge are rebuilt for every call, never stored in the conversation.
  const system = [hooks.instructions, state.context].filter(Boolean).join('\n\n');
  const prompt = system ? [new SystemMessage(system), ...state.messages] : state.messages;
  const answer = await hooks.callModel(prompt, step, step >= hooks.maxSteps, emit);
  // A bound reached during the call (its time ran out, or it cost the rest of the budget) ends the run here;
  // a cost bound only matters if the run would go on (the answer calls tools), time cuts the call itself.
  const bound = hooks.exceededBound();
  const callsTools = (answer.tool_calls ?? []).some((call) => !hooks.isClientTool(call.name));
  // The last allowed step is asked for an answer (tool_choice none); a model that calls tools anyway hit max_steps.
  let reached: string | undefined;
  if (bound === 'max_run_seconds' || (bound && callsTools)) reached = bound;
  else if (step >= hooks.maxSteps && callsTools) reached = 'max_steps';
  return { messages: [answer], steps: step, totals: hooks.totals(), ...(reached && { stoppedBy: reached }) };
}

async function model(state: State, config: LangGraphRunnableConfig) {
  return modelStep(state, hooksOf(config), emitter(config));
}

async function tools(state: State, config: LangGraphRunnableConfig) {
  const last = state.messages.at(-1);
  if (!(last instanceof AIMessage)) return {};
  const hooks = hooksOf(config);
  // Calls that need a person: the run pauses here (a LangGraph interrupt, checkpointed) before any tool of
  // this answer runs; resumed, the node starts over with the decisions, so nothing runs twice.
  const waiting = (last.tool_calls ?? []).filter((call) => hooks.isServerTool(call.name) && hooks.requiresApproval(call.name));
  const rawArguments = (last.additional_kwargs as { rawArguments?: Record<string, string> }).rawArguments ?? {};
  const decisions: ApprovalDecisions =
    waiting.length === 0
      ? {}
      : (interrupt({
          kind: 'approval',
          calls: waiting.map((call) => {
            const mcp = hooks.mcpToolOf?.(call.name);
            return {
              callId: call.id ?? '',
              name: call.name,
              arguments: rawArguments[call.id ?? ''] ?? JSON.stringify(call.args),
              ...(hooks.agentPath && { agent: hooks.agentPath }),
              ...(mcp && { mcp }),
            };
          }),
        } satisfies ApprovalInterrupt) as ApprovalDecisions);
  const handoffTo = (last.tool_calls ?? []).map((call) => hooks.handoffTarget(call.name)).find((target) => target !== undefined);
  return { messages: await hooks.runTools(last, state.steps, emitter(config), decisions, config), totals: hooks.totals(), ...(handoffTo && { handoffTo }) };
}

/** After a model call: run its calls that are not the client's, or stop (an answer, only client-side calls, or the step bound). */
function afterModel(state: State, config: LangGraphRunnableConfig): 'tools' | typeof END {
  const hooks = hooksOf(config);
  const last = state.messages.at(-1);
  const calls = last instanceof AIMessage ? (last.tool_calls ?? []) : [];
  if (state.stoppedBy || calls.length === 0 || state.steps >= hooks.maxSteps) return END;
  return calls.some((call) => !hooks.isClientTool(call.name)) ? 'tools' : END;
}

/**
 * After the server-side tools ran: back to the model, unless the same answer also
 * called a client-side tool — then the run stops and the client supplies that result
 * (the server results are already in the conversation, so nothing is left dangling).
 */
function afterTools(state: State, config: LangGraphRunnableConfig): 'model' | typeof END {
  const hooks = hooksOf(config);
  const answer = state.messages.findLast((message) => message instanceof AIMessage);
  const calls = answer instanceof AIMessage ? (answer.tool_calls ?? []) : [];
  if (state.handoffTo) return END; // the runner goes on with the agent it was handed to
  if (hooks.exceededBound()) return 'model'; // the model node records the bound and ends the run
  return calls.some((call) => hooks.isClientTool(call.name)) ? END : 'model';
}

/** load history → retrieve → model → tools → model … → answer. */
const agentGraphBuilder = new StateGraph(RunState)
  .addNode('load_history', loadHistory)
  .addNode('retrieve', retrieve)
  .addNode('model', model)
  .addNode('tools', tools)
  .addEdge(START, 'load_history')
  .addEdge('load_history', 'retrieve')
  .addEdge('retrieve', 'model')
  .addConditionalEdges('model', afterModel, ['tools', END])
  .addConditionalEdges('tools', afterTools, ['model', END]);

export type AgentGraphState = State;

/** Without a checkpointer: runs that live in one request only (tests, short-lived tools). */
export const agentGraph = agentGraphBuilder.compile();

const compiled = new WeakMap<BaseCheckpointSaver, ReturnType<typeof agentGraphBuilder.compile>>();
/** The graph checkpointed per step by `checkpointer` (thread_id = run id), compiled once per saver. */
export function checkpointedAgentGraph(checkpointer: BaseCheckpointSaver) {
  let graph = compiled.get(checkpointer);
  if (!graph) {
    graph = agentGraphBuilder.compile({ checkpointer });
    compiled.set(checkpointer, graph);
  }
  return graph;
}
