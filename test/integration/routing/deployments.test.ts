import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { startSwitchableUpstream, type SwitchableUpstream } from '../../support/switchable-upstream.ts';
import { bearer } from '../../support/test-app.ts';
import { chatBody, startRoutingApp, type RoutingApp } from './routing-app.ts';

/**
 * One model, two deployments of it (each an OpenAI-format endpoint in front of the same
 * fake upstream), so a test can make one fail, rate limit or recover.
 */
let fake: FakeOpenAIUpstream;
let primary: SwitchableUpstream;
let secondary: SwitchableUpstream;
let gateway: RoutingApp;
let key: string;

const config = (primaryUrl: string, secondaryUrl: string) => `
models:
  openai/routed:
    capabilities: [chat, tools]
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: primary, model: test-echo, base_url: ${primaryUrl}/v1 }
      - { provider: openai, name: secondary, model: test-echo, base_url: ${secondaryUrl}/v1 }
    routing: { failure_threshold: 3, cooldown_seconds: 60 }
  openai/weighted:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: heavy, model: test-echo, base_url: ${primaryUrl}/v1, weight: 3 }
      - { provider: openai, name: light, model: test-echo, base_url: ${secondaryUrl}/v1, weight: 1 }
  openai/ordered:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: backup, model: test-echo, base_url: ${secondaryUrl}/v1, priority: 2 }
      - { provider: openai, name: main, model: test-echo, base_url: ${primaryUrl}/v1, priority: 1 }
    routing: { strategy: ordered }
  openai/busy:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: first, model: test-echo, base_url: ${primaryUrl}/v1 }
      - { provider: openai, name: second, model: test-echo, base_url: ${secondaryUrl}/v1 }
    routing: { strategy: least_busy }
`;

beforeAll(async () => {
  fake = await startFakeOpenAIUpstream();
  const origin = new URL(fake.url).origin;
  primary = await startSwitchableUpstream(origin);
  secondary = await startSwitchableUpstream(origin);
  gateway = await startRoutingApp(config(primary.origin, secondary.origin), { OPENAI_API_KEY: 'sk-deployments' });
  key = await gateway.key('model');
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([primary?.close(), secondary?.close(), fake?.close()]);
});

beforeEach(() => {
  primary.failure = undefined;
  secondary.failure = undefined;
});

const chat = (model: string, extra: Record<string, unknown> = {}) => gateway.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: chatBody(model, extra) });

const servedBy = async (model: string, calls: number, extra: Record<string, unknown> = {}) => {
  const served: string[] = [];
  for (let call = 0; call < calls; call += 1) {
    const response = await chat(model, extra);
    expect(response.statusCode, response.body).toBe(200);
    served.push(String(response.headers['x-junction-provider']));
  }
  return served;
};

