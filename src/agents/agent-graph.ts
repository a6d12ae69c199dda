import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { Annotation, END, type LangGraphRunnableConfig, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { RunEvent } from './run-events.ts';

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
  /** Runs the server-side tool calls of a model answer (tools). */
  runTools(message: AIMessage, step: number, emit: (event: RunEvent) => void): Promise<ToolMessage[]>;
  /** Whether a tool name is one of the agent's own (server-side) tools. */
  isServerTool(name: string): boolean;
  instructions: string;
  maxSteps: number;
};

const RunState = Annotation.Root({
  ...MessagesAnnotation.spec,
  context: Annotation<string | undefined>({ reducer: (_, next) => next, default: () => undefined }),
  steps: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }),
});
type State = typeof RunState.State;

const hooksOf = (config: LangGraphRunnableConfig): RunHooks => {
  const hooks = config.configurable?.run as RunHooks | undefined;
  if (!hooks) throw new Error('agent graph invoked without configurable.run');
  return hooks;
};
const emitter = (config: LangGraphRunnableConfig) => (event: RunEvent) => config.writer?.(event);

async function loadHistory(_state: State, config: LangGraphRunnableConfig) {
  return { messages: await hooksOf(config).initialMessages() };
}

async function retrieve(_state: State, config: LangGraphRunnableConfig) {
  return { context: await hooksOf(config).retrieve(emitter(config)) };
}

async function model(state: State, config: LangGraphRunnableConfig) {
  const hooks = hooksOf(config);
  const step = state.steps + 1;
  // System prompt and retrieved knowledge are rebuilt for every call, never stored in the conversation.
  const system = [hooks.instructions, state.context].filter(Boolean).join('\n\n');
  const prompt = system ? [new SystemMessage(system), ...state.messages] : state.messages;
  const answer = await hooks.callModel(prompt, step, step >= hooks.maxSteps, emitter(config));
  return { messages: [answer], steps: step };
}

async function tools(state: State, config: LangGraphRunnableConfig) {
  const last = state.messages.at(-1);
  if (!(last instanceof AIMessage)) return {};
  return { messages: await hooksOf(config).runTools(last, state.steps, emitter(config)) };
}

/** After a model call: run its server-side tool calls, or stop (an answer, only client-side calls, or the step bound). */
function afterModel(state: State, config: LangGraphRunnableConfig): 'tools' | typeof END {
  const hooks = hooksOf(config);
  const last = state.messages.at(-1);
  const calls = last instanceof AIMessage ? (last.tool_calls ?? []) : [];
  if (calls.length === 0 || state.steps >= hooks.maxSteps) return END;
  return calls.some((call) => hooks.isServerTool(call.name)) ? 'tools' : END;
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
  return calls.some((call) => !hooks.isServerTool(call.name)) ? END : 'model';
}

/** load history → retrieve → model → tools → model … → answer. */
export const agentGraph = new StateGraph(RunState)
  .addNode('load_history', loadHistory)
  .addNode('retrieve', retrieve)
  .addNode('model', model)
  .addNode('tools', tools)
  .addEdge(START, 'load_history')
  .addEdge('load_history', 'retrieve')
  .addEdge('retrieve', 'model')
  .addConditionalEdges('model', afterModel, ['tools', END])
  .addConditionalEdges('tools', afterTools, ['model', END])
  .compile();
