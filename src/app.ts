import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { accountRoutes } from './gateway/account-routes.ts';
import { keysRoutes } from './gateway/keys/keys-routes.ts';
import { registerErrorHandlers } from './http/error-handler.ts';
import { loggerOptions } from './http/logger-options.ts';
import type { Services } from './services.ts';

/** Chat and embedding bodies may be this large; everything else keeps fastify's 1 MiB default. */
export const LARGE_BODY_LIMIT = 50 * 1024 * 1024;

/** Builds the HTTP app on already-opened services, without listening (tests use inject()). */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(services.config.logLevel),
    genReqId: () => `req_${randomUUID().replaceAll('-', '')}`,
    // Idle keep-alive sockets close at shutdown; in-flight requests drain first.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });
  app.decorateRequest('apiKey', undefined);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerErrorHandlers(app);

  app.get('/healthz', async () => ({ status: 'ok' }));

  const { db, authenticator, hasher, keyChanges, now } = services;
  await app.register(
    async (v1) => {
      await v1.register(accountRoutes, { db, authenticator, now });
      await v1.register(keysRoutes, { db, authenticator, hasher, keyChanges, now });
    },
    { prefix: '/v1' },
  );
  return app;
}
