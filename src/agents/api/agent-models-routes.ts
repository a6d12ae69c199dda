import type { FastifyInstance } from 'fastify';
import { authenticatedKey } from '../../http/auth-hook.ts';
import type { OwnedAgent } from '../agent-directory.ts';
import type { AgentsApiDeps } from './agents-api-deps.ts';

const toModelEntry = (agent: OwnedAgent) => ({
  id: agent.id,
  object: 'model',
  created: Math.floor(agent.updatedAt.getTime() / 1000),
  owned_by: 'junction',
  name: agent.config.name,
  description: agent.config.description ?? null,
});

const toAgentDetail = (agent: OwnedAgent) => ({
  ...toModelEntry(agent),
  model: agent.config.model,
  fallback_models: agent.config.fallbackModels,
  tools: agent.config.tools,
  knowledge: agent.config.knowledge,
  max_steps: agent.config.maxSteps,
  version: agent.version,
  source: agent.source,
  updated_at: agent.updatedAt.toISOString(),
});

/** `GET /agents/v1/models[/{id}]`: the agents, in the OpenAI models format. */
export async function agentModelsRoutes(app: FastifyInstance, deps: AgentsApiDeps): Promise<void> {
  app.get('/models', async (request) => ({ object: 'list', data: (await deps.agents.list(authenticatedKey(request).accountId)).map(toModelEntry) }));
  app.get('/models/:id', async (request) => {
    const { id } = request.params as { id: string };
    const agent = await deps.agents.require(authenticatedKey(request).accountId, id);
    return toAgentDetail(agent);
  });
}
