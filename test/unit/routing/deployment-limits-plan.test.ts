import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/build-catalog.ts';
import { parseCatalogConfig } from '../../../src/catalog/load-config.ts';
import type { CatalogModel, ModelDeployment } from '../../../src/catalog/types.ts';
import { DeploymentRouter } from '../../../src/routing/deployment-router.ts';

function routedModel(deployments: Array<Record<string, unknown>>): CatalogModel {
  const config = parseCatalogConfig({ models: { 'team/model': { deployments, routing: { strategy: 'ordered' } } } });
  const model = buildCatalog({ providers: [], config }).lookup.get('team/model');
  if (!model) throw new Error('model not built');
  return model;
}

describe('the router under per-deployment limits', () => {
  it('leaves a full deployment out until its oldest call leaves the minute, and says how long', () => {
    let now = 5_000_000;
    const model = routedModel([
      { provider: 'groq', rpm: 1 },
      { provider: 'together', rpm: 1 },
    ]);
    const deployments = model.deployments ?? [];
    const router = new DeploymentRouter({ now: () => now });
    router.windowOf(model, deployments[0] as ModelDeployment)?.reserve(now, 0);
    expect(router.plan(model, deployments, undefined).tries.map((deployment) => deployment.label)).toEqual(['together']);
    now += 20_000;
    router.windowOf(model, deployments[1] as ModelDeployment)?.reserve(now, 0);
    expect(router.plan(model, deployments, undefined)).toMatchObject({ tries: [], waitMs: 40_000, full: true, parked: false });
    now += 40_000;
    expect(router.plan(model, deployments, undefined).tries.map((deployment) => deployment.label)).toEqual(['groq']);
  });

  it('counts a call larger than a tpm on its own as one the deployment can never hold', () => {
    const model = routedModel([{ provider: 'groq', tpm: 1_000 }, { provider: 'together' }]);
    const router = new DeploymentRouter();
    expect(router.plan(model, model.deployments ?? [], undefined, 2_000)).toMatchObject({ tooLarge: 1, waitMs: undefined });
    expect(router.plan(model, model.deployments ?? [], undefined, 2_000).tries.map((deployment) => deployment.label)).toEqual(['together']);
    expect(router.windowOf(model, (model.deployments ?? [])[1] as ModelDeployment)).toBeUndefined();
  });

  it('refuses a limit that is not a positive whole number in the config', () => {
    expect(() => routedModel([{ provider: 'groq', rpm: 0 }])).toThrow();
    expect(() => routedModel([{ provider: 'groq', tpm: 1.5 }])).toThrow();
  });
});
