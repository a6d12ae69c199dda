import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { Database } from '../../store/database.ts';
import type { AgentRegistry } from '../agent-registry.ts';
import type { AgentRuntimeDeps } from '../agent-runner.ts';
import type { BackgroundRuns } from '../durable/background-runs.ts';

export type AgentsApiDeps = {
  db: Database;
  authenticator: KeyAuthenticator;
  agents: AgentRegistry;
  runtime: AgentRuntimeDeps;
  backgroundRuns?: BackgroundRuns;
};
