import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { imagesRoute } from '../gateway/media/images-route.ts';
import { speechRoute } from '../gateway/media/speech-route.ts';
import { systemKeyFor } from '../keys/system-key.ts';
import type { Services } from '../assembly/services.ts';
import { consoleAgentsRoutes } from './agents-routes.ts';
import { consoleConversationsRoutes } from './conversations-routes.ts';
import { consoleFeedbackRoutes } from './feedback-routes.ts';
import { consoleEvaluationsRoutes } from './evaluations-routes.ts';
import { consoleDatasetsRoutes } from './datasets-routes.ts';
import { catalogRoutes } from './catalog-routes.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { creditsRoutes } from './credits-routes.ts';
import { consoleKeysRoutes } from './keys-routes.ts';
import { consoleKnowledgeRoutes } from './knowledge-routes.ts';
import { invitationAcceptRoutes } from './invitation-accept-routes.ts';
import { invitationsRoutes } from './invitations-routes.ts';
import { membersRoutes } from './members-routes.ts';
import { overviewRoutes } from './overview-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { consoleRunsRoutes } from './runs-routes.ts';
import { consoleUsageRoutes } from './usage-routes.ts';

/**
 * `/console/api`: the JSON API of the browser console, authenticated by the session
 * cookie (never by an API key), CSRF-checked on every mutating request, and scoped
 * to the session's current account on every query.
 */
export async function consoleApi(app: FastifyInstance, services: Services): Promise<void> {
  app.decorateRequest('consoleCaller', undefined);
  // Answers are per user: never cached by the browser or a proxy.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  const { db, now } = services;
  const settle = () => services.settlements.drain(2_000);
  await app.register(sessionRoutes, { db, now, defaultAccountId: () => services.defaultAccount.id });
  await app.register(consoleKeysRoutes, { db, now, hasher: services.hasher, keyChanges: services.keyChanges });
  await app.register(membersRoutes, { db, now });
  await app.register(invitationsRoutes, { db, now });
  await app.register(invitationAcceptRoutes, { db, now });
  await app.register(consoleUsageRoutes, { db, now, settle });
  await app.register(overviewRoutes, { db, now, settle });
  await app.register(creditsRoutes, { db, now, settle, defaultAccountId: () => services.defaultAccount.id, usdRates: () => services.config.usdRates });
  // The run page reads steps the writer may still hold: they are written first.
  const stepsWritten = async () => {
    await services.agentRuntime?.runSteps?.flush();
    await settle();
  };
  await app.register(consoleRunsRoutes, { db, now, settle: stepsWritten });
  await app.register(consoleConversationsRoutes, { db, now, settle });
  await app.register(consoleDatasetsRoutes, { db, now, settle: stepsWritten });
  // "Try" on the Models page: the same image and speech routes as /v1, run as the
  // session's account (billed to its credit, logged without a key), members included.
  const asAccount = requireConsoleUser(db, now);
  const tryAuth: preHandlerAsyncHookHandler = async function (request, reply) {
    await asAccount.call(this, request, reply);
    request.apiKey = systemKeyFor(consoleCaller(request).accountId, now());
  };
  await app.register(
    async (scope) => {
      await scope.register(imagesRoute, { authenticator: services.authenticator, unary: services.unary, auth: tryAuth });
      await scope.register(speechRoute, { authenticator: services.authenticator, unary: services.unary, auth: tryAuth });
    },
    { prefix: '/try' },
  );
  await app.register(catalogRoutes, { db, now, catalog: services.catalog, plans: services.plans, router: services.router });
  const runtime = services.agentRuntime;
  if (runtime) {
    await app.register(consoleKnowledgeRoutes, {
      db,
      now,
      knowledgeDir: services.config.knowledgeDir,
      embedder: (context) => runtime.embedder(context),
      knowledgeReady: (accountId) => services.knowledge.ensureIndexed(accountId),
      extractor: services.knowledge.extractor,
    });
  }
  if (services.agentDirectory) await app.register(consoleFeedbackRoutes, { db, now, agents: services.agentDirectory });
  if (services.agentDirectory) {
    await app.register(consoleAgentsRoutes, {
      db,
      now,
      agents: services.agentDirectory,
      tools: services.tools,
      catalog: services.catalog,
      plans: services.plans,
      knowledgeDir: services.config.knowledgeDir,
      ...(services.agentRuntime?.mcpPolicy && { mcpPolicy: services.agentRuntime.mcpPolicy }),
    });
  }
  if (services.agentDirectory && runtime) {
    const onError = (error: unknown, evaluationId: string) => services.logger.error({ err: error, evaluationId }, 'an evaluation failed');
    await app.register(consoleEvaluationsRoutes, { db, now, agents: services.agentDirectory, runtime, chat: services.chat, settle: stepsWritten, onError });
  }
}
