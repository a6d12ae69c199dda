import { createHash } from 'node:crypto';
import type { LoadedAgent } from './agent-registry.ts';

/**
 * The bucket (0–99) of a conversation for an agent's staged release. A conversation keeps
 * its bucket for its whole life (a `previous_response_id` chain is one conversation), so
 * it keeps the version it started with; raising the share only adds buckets.
 */
export function releaseBucket(agentId: string, conversationId: string): number {
  return createHash('sha256').update(agentId).update('\0').update(conversationId).digest().readUInt32BE(0) % 100;
}

/** The version that serves this conversation: the staged one for its share of buckets, the published one otherwise. */
export function servingFor<Agent extends LoadedAgent>(agent: Agent, conversationId: string): Agent {
  const release = agent.release;
  if (!release || releaseBucket(agent.id, conversationId) >= release.share) return agent;
  return { ...agent, ...release.agent, release: undefined };
}
