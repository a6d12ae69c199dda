import { AccountNames } from '../accounts/account-names.ts';
import { AgentDirectory } from '../agents/agent-directory.ts';
import type { AgentRegistry } from '../agents/agent-registry.ts';
import type { AgentRuntimeDeps } from '../agents/agent-runner.ts';
import { ConsoleAgentStore } from '../agents/console-agent-store.ts';
import { AgentCheckpointer } from '../agents/durable/agent-checkpointer.ts';
import type { BackgroundRuns } from '../agents/durable/background-runs.ts';
import { CompactionSeal } from '../agents/responses/compaction-seal.ts';
import type { BudgetLeases } from '../billing/budget-leases.ts';
import type { SettlementQueue } from '../billing/settlement-queue.ts';
import type { KnowledgeSync } from '../knowledge/knowledge-sync.ts';
import { pipelineEmbedder } from '../knowledge/pipeline-embedder.ts';
import type { ChatPipeline } from '../pipeline/chat-pipeline.ts';
import type { UnaryPipeline } from '../pipeline/unary-pipeline.ts';
import type { ProcessRegistration } from '../store/process-registry.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { retentionServices } from './retention-services.ts';
import { runStepServices } from './run-step-services.ts';
import type { ServiceBuild } from './service-build.ts';

/** JUNCTION_RUN_LEASE_SECONDS: how long a background run's process may stay silent before another takes it over (default 30). */
function runLeaseSeconds(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.JUNCTION_RUN_LEASE_SECONDS ?? 30);
  if (!Number.isFinite(value) || value < 1 || value > 3_600) throw new Error('JUNCTION_RUN_LEASE_SECONDS must be a number of seconds between 1 and 3600');
  return value;
}

export type AgentServices = {
  agentRuntime: AgentRuntimeDeps | undefined;
  agentDirectory: AgentDirectory | undefined;
  backgroundRuns: BackgroundRuns | undefined;
};

export type AgentServiceDeps = {
  agents: AgentRegistry;
  tools: ToolRegistry;
  chat: ChatPipeline;
  unary: UnaryPipeline;
  budgets: BudgetLeases;
  settlements: SettlementQueue;
  knowledge: KnowledgeSync;
  embeddingModel: string | undefined;
  registration: ProcessRegistration | undefined;
  defaultAccountId: () => string;
};

/** The agent runtime and what it needs: the agent directory, MCP connections, checkpoints, and background runs when this process is registered. */
export async function agentServices(build: ServiceBuild, deps: AgentServiceDeps): Promise<AgentServices> {
  const { db, env, logger, config, startSteps, stops } = build;
  const { chat, unary, budgets, tools, knowledge, embeddingModel, settlements } = deps;
  const consoleAgents = new ConsoleAgentStore(db);
  startSteps.push(async () => {
    await consoleAgents.start();
    stops.push(() => consoleAgents.stop());
  });
  const directory = new AgentDirectory(deps.agents, consoleAgents, new AccountNames(db), deps.defaultAccountId);
  const { McpServers } = await import('../agents/mcp/mcp-servers.ts');
  const { tenantMcpPolicyFromEnv } = await import('../agents/mcp/tenant-mcp-policy.ts');
  const mcpPolicy = tenantMcpPolicyFromEnv(env);
  const mcp = new McpServers({
    env,
    tenantPolicy: mcpPolicy,
    onError: (error, server) => logger.warn({ err: error, server: server.label }, 'an MCP server could not be reached; its tools are left out of this run'),
  });
  stops.push(() => mcp.close());
  retentionServices(build);
  const agentRuntime: AgentRuntimeDeps = {
    db,
    chat,
    budgets,
    tools,
    embedder: (context) => (embeddingModel ? pipelineEmbedder(unary, context, embeddingModel) : undefined),
    knowledgeReady: (accountId) => knowledge.ensureIndexed(accountId),
    // The running account's agents only: another account's id is no agent here.
    subAgent: (accountId, agentId) => directory.find(accountId, agentId),
    runSteps: runStepServices(build),
    mcp,
    mcpPolicy,
    compactions: new CompactionSeal(config.keySecret),
    checkpointer: new AgentCheckpointer(db, {
      onError: (error) => logger.error({ err: error }, 'writing agent checkpoints failed'),
      // A durable checkpoint is written only once the calls of the steps it records are billed.
      beforeDurableWrite: () => settlements.writeQueued(),
    }),
  };
  startSteps.push(() => {
    knowledge.start();
    stops.push(() => knowledge.close());
  });
  const backgroundRuns = deps.registration ? await startBackgroundRuns(build, deps.registration, directory, agentRuntime) : undefined;
  return { agentRuntime, agentDirectory: directory, backgroundRuns };
}

/** Background Responses runs held by this process: taken over from dead processes and run to the end. */
async function startBackgroundRuns(build: ServiceBuild, registration: ProcessRegistration, agents: AgentDirectory, runtime: AgentRuntimeDeps): Promise<BackgroundRuns> {
  const { db, env, logger, startSteps, stops } = build;
  const { BackgroundRuns } = await import('../agents/durable/background-runs.ts');
  const { executeBackgroundRun } = await import('../agents/responses/background-execution.ts');
  const executionDeps = { db, agents, runtime, holderId: registration.id, logger };
  const runs = new BackgroundRuns({
    db,
    holderId: registration.id,
    leaseSeconds: runLeaseSeconds(env),
    logger,
    execute: (row, signal, resumed) => executeBackgroundRun(executionDeps, row, signal, resumed),
  });
  startSteps.push(async () => {
    await runs.start();
    stops.push(() => runs.stop());
  });
  return runs;
}
