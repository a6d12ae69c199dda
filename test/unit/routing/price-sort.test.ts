import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/build-catalog.ts';
import { parseCatalogConfig } from '../../../src/catalog/load-config.ts';
import { DeploymentRouter } from '../../../src/routing/deployment-router.ts';
import { toProviderPreferences } from '../../../src/routing/provider-preferences.ts';

describe("a request's provider.sort: price", () => {
  it('tries the cheapest deployment first, by the price each one bills', () => {
    const config = parseCatalogConfig({
      models: {
        'team/model': {
          prices: { input: 5, output: 20 },
          deployments: [
            { provider: 'groq', name: 'groq' },
            { provider: 'bedrock', name: 'us', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
            { provider: 'bedrock', name: 'nova', model: 'amazon.nova-pro-v1:0' },
            { provider: 'together', name: 'together' },
          ],
        },
      },
    });
    const model = buildCatalog({ providers: [], config, now: new Date('2026-06-15T00:00:00Z') }).lookup.get('team/model');
    if (!model) throw new Error('model not built');
    const plan = (sort: 'price' | undefined) =>
      new DeploymentRouter().plan(model, model.deployments ?? [], sort === undefined ? undefined : toProviderPreferences({ sort })).tries.map((deployment) => deployment.label);
    // nova bills $0.80 + $3.20, us $3.30 + $16.50, groq and together the model's $5 + $20 (kept in their order).
    expect(plan('price')).toEqual(['nova', 'us', 'groq', 'together']);
    expect(plan(undefined)[0]).toBe('groq');
  });
});
