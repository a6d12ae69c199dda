import type { AgentRunResult } from './agent-runner.ts';

/**
 * What a conversation node keeps of the run that produced it: the run id (which finds its
 * usage rows and steps) and the version of the agent that wrote it, so feedback on the
 * node counts for that version.
 */
export function runMetadata(result: Pick<AgentRunResult, 'runId' | 'agentVersions'>, agentId: string | undefined): Record<string, string> {
  const version = agentId === undefined ? undefined : result.agentVersions.get(agentId);
  return { run_id: result.runId, ...(version !== undefined && { agent_version: version }) };
}
