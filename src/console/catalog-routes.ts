import type { FastifyInstance } from 'fastify';
import { toModelListEntry } from '../catalog/model-list.ts';
import type { Catalog } from '../catalog/types.ts';
import { systemKeyFor } from '../keys/system-key.ts';
import type { AccountPlans } from '../pipeline/account-plans.ts';
import { isVisibleTo } from '../pipeline/model-access.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';

export type CatalogRoutesDeps = { db: Database; now: () => Date; catalog: Catalog; plans: AccountPlans };

/** What the account may use: the catalog its plan allows. */
export async function catalogRoutes(app: FastifyInstance, deps: CatalogRoutesDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);

  app.get('/models', { preHandler: reader }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    const plan = await deps.plans.planOf(accountId);
    // The account's own view: its plan, without any one key's allowlist.
    const caller = systemKeyFor(accountId, deps.now());
    return { data: deps.catalog.models.filter((model) => isVisibleTo(deps.catalog, caller, plan, model)).map(toModelListEntry) };
  });
}
