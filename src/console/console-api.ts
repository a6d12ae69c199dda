import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { catalogRoutes } from './catalog-routes.ts';
import { consoleKeysRoutes } from './keys-routes.ts';
import { membersRoutes } from './members-routes.ts';
import { overviewRoutes } from './overview-routes.ts';
import { sessionRoutes } from './session-routes.ts';
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
  await app.register(sessionRoutes, { db, now, defaultAccountId: services.defaultAccount.id });
  await app.register(consoleKeysRoutes, { db, now, hasher: services.hasher, keyChanges: services.keyChanges });
  await app.register(membersRoutes, { db, now });
  await app.register(consoleUsageRoutes, { db, now, settle });
  await app.register(overviewRoutes, { db, now, settle });
  await app.register(catalogRoutes, { db, now, catalog: services.catalog, plans: services.plans, agents: services.agents });
}
