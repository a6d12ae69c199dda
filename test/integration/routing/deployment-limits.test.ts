import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSetupLink } from '../../../src/console/session-routes.ts';
import { ORIGIN, type ConsoleSession, sessionCookieOf, sessionFrom } from '../../support/console-session.ts';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { startSwitchableUpstream, type SwitchableUpstream } from '../../support/switchable-upstream.ts';
import { bearer } from '../../support/test-app.ts';
import { chatBody, startRoutingApp, type RoutingApp } from './routing-app.ts';

/**
 * Deployments with their own requests and tokens per minute, kept before sending, and the
 * console's view of each deployment's health. Each model has its own deployments (and so its
 * own windows); the app's clock is moved to free a window, never waited for. On PostgreSQL
 * the windows are rows every process shares, on the database's clock: moving the clock ends
 * them there too.
 */
let fake: FakeOpenAIUpstream;
let first: SwitchableUpstream;
let second: SwitchableUpstream;
let gateway: RoutingApp;
let key: string;
let owner: ConsoleSession;

const config = (a: string, b: string) => `
models:
  openai/limited:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: small, model: test-echo, base_url: ${a}/v1, rpm: 2 }
      - { provider: openai, name: spare, model: test-echo, base_url: ${b}/v1, rpm: 1, priority: 1 }
  openai/tokens:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: narrow, model: test-echo, base_url: ${a}/v1, tpm: 500 }
      - { provider: openai, name: wide, model: test-echo, base_url: ${b}/v1, priority: 1 }
  openai/flaky:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: healthy, model: test-echo, base_url: ${a}/v1, region: eu-west-1 }
      - { provider: openai, name: broken, model: test-echo, base_url: ${b}/v1 }
    routing: { failure_threshold: 2, cooldown_seconds: 120 }
`;

beforeAll(async () => {
  fake = await startFakeOpenAIUpstream();
  const origin = new URL(fake.url).origin;
  first = await startSwitchableUpstream(origin);
  second = await startSwitchableUpstream(origin);
  gateway = await startRoutingApp(config(first.origin, second.origin), { OPENAI_API_KEY: 'sk-limits' });
  key = await gateway.key('model');
  const link = await issueSetupLink(gateway.services.db, 'http://localhost', new Date());
  const token = new URL(link as string).searchParams.get('token') as string;
  const setup = await gateway.app.inject({
    method: 'POST',
    url: '/console/api/setup',
    headers: { origin: ORIGIN, host: 'localhost:80' },
    payload: { token, email: 'owner@example.com', password: 'correct horse battery' },
  });
  owner = await sessionFrom(gateway.app, sessionCookieOf(setup));
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([first?.close(), second?.close(), fake?.close()]);
});

/** Moves the app's clock `ms` on, past the end of the windows it was in. */
async function advancePastWindows(ms: number): Promise<void> {
  gateway.advance(ms);
  if (gateway.services.db.engine === 'postgres') await gateway.services.db.query('UPDATE deployment_rate_windows SET ends_at = now()');
}

const chat = (model: string, extra: Record<string, unknown> = {}) => gateway.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: chatBody(model, extra) });

const servedBy = async (model: string, extra: Record<string, unknown> = {}) => {
  const response = await chat(model, extra);
  expect(response.statusCode, response.body).toBe(200);
  return String(response.headers['x-junction-provider']);
};

const metricLine = async (model: string, deployment: string, limit: string) => {
  const text = (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
  return text.split('\n').find((line) => line.startsWith(`junction_deployment_window_used{model="${model}",deployment="${deployment}",limit="${limit}"}`));
};

describe('requests per minute of a deployment', () => {
  it('serves two calls from a deployment with rpm 2, the third from the next, then answers 429 until a window frees', async () => {
    const firstBefore = first.hits.length;
    const secondBefore = second.hits.length;
    expect([await servedBy('openai/limited'), await servedBy('openai/limited'), await servedBy('openai/limited')]).toEqual(['small', 'small', 'spare']);
    expect(first.hits.length - firstBefore).toBe(2);
    expect(second.hits.length - secondBefore).toBe(1);
    expect(await metricLine('openai/limited', 'small', 'rpm')).toMatch(/ 2$/);

    const full = await chat('openai/limited');
    expect(full.statusCode).toBe(429);
    expect(full.json()).toMatchObject({ error: { code: 'deployment_limits_reached', type: 'rate_limit_error' } });
    const retryAfter = Number(full.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Nothing was sent for the refused call.
    expect(first.hits.length - firstBefore).toBe(2);
    expect(second.hits.length - secondBefore).toBe(1);

    await advancePastWindows(retryAfter * 1000);
    expect(await servedBy('openai/limited')).toBe('small');
    expect(first.hits.length - firstBefore).toBe(3);
  });
});

describe('tokens per minute of a deployment', () => {
  it('sends a call whose input and output cap exceed the tpm to the next deployment', async () => {
    const before = first.hits.length;
    expect(await servedBy('openai/tokens', { max_tokens: 1_000 })).toBe('wide');
    expect(first.hits.length).toBe(before);
  });

  it('counts the tokens a call used, not its cap, once it is answered', async () => {
    // 400 output tokens each: without the correction, the second would not fit in 500.
    expect(await servedBy('openai/tokens', { max_tokens: 400 })).toBe('narrow');
    const used = Number((await metricLine('openai/tokens', 'narrow', 'tpm'))?.split(' ').at(-1));
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThan(400);
    expect(await servedBy('openai/tokens', { max_tokens: 400 })).toBe('narrow');
  });

  it('corrects the window of a stream once it ends', async () => {
    await advancePastWindows(61_000);
    expect(await servedBy('openai/tokens', { max_tokens: 400, stream: true })).toBe('narrow');
    expect(await servedBy('openai/tokens', { max_tokens: 400, stream: true })).toBe('narrow');
    const used = Number((await metricLine('openai/tokens', 'narrow', 'tpm'))?.split(' ').at(-1));
    expect(used).toBeLessThan(400);
  });

  it('answers 400 when no deployment could ever hold the call', async () => {
    const response = await chat('openai/tokens', { max_tokens: 1_000, provider: { only: ['narrow'] } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'invalid_request', param: 'max_tokens' } });
  });
});

describe("the console's view of deployments", () => {
  it('shows a breaker opened by failures, with the time it stays open', async () => {
    second.failure = { status: 500 };
    try {
      for (let call = 0; call < 4; call += 1) expect(await servedBy('openai/flaky')).toBe('healthy');
    } finally {
      second.failure = undefined;
    }
    const response = await owner.request('GET', '/console/api/model-deployments');
    expect(response.statusCode).toBe(200);
    const flaky = response.json<{ data: Array<{ model: string; deployments: Array<Record<string, unknown>> }> }>().data.find((entry) => entry.model === 'openai/flaky');
    expect(flaky?.deployments).toEqual([
      expect.objectContaining({ label: 'healthy', provider: 'openai', region: 'eu-west-1', breaker: 'closed', open_for_seconds: null, error_rate: 0, in_flight: 0 }),
      expect.objectContaining({ label: 'broken', provider: 'openai', region: null, breaker: 'open', error_rate: 1 }),
    ]);
    const broken = flaky?.deployments[1];
    expect(broken?.['open_for_seconds']).toBeGreaterThan(0);
    expect(broken?.['open_for_seconds']).toBeLessThanOrEqual(120);
  });

  it('refuses the route without a session', async () => {
    expect((await gateway.app.inject({ method: 'GET', url: '/console/api/model-deployments' })).statusCode).toBe(401);
  });
});
