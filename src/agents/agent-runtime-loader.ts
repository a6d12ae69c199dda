import type { AgentRun, AgentRunRequest, AgentRuntimeDeps } from './agent-runner.ts';
import type { RunEvent } from './run-events.ts';
import { newRunId } from './run-id.ts';

/**
 * The agent runtime (LangGraph, LangChain core and the MCP SDK: about 500 modules) is
 * imported at the first agent run, not at start-up: a gateway that never runs an agent
 * neither waits for it at start nor holds it in memory.
 */
let runner: Promise<typeof import('./agent-runner.ts')> | undefined;
export const loadAgentRunner = () => (runner ??= import('./agent-runner.ts'));

/**
 * The entry every route calls: `runAgentGraph`'s contract, with the runtime imported at
 * the first run; the run starts when `events` is first read, as there.
 */
export function runAgent(deps: AgentRuntimeDeps, request: AgentRunRequest): AgentRun {
  const runId = request.runId ?? newRunId();
  let run: AgentRun | undefined;
  const events = async function* (): AsyncGenerator<RunEvent> {
    const runner = await loadAgentRunner();
    run = runner.runAgentGraph(deps, { ...request, runId });
    yield* run.events;
  };
  return { runId, events: events(), result: () => run?.result(), totals: () => run?.totals(), resumedTotals: () => run?.resumedTotals() };
}
