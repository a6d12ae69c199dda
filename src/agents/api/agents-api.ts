import websocket from '@fastify/websocket';
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { agentResponsesRoutes } from '../responses/responses-route.ts';
import { responsesWebSocketRoute } from '../responses/responses-websocket.ts';
import { agentChatRoute } from './agent-chat-route.ts';
import { agentModelsRoutes } from './agent-models-routes.ts';
import type { AgentsApiDeps } from './agents-api-deps.ts';
import { conversationsRoutes } from './conversations-routes.ts';
import { feedbackRoutes } from './feedback-routes.ts';

/**
 * Everything under `/agents/v1`: agent keys only (model and provisioning keys get 403
 * wrong_key_kind), unless `auth` widens it (the console's playground session).
 */
export async function agentsApi(app: FastifyInstance, deps: AgentsApiDeps & { auth?: preHandlerAsyncHookHandler }): Promise<void> {
  app.addHook('preHandler', deps.auth ?? requireKey(deps.authenticator, { kinds: ['agent'] }));
  // Before every route: the plugin must see all of them to refuse upgrades on the others.
  await app.register(websocket, { options: { maxPayload: LARGE_BODY_LIMIT } });
  await app.register(agentModelsRoutes, deps);
  await app.register(agentChatRoute, deps);
  await app.register(conversationsRoutes, deps);
  await app.register(agentResponsesRoutes, deps);
  await app.register(responsesWebSocketRoute, deps);
  await app.register(feedbackRoutes, deps);
}
