import type { ToolDefinition } from '../core/model-types.ts';
import type { StoredMessage } from '../conversations/conversation-repository.ts';
import type { LoadedAgent } from './agent-registry.ts';
import { servingFor } from './release-selection.ts';

/**
 * Handoffs: each agent in `handoffs:` is offered as the tool `transfer_to_<id>`. Calling
 * it ends the caller's part of the turn (the graph stops after that tools step) and the
 * runner goes on, in the same run, with the agent it was handed to, which answers this
 * turn. Every message records the agent that produced it, and a conversation's next turn
 * goes to the agent of its last answer (`activeAgent`) — until that agent hands it on,
 * or back. Every id is looked up among the running account's agents only.
 */

const PREFIX = 'transfer_to_';
/** Handoffs within one turn, so two agents handing to each other cannot loop. */
export const MAX_HANDOFFS_PER_TURN = 3;

export function handoffToolDefinitions(linked: ReadonlyMap<string, LoadedAgent>, agentIds: readonly string[]): ToolDefinition[] {
  return agentIds.flatMap((id) => {
    const agent = linked.get(id);
    if (!agent) return [];
    return [
      {
        name: `${PREFIX}${id}`,
        description: `Hand this conversation to the agent "${agent.config.name}": it answers from now on. ${agent.config.description}`.trim(),
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
    ];
  });
}

export function handoffTarget(agent: LoadedAgent, toolName: string, linked: ReadonlyMap<string, LoadedAgent>): string | undefined {
  if (!toolName.startsWith(PREFIX)) return undefined;
  const target = toolName.slice(PREFIX.length);
  return agent.config.handoffs.includes(target) && linked.has(target) ? target : undefined;
}

/**
 * The agent that answers a conversation's next turn: the one that gave its last answer
 * when the requested agent handed the conversation there (directly or along a chain of
 * handoffs); otherwise the requested one (a caller may still switch agents on purpose).
 * The agent handed to serves the version of its release a direct call in this
 * conversation would get, so a staged share holds for it too.
 */
export async function activeAgent(requested: LoadedAgent, path: readonly StoredMessage[], lookup: (agentId: string) => Promise<LoadedAgent | undefined>, conversationId: string): Promise<LoadedAgent> {
  const last = path.findLast((node) => node.message.role === 'assistant');
  if (!last?.agentId || last.agentId === requested.id) return requested;
  let frontier = [requested];
  const seen = new Set([requested.id]);
  for (let depth = 0; depth < MAX_HANDOFFS_PER_TURN && frontier.length > 0; depth += 1) {
    const next: LoadedAgent[] = [];
    for (const agent of frontier) {
      for (const id of agent.config.handoffs) {
        if (seen.has(id)) continue;
        seen.add(id);
        const found = await lookup(id);
        if (!found) continue;
        if (found.id === last.agentId) return servingFor(found, conversationId);
        next.push(found);
      }
    }
    frontier = next;
  }
  return requested;
}
