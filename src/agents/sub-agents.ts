import { AIMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { ToolDefinition } from '../core/model-types.ts';
import { boundToolContent } from '../tools/tool-content-bound.ts';
import { agentGraph } from './agent-graph.ts';
import type { LoadedAgent } from './agent-registry.ts';
import { linkedAgentsFor } from './linked-agents.ts';
import type { RunEvent } from './run-events.ts';
import { createRunHooks, type HookScope, mcpToolsFor } from './run-hooks.ts';

/**
 * Agents using agents: each agent in `agents:` is offered to the model as the tool
 * `ask_<id>` taking a message. The call runs that agent — its own instructions, model,
 * knowledge and tools — through the same LangGraph graph, invoked from the caller's tools
 * node with the caller's config, so LangGraph runs it as a subgraph (its checkpoints
 * nest under the caller's step). It shares the run: the same run id on its usage rows,
 * the same totals (its costs are the run's) and the same bounds clock; its steps stream
 * to the caller marked with `agent`.
 */

const PREFIX = 'ask_';
const MAX_DEPTH = 3;

export const isAgentTool = (name: string): boolean => name.startsWith(PREFIX);
export const agentOfTool = (name: string): string => name.slice(PREFIX.length);

export function agentToolDefinitions(linked: ReadonlyMap<string, LoadedAgent>, agentIds: readonly string[]): ToolDefinition[] {
  return agentIds.flatMap((id) => {
    const agent = linked.get(id);
    if (!agent) return [];
    return [
      {
        name: `${PREFIX}${id}`,
        description: `Ask the agent "${agent.config.name}" and get its answer. ${agent.config.description}`.trim(),
        parameters: { type: 'object', properties: { message: { type: 'string', description: 'What to ask, with the context it needs.' } }, required: ['message'], additionalProperties: false },
      },
    ];
  });
}

export async function runSubAgent(scope: HookScope, agentId: string, args: unknown, config: LangGraphRunnableConfig, emit: (event: RunEvent) => void) {
  const failure = (content: string) => ({ ok: false, content, costMicros: 0, durationMs: 0 });
  const agent = scope.agent.config.agents.includes(agentId) ? scope.linkedAgents.get(agentId) : undefined;
  if (!agent) return failure(`Error: the agent "${agentId}" is not available.`);
  if (scope.depth + 1 >= MAX_DEPTH) return failure(`Error: agents may call agents at most ${MAX_DEPTH - 1} levels deep.`);
  const message = typeof args === 'object' && args !== null && 'message' in args && typeof args.message === 'string' ? args.message : undefined;
  if (!message) return failure('Error: give the agent a "message".');
  const started = performance.now();
  const hooks = createRunHooks({
    ...scope,
    mcpTools: await mcpToolsFor(scope.deps, agent),
    linkedAgents: await linkedAgentsFor(scope.deps, scope.context.key.accountId, agent),
    agent,
    context: { ...scope.context, agent: { agentId: agent.id, runId: scope.context.agent.runId } },
    request: { history: [], input: [{ role: 'user', content: [{ type: 'text', text: message }] }] },
    depth: scope.depth + 1,
    agentPath: scope.agentPath ? `${scope.agentPath}/${agentId}` : agentId,
    // Nested calls compose: the caller's emit prefixes its own agent in turn (`researcher/fetcher`).
    emit: (event) => emit({ ...event, agent: event.agent ? `${agentId}/${event.agent}` : agentId }),
  });
  const before = { ...scope.totals.current };
  const state = (await agentGraph.invoke({}, { ...config, configurable: { ...config.configurable, run: hooks }, recursionLimit: agent.config.maxSteps * 2 + 10 })) as { messages: unknown[] };
  const answer = state.messages.findLast((entry): entry is AIMessage => entry instanceof AIMessage);
  // The caller's view of the run: its own last model and finish, not the sub-agent's.
  scope.totals.current.model = before.model;
  scope.totals.current.finish = before.finish;
  return { ok: true, content: boundToolContent(answer ? answer.text : ''), costMicros: 0, durationMs: performance.now() - started };
}
