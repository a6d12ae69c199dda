import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/build-catalog.ts';
import { parseCatalogConfig } from '../../../src/catalog/load-config.ts';
import type { CatalogModel } from '../../../src/catalog/types.ts';
import { DeploymentRouter } from '../../../src/routing/deployment-router.ts';
import { toProviderPreferences } from '../../../src/routing/provider-preferences.ts';

/** A catalog model with the given deployments, built the way the server builds it. */
function routedModel(deployments: Array<Record<string, unknown>>, routing: Record<string, unknown> = {}): CatalogModel {
  const config = parseCatalogConfig({ models: { 'team/model': { deployments, routing } } });
  const model = buildCatalog({ providers: [], config }).lookup.get('team/model');
  if (!model) throw new Error('model not built');
  return model;
}

const clock = () => {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

describe('the deployment router', () => {
  it('spreads calls by weight exactly over a round (smooth weighted round-robin)', () => {
    const model = routedModel([
      { provider: 'groq', weight: 2 },
      { provider: 'together', weight: 1 },
    ]);
    const router = new DeploymentRouter();
    const firsts = Array.from({ length: 9 }, () => router.plan(model, model.deployments ?? [], undefined).tries[0]?.label);
    expect(firsts).toEqual(['groq', 'together', 'groq', 'groq', 'together', 'groq', 'groq', 'together', 'groq']);
  });

  it('orders priorities: the best first, the next one as its fallback', () => {
    const model = routedModel(
      [
        { provider: 'groq', priority: 2 },
        { provider: 'together', priority: 1 },
        { provider: 'fireworks', priority: 1 },
      ],
      { strategy: 'ordered' },
    );
    expect(new DeploymentRouter().plan(model, model.deployments ?? [], undefined).tries.map((deployment) => deployment.label)).toEqual(['together', 'fireworks', 'groq']);
  });

  it('opens a breaker after the threshold, admits one probe after the cooldown, closes on success', () => {
    const time = clock();
    const model = routedModel([{ provider: 'groq' }, { provider: 'together' }], { failure_threshold: 2, cooldown_seconds: 5, strategy: 'ordered' });
    const router = new DeploymentRouter({ now: time.now });
    const [groq] = model.deployments ?? [];
    if (!groq) throw new Error('no deployment');
    const health = router.healthOf(model, groq);
    for (let failure = 0; failure < 2; failure += 1) {
      health.begin();
      health.fail(time.now());
    }
    expect(health.state).toBe('open');
    const closedPlan = router.plan(model, model.deployments ?? [], undefined);
    expect(closedPlan.tries.map((deployment) => deployment.label)).toEqual(['together']);
    time.advance(5_000);
    expect(router.plan(model, model.deployments ?? [], undefined).tries[0]?.label).toBe('groq');
    health.begin();
    expect(health.state).toBe('half_open');
    // One probe at a time: a second call does not go to the half-open deployment.
    expect(router.plan(model, model.deployments ?? [], undefined).tries.map((deployment) => deployment.label)).toEqual(['together']);
    health.succeed(10);
    expect(health.state).toBe('closed');
  });

  it('a failed probe reopens the breaker for another cooldown', () => {
    const time = clock();
    const model = routedModel([{ provider: 'groq' }], { failure_threshold: 1, cooldown_seconds: 1 });
    const router = new DeploymentRouter({ now: time.now });
    const health = router.healthOf(model, model.deployments?.[0] as NonNullable<CatalogModel['deployments']>[number]);
    health.begin();
    health.fail(time.now());
    time.advance(1_000);
    health.begin();
    health.fail(time.now());
    expect(health.state).toBe('open');
    const plan = router.plan(model, model.deployments ?? [], undefined);
    expect(plan).toMatchObject({ tries: [], waitMs: 1_000, parked: false });
  });

  it('opens on an error rate over the window even without a run of failures', () => {
    const time = clock();
    const model = routedModel([{ provider: 'groq' }], { failure_threshold: 100, error_rate: 0.5, window: 4 });
    const health = new DeploymentRouter({ now: time.now }).healthOf(model, model.deployments?.[0] as NonNullable<CatalogModel['deployments']>[number]);
    for (const fails of [false, false, true, true]) {
      health.begin();
      if (fails) health.fail(time.now());
      else health.succeed(5);
    }
    expect(health.state).toBe('open');
  });

  it('parks a deployment for its Retry-After and says so', () => {
    const time = clock();
    const model = routedModel([{ provider: 'groq' }]);
    const router = new DeploymentRouter({ now: time.now });
    const health = router.healthOf(model, model.deployments?.[0] as NonNullable<CatalogModel['deployments']>[number]);
    health.begin();
    health.park(time.now(), 3_000);
    expect(router.plan(model, model.deployments ?? [], undefined)).toMatchObject({ tries: [], waitMs: 3_000, parked: true });
    expect(health.state).toBe('closed');
    time.advance(3_000);
    expect(router.plan(model, model.deployments ?? [], undefined).tries).toHaveLength(1);
  });

  it('least busy and lowest latency rank by what was measured', () => {
    const busy = routedModel([{ provider: 'groq' }, { provider: 'together' }], { strategy: 'least_busy' });
    const router = new DeploymentRouter();
    router.healthOf(busy, busy.deployments?.[0] as NonNullable<CatalogModel['deployments']>[number]).begin();
    expect(router.plan(busy, busy.deployments ?? [], undefined).tries[0]?.label).toBe('together');
    const fast = routedModel([{ provider: 'groq' }, { provider: 'together' }], { strategy: 'lowest_latency' });
    const [slow, quick] = fast.deployments ?? [];
    if (!slow || !quick) throw new Error('no deployments');
    const other = new DeploymentRouter();
    other.healthOf(fast, slow).begin();
    other.healthOf(fast, slow).succeed(900);
    other.healthOf(fast, quick).begin();
    other.healthOf(fast, quick).succeed(100);
    expect(other.plan(fast, fast.deployments ?? [], undefined).tries.map((deployment) => deployment.label)).toEqual(['together', 'groq']);
    // A stream stays in flight after its first event, until it is released.
    const streaming = router.healthOf(busy, busy.deployments?.[1] as NonNullable<CatalogModel['deployments']>[number]);
    streaming.begin();
    streaming.begin();
    streaming.succeed(50, true);
    expect(streaming.inFlight).toBe(2);
    expect(router.plan(busy, busy.deployments ?? [], undefined).tries[0]?.label).toBe('groq');
    streaming.release();
    streaming.succeed(50);
    expect(streaming.inFlight).toBe(0);
  });

  it('honours only, ignore, order and allow_fallbacks', () => {
    const model = routedModel([{ provider: 'groq' }, { provider: 'together' }, { provider: 'fireworks' }], { strategy: 'ordered' });
    const labels = (preferences: Parameters<typeof toProviderPreferences>[0]) =>
      new DeploymentRouter().plan(model, model.deployments ?? [], toProviderPreferences(preferences)).tries.map((deployment) => deployment.label);
    expect(labels({ only: ['together', 'fireworks'] })).toEqual(['together', 'fireworks']);
    expect(labels({ ignore: ['groq'] })).toEqual(['together', 'fireworks']);
    expect(labels({ order: ['fireworks', 'groq'] })).toEqual(['fireworks', 'groq', 'together']);
    expect(labels({ order: ['fireworks', 'groq'], allow_fallbacks: false })).toEqual(['fireworks', 'groq']);
    expect(labels({ allow_fallbacks: false })).toEqual(['groq']);
  });
});
