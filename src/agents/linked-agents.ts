import type { LoadedAgent } from './agent-registry.ts';
import type { AgentRuntimeDeps } from './agent-runner.ts';

/**
 * The agents an agent names in `agents:` and `handoffs:`, as the running account owns
 * them: each id is looked up among that account's agents only, so an id that names
 * another account's agent (or nothing) is simply absent and its tool is not offered.
 */
export async function linkedAgentsFor(deps: AgentRuntimeDeps, accountId: string, agent: LoadedAgent): Promise<ReadonlyMap<string, LoadedAgent>> {
  const ids = [...new Set([...agent.config.agents, ...agent.config.handoffs])];
  const found = await Promise.all(ids.map(async (id) => [id, await deps.subAgent?.(accountId, id)] as const));
  return new Map(found.flatMap(([id, linked]) => (linked ? [[id, linked] as const] : [])));
}
