import { randomHex } from './core/random-hex.ts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { accountRoutes } from './gateway/account-routes.ts';
import { chatCompletionsRoute } from './gateway/chat-completions/chat-completions-route.ts';
import { geminiMethodRoutes, geminiRoutes } from './gateway/gemini/gemini-routes.ts';
import { messagesRoutes } from './gateway/messages/messages-routes.ts';
import { passthroughRoutes } from './gateway/passthrough/passthrough-routes.ts';
import { mediaRoutes } from './gateway/media/register-media-routes.ts';
import { modelsRoute } from './gateway/models-route.ts';
import { usageRoutes } from './gateway/usage-routes.ts';
import { keysRoutes } from './gateway/keys/keys-routes.ts';
import { registerApiCors } from './http/api-cors.ts';
import { registerErrorHandlers } from './http/error-handler.ts';
import { registerJsonBodyParser } from './http/json-body-parser.ts';
import { fastifyTrustProxy, registerPublicOrigin } from './http/public-origin.ts';
import { registerUrlTextGuard } from './http/url-text-guard.ts';
import { agentsApi } from './agents/api/agents-api.ts';
import { agentsEvaluationsRoutes } from './console/agents-evaluations-routes.ts';
import { agentsApiAuth } from './console/agents-session-auth.ts';
import { consoleApi } from './console/console-api.ts';
import { serveWeb } from './console/serve-web.ts';
import { lazyChildLoggerFactory } from './http/lazy-child-logger.ts';
import { loggerOptions } from './http/logger-options.ts';
import { apiDocsRoutes } from './api-docs.ts';
import { registerMetrics } from './ops/metrics.ts';
import { readinessRoute } from './readiness.ts';
import { registerRequestSpans } from './ops/request-spans.ts';
import { tracer } from './ops/tracing.ts';
import type { Services } from './assembly/services.ts';

/** Builds the HTTP app on already-opened services, without listening (tests use inject()). */
export async function buildApp(services: Services, options: { logStream?: NodeJS.WritableStream } = {}): Promise<FastifyInstance> {
  const logging = options.logStream ? { logger: { ...(loggerOptions(services.config.logLevel) as object), stream: options.logStream } } : { loggerInstance: services.logger as FastifyBaseLogger };
  const app = Fastify({
    ...logging,
    // 128 random bits from the pooled buffer: randomUUID() plus replaceAll showed in profiles.
    genReqId: () => `req_${randomHex(16)}`,
    childLoggerFactory: lazyChildLoggerFactory,
    // Idle keep-alive sockets close at shutdown; in-flight requests drain first.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Forwarded scheme, host and client address are believed from these peers only (JUNCTION_TRUST_PROXY).
    trustProxy: fastifyTrustProxy(services.config.trustProxy),
  });
  app.decorateRequest('apiKey', undefined);
  app.decorate('streamIdleTimeoutMs', services.config.streamIdleTimeoutMs);
  registerPublicOrigin(app, services.config.publicUrl);
  // Callback-style hooks (here and in metrics): an async one costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  if (tracer()) registerRequestSpans(app);
  registerErrorHandlers(app);
  registerJsonBodyParser(app);
  registerUrlTextGuard(app);

  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.register(async (scope) => readinessRoute(scope, services));
  registerMetrics(app, { metrics: services.metrics, token: services.config.metricsToken });
  await app.register(apiDocsRoutes);

  const { db, authenticator, hasher, keyChanges, now, catalog, plans, chat, unary, settlements, router } = services;
  await app.register(
    async (v1) => {
      await registerApiCors(v1, services.config.corsOrigins);
      await v1.register(accountRoutes, { db, authenticator, now });
      await v1.register(keysRoutes, { db, authenticator, hasher, keyChanges, now });
      await v1.register(modelsRoute, { authenticator, catalog, plans });
      await v1.register(chatCompletionsRoute, { authenticator, chat });
      await v1.register(mediaRoutes, { authenticator, unary });
      await v1.register(usageRoutes, { db, authenticator, settlements });
      await v1.register(messagesRoutes, { authenticator, chat, catalog, plans, budgets: services.budgets, rateLimiter: services.rateLimiter, providers: services.providers, router });
      await v1.register(passthroughRoutes, { db, authenticator, catalog, plans, budgets: services.budgets, rateLimiter: services.rateLimiter, providers: services.providers });
      // @google/genai 3 calls `/v1/models/{model}:{method}` by default.
      await v1.register(geminiMethodRoutes, { authenticator, chat, unary, catalog, plans, budgets: services.budgets, rateLimiter: services.rateLimiter, providers: services.providers, router });
    },
    { prefix: '/v1' },
  );
  await app.register(
    async (v1beta) => {
      await registerApiCors(v1beta, services.config.corsOrigins);
      await v1beta.register(geminiRoutes, { authenticator, chat, unary, catalog, plans, budgets: services.budgets, rateLimiter: services.rateLimiter, providers: services.providers, router });
    },
    { prefix: '/v1beta' },
  );
  await app.register(async (scope) => consoleApi(scope, services), { prefix: '/console/api' });
  await app.register(serveWeb);
  if (services.agentDirectory && services.agentRuntime) {
    const auth = agentsApiAuth({ db, hasher, authenticator, now });
    const deps = { db, authenticator, agents: services.agentDirectory, runtime: services.agentRuntime, auth, ...(services.backgroundRuns && { backgroundRuns: services.backgroundRuns }) };
    await app.register(
      async (scope) => {
        await registerApiCors(scope, services.config.corsOrigins);
        await scope.register(agentsApi, deps);
        // Evaluations for a team's CI, with an agent key (src/console: they use the console's views).
        const settle = async () => {
          await services.agentRuntime?.runSteps?.flush();
          await services.settlements.drain(2_000);
        };
        await scope.register(agentsEvaluationsRoutes, { ...deps, chat: services.chat, now, settle });
      },
      { prefix: '/agents/v1' },
    );
  }
  return app;
}
