import type { FastifyInstance } from 'fastify';
import { toModelListEntry } from '../catalog/model-list.ts';
import type { Catalog, CatalogModel } from '../catalog/types.ts';
import { systemKeyFor } from '../keys/system-key.ts';
import type { AccountPlans } from '../pipeline/account-plans.ts';
import { isVisibleTo } from '../pipeline/model-access.ts';
import type { DeploymentRouter, HealthSnapshot } from '../routing/deployment-router.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import type { ConsoleDeployment, ModelDeployments } from './contract/models.ts';

export type CatalogRoutesDeps = { db: Database; now: () => Date; catalog: Catalog; plans: AccountPlans; router: DeploymentRouter };

/** What the account may use: the catalog its plan allows, and how this process sees each model's deployments. */
export async function catalogRoutes(app: FastifyInstance, deps: CatalogRoutesDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);

  const visibleModels = async (accountId: string): Promise<CatalogModel[]> => {
    const plan = await deps.plans.planOf(accountId);
    // The account's own view: its plan, without any one key's allowlist.
    const caller = systemKeyFor(accountId, deps.now());
    return deps.catalog.models.filter((model) => isVisibleTo(deps.catalog, caller, plan, model));
  };

  app.get('/models', { preHandler: reader }, async (request) => {
    return { data: (await visibleModels(consoleCaller(request).accountId)).map(toModelListEntry) };
  });

  app.get('/model-deployments', { preHandler: reader }, async (request): Promise<ModelDeployments> => {
    const models = (await visibleModels(consoleCaller(request).accountId)).filter((model) => model.deployments !== undefined);
    const now = deps.router.now();
    return {
      data: models.map((model) => ({
        model: model.id,
        deployments: deps.router.healthOfModel(model).map((entry, index) => deploymentView(entry, model.deployments?.[index], now)),
      })),
    };
  });
}

function deploymentView(entry: HealthSnapshot, deployment: NonNullable<CatalogModel['deployments']>[number] | undefined, now: number): ConsoleDeployment {
  const { health, window } = entry;
  const parkedUntil = health.parkedUntil(now);
  return {
    label: entry.deployment,
    provider: deployment?.provider ?? entry.deployment,
    region: deployment?.region ?? null,
    weight: deployment?.weight ?? 1,
    priority: deployment?.priority ?? 0,
    breaker: health.state,
    open_for_seconds: health.state === 'open' ? Math.ceil(health.breakerWaitMs(now) / 1000) : null,
    parked_until: parkedUntil === undefined ? null : new Date(parkedUntil).toISOString(),
    error_rate: health.errorRate(),
    latency_ms: health.latencyMs === undefined ? null : Math.round(health.latencyMs),
    in_flight: health.inFlight,
    rpm: window?.limits.rpm ?? null,
    tpm: window?.limits.tpm ?? null,
    requests_last_minute: window ? window.requestsUsed(now) : null,
    tokens_last_minute: window ? window.tokensUsed(now) : null,
  };
}
