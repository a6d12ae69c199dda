import { relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AgentRegistry } from '../agents/agent-registry.ts';
import { toModelListEntry } from '../catalog/model-list.ts';
import type { Catalog } from '../catalog/types.ts';
import { systemKeyFor } from '../keys/system-key.ts';
import type { AccountPlans } from '../pipeline/account-plans.ts';
import { isVisibleTo } from '../pipeline/model-access.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import type { ConsoleAgent } from './contract/agents.ts';

export type CatalogRoutesDeps = { db: Database; now: () => Date; catalog: Catalog; plans: AccountPlans; agents: AgentRegistry | undefined };

/** What the account may use: the catalog its plan allows, and its agents. */
export async function catalogRoutes(app: FastifyInstance, deps: CatalogRoutesDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);

  app.get('/models', { preHandler: reader }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    const plan = await deps.plans.planOf(accountId);
    // The account's own view: its plan, without any one key's allowlist.
    const caller = systemKeyFor(accountId, deps.now());
    return { data: deps.catalog.models.filter((model) => isVisibleTo(deps.catalog, caller, plan, model)).map(toModelListEntry) };
  });

  app.get('/agents', { preHandler: reader }, async () => {
    const agents: ConsoleAgent[] = (deps.agents?.list() ?? []).map((agent) => ({
      id: agent.id,
      name: agent.config.name,
      description: agent.config.description,
      model: agent.config.model,
      source: 'file',
      path: relative(process.cwd(), agent.file) || agent.file,
      version: agent.version,
      tools: agent.config.tools.map((tool) => (typeof tool === 'string' ? tool : String((tool as { name?: unknown }).name ?? ''))),
      knowledge: agent.config.knowledge,
      updated_at: agent.updatedAt.toISOString(),
    }));
    return { data: agents };
  });
}
