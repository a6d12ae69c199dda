import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { Database } from '../../store/database.ts';
import type { AgentDirectory } from '../agent-directory.ts';
import type { AgentRuntimeDeps } from '../agent-runner.ts';
import type { BackgroundRuns } from '../durable/background-runs.ts';

export type AgentsApiDeps = {
  db: Database;
  authenticator: KeyAuthenticator;
  /** Agents by owning account: a key sees only its own account's. */
  agents: AgentDirectory;
  runtime: AgentRuntimeDeps;
  backgroundRuns?: BackgroundRuns;
};