const metricLine = async (name: string, model: string, deployment: string) => {
  const text = (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
  return text.split('\n').find((line) => line.startsWith(`${name}{model="${model}",deployment="${deployment}"}`));
};

describe('deployments of one model', () => {
  it('splits calls by weight, exactly over whole rounds', async () => {
    const served = await servedBy('openai/weighted', 40);
    expect(served.filter((label) => label === 'heavy')).toHaveLength(30);
    expect(served.filter((label) => label === 'light')).toHaveLength(10);
  });

  it('tries the best priority first and the next one on a 5xx', async () => {
    expect(await servedBy('openai/ordered', 3)).toEqual(['main', 'main', 'main']);
    primary.failure = { status: 503 };
    expect(await servedBy('openai/ordered', 2)).toEqual(['backup', 'backup']);
  });

  it('opens the breaker of a failing deployment, then probes it back in after the cooldown', async () => {
    secondary.failure = { status: 500 };
    const before = secondary.hits.length;
    const served = await servedBy('openai/routed', 12);
    expect(new Set(served)).toEqual(new Set(['primary']));
    // Three failures in a row open the breaker; after that it gets no call at all.
    expect(secondary.hits.length - before).toBe(3);
    expect(await metricLine('junction_deployment_breaker_state', 'openai/routed', 'secondary')).toMatch(/ 2$/);

    await gateway.settle();
    const { rows } = await gateway.services.db.query<{ provider: string; upstream_model: string; status: string }>(
      "SELECT provider, upstream_model, status FROM usage_log WHERE model = 'openai/routed'",
    );
    expect(rows.length).toBeGreaterThanOrEqual(12);
    expect(rows.every((row) => row.provider === 'primary' && row.status === 'success' && row.upstream_model === 'test-echo')).toBe(true);

    // Still open halfway through the cooldown (the app's clock also moves with real time).
    gateway.advance(30_000);
    await servedBy('openai/routed', 2);
    expect(secondary.hits.length - before).toBe(3);

    secondary.failure = undefined;
    gateway.advance(31_000);
    const after = await servedBy('openai/routed', 4);
    expect(after).toContain('secondary');
    expect(await metricLine('junction_deployment_breaker_state', 'openai/routed', 'secondary')).toMatch(/ 0$/);
  });

  it('parks a deployment answering 429 for its Retry-After, not the model', async () => {
    gateway.advance(60_000);
    secondary.failure = { status: 429, headers: { 'retry-after': '30' } };
    const before = secondary.hits.length;
    const served = await servedBy('openai/routed', 8);
    expect(new Set(served)).toEqual(new Set(['primary']));
    expect(secondary.hits.length - before).toBe(1);
    expect(await metricLine('junction_deployment_parked', 'openai/routed', 'secondary')).toMatch(/ 1$/);

    secondary.failure = undefined;
    gateway.advance(31_000);
    expect(await servedBy('openai/routed', 4)).toContain('secondary');
  });

  it('counts a stream in flight until it ends (least busy)', async () => {
    for (let call = 0; call < 2; call += 1) {
      const response = await chat('openai/busy', { stream: true });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('data: [DONE]');
    }
    expect(await metricLine('junction_deployment_in_flight', 'openai/busy', 'first')).toMatch(/ 0$/);
    const text = (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toContain('junction_deployment_calls_total{model="openai/busy",deployment="first",outcome="success"} 2');
  });

  it('streams from the chosen deployment and names it in the header', async () => {
    const response = await chat('openai/routed', { stream: true, provider: { only: ['secondary'] } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-junction-provider']).toBe('secondary');
    expect(response.body).toContain('data: [DONE]');
  });
});

describe("a request's provider preferences", () => {
  it('only and ignore choose among the deployments', async () => {
    expect(new Set(await servedBy('openai/routed', 4, { provider: { only: ['secondary'] } }))).toEqual(new Set(['secondary']));
    expect(new Set(await servedBy('openai/routed', 4, { provider: { ignore: ['secondary'] } }))).toEqual(new Set(['primary']));
  });

  it('order puts deployments first, and falls back unless told not to', async () => {
    expect(await servedBy('openai/routed', 3, { provider: { order: ['secondary', 'primary'] } })).toEqual(['secondary', 'secondary', 'secondary']);
    gateway.advance(120_000);
    secondary.failure = { status: 502 };
    expect(await servedBy('openai/routed', 1, { provider: { order: ['secondary', 'primary'] } })).toEqual(['primary']);
    const refused = await chat('openai/routed', { provider: { order: ['secondary'], allow_fallbacks: false } });
    expect(refused.statusCode).toBe(502);
  });

  it("leaving every deployment out is a 400; names match a deployment's provider id too", async () => {
    const none = await chat('openai/routed', { provider: { only: ['nobody'] } });
    expect(none.statusCode).toBe(400);
    expect(none.json().error.param).toBe('provider');
    expect((await chat('openai/routed', { provider: { only: ['openai'] } })).statusCode).toBe(200);
  });

  it('is validated, and never forwarded upstream', async () => {
    const invalid = await chat('openai/routed', { provider: { sort: 'cheapest' } });
    expect(invalid.statusCode).toBe(400);
    const before = fake.requests.length;
    await servedBy('openai/routed', 1, { provider: { sort: 'latency' } });
    const sent = fake.requests.slice(before).find((request) => request.path.endsWith('/chat/completions'));
    expect(sent?.body).not.toHaveProperty('provider');
  });
});
