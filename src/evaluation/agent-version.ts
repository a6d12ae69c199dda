import type { AgentDirectory, OwnedAgent } from '../agents/agent-directory.ts';
import { requirePinned } from '../agents/agent-pinning.ts';
import { JunctionError } from '../core/errors.ts';

/** The agent version an evaluation runs, in the caller's account only; anything else is "not found". */
export async function evaluatedVersion(agents: AgentDirectory, accountId: string, agentId: string, selector: string): Promise<OwnedAgent> {
  const pinned = selector === 'draft' ? 'latest' : selector;
  try {
    return await requirePinned(agents, accountId, { id: agentId, selector: pinned });
  } catch (error) {
    if (error instanceof JunctionError && error.code === 'model_not_found') {
      throw new JunctionError('not_found', `No agent '${agentId}' with a version '${selector}' in this account.`, { param: 'agent' });
    }
    throw error;
  }
}
