import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStallingUpstream, type StallingUpstream } from '../../support/stalling-upstream.ts';
import { bearer } from '../../support/test-app.ts';
import { chatBody, startRoutingApp, type RoutingApp } from './routing-app.ts';

/**
 * Time limits per model, per deployment and per request, against OpenAI-format endpoints
 * that stall where a test says (before the headers, before the first event, mid-stream).
 * Limits that must cut an attempt are tens of milliseconds, one that must let an answer
 * through is a quarter second (room for a loaded machine); the provider's own wait (60 s)
 * is far beyond any test, so a limit that failed to apply shows as a test that never ends.
 */
let slow: StallingUpstream;
let fast: StallingUpstream;
let solo: StallingUpstream;
/** Only the idle-limit tests use it: no straggling request of another test reaches it. */
let quiet: StallingUpstream;
let gateway: RoutingApp;
let key: string;

const config = () => `
models:
  openai/timed:
    prices: { input: 10, output: 20 }
    timeout_ms: 250
    deployments:
      - { provider: openai, name: slow, model: m, base_url: ${slow.url}, priority: 0 }
      - { provider: openai, name: fast, model: m, base_url: ${fast.url}, priority: 1 }
    routing: { strategy: ordered, ${neverOpens} }
  openai/patient:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: solo, model: m, base_url: ${solo.url} }
    routing: { ${neverOpens} }
  openai/bounded:
    prices: { input: 10, output: 20 }
    timeout_ms: 60000
    deployments:
      - { provider: openai, name: solo, model: m, base_url: ${solo.url}, timeout_ms: 60 }
    routing: { ${neverOpens} }
  openai/idle:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: quiet, model: m, base_url: ${quiet.url}, stream_idle_timeout_ms: 60 }
    routing: { ${neverOpens} }
`;

/** Breakers that stay closed through every failure the tests cause, so each test sees every deployment. */
const neverOpens = 'failure_threshold: 1000, window: 1000';

beforeAll(async () => {
  [slow, fast, solo, quiet] = await Promise.all([startStallingUpstream(), startStallingUpstream(), startStallingUpstream(), startStallingUpstream()]);
  gateway = await startRoutingApp(config(), { OPENAI_API_KEY: 'sk-timeouts' });
  key = await gateway.key('model');
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([slow?.close(), fast?.close(), solo?.close(), quiet?.close()]);
});

beforeEach(() => {
  slow.stall = undefined;
  fast.stall = undefined;
  solo.stall = undefined;
  quiet.stall = undefined;
});

const chat = (model: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  gateway.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { ...bearer(key), ...headers }, payload: chatBody(model, extra) });

/** The usage row of the call that answered with this `x-request-id`. */
const usageRow = async (requestId: string) => {
  await gateway.settle();
  const { rows } = await gateway.services.db.query<{ status: string; http_status: number; error_code: string | null; output_tokens: number; cost_micros: string; provider: string }>(
    'SELECT status, http_status, error_code, output_tokens, cost_micros::text AS cost_micros, provider FROM usage_log WHERE request_id = $1',
    [requestId],
  );
  return rows;
};

const metric = async (model: string, deployment: string, outcome: string) => {
  const text = (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((entry) => entry.startsWith(`junction_deployment_calls_total{model="${model}",deployment="${deployment}",outcome="${outcome}"}`));
  return Number(line?.split(' ').at(-1) ?? 0);
};

describe("a model's timeout_ms", () => {
  it('hands a call to the next deployment when the first sends no headers in time, and counts the failure on it', async () => {
    slow.stall = 'before-headers';
    const failuresBefore = await metric('openai/timed', 'slow', 'failure');
    const [slowHits, fastHits] = [slow.hits, fast.hits];
    const response = await chat('openai/timed');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-junction-provider']).toBe('fast');
    expect(response.json().choices[0].message.content).toBe('hello from the upstream');
    expect([slow.hits - slowHits, fast.hits - fastHits]).toEqual([1, 1]);
    expect(await metric('openai/timed', 'slow', 'failure')).toBe(failuresBefore + 1);
  });

  it('counts a stream whose headers came but whose first event did not as not answered, and falls back', async () => {
    slow.stall = 'before-first-event';
    const response = await chat('openai/timed', { stream: true });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-junction-provider']).toBe('fast');
    expect(response.body).toContain('"content":"hello "');
    expect(response.body).toContain('data: [DONE]');
    expect(response.body).not.toContain('upstream_timeout');
  });

  it('answers 504 upstream_timeout when no deployment answers in time, with a failed usage row that costs nothing', async () => {
    slow.stall = 'before-headers';
    fast.stall = 'before-headers';
    const response = await chat('openai/timed');
    expect(response.statusCode, response.body).toBe(504);
    expect(response.json().error).toMatchObject({ code: 'upstream_timeout', type: 'api_error' });
    expect(await usageRow(String(response.headers['x-request-id']))).toEqual([
      expect.objectContaining({ status: 'upstream_error', http_status: 504, error_code: 'upstream_timeout', output_tokens: 0, cost_micros: '0' }),
    ]);
  });
});

describe('x-junction-timeout-ms', () => {
  it('shortens the wait of a model that sets none', async () => {
    solo.stall = 'before-headers';
    const response = await chat('openai/patient', {}, { 'x-junction-timeout-ms': '40' });
    expect(response.statusCode, response.body).toBe(504);
    expect(response.json().error.code).toBe('upstream_timeout');
  });

  it("shortens a stream's wait for its first event", async () => {
    solo.stall = 'before-first-event';
    const response = await chat('openai/patient', { stream: true }, { 'x-junction-timeout-ms': '40' });
    expect(response.statusCode, response.body).toBe(504);
    expect(response.json().error.code).toBe('upstream_timeout');
  });

  it("cannot lengthen the deployment's limit", async () => {
    solo.stall = 'before-headers';
    const response = await chat('openai/bounded', {}, { 'x-junction-timeout-ms': '600000' });
    expect(response.statusCode, response.body).toBe(504);
    expect(response.json().error.code).toBe('upstream_timeout');
  });

  it('is refused with a 400 in the house shape when it is no whole number of milliseconds', async () => {
    for (const value of ['abc', '0', '-5', '1.5', '10ms', '']) {
      const response = await chat('openai/patient', {}, { 'x-junction-timeout-ms': value });
      expect(response.statusCode, value).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error', param: 'x-junction-timeout-ms' });
    }
    const messages = await gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { ...bearer(key), 'x-junction-timeout-ms': 'soon' },
      payload: { model: 'openai/patient', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(messages.statusCode).toBe(400);
    expect(messages.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('is honoured by /v1/messages too, and never sent upstream', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { ...bearer(key), 'x-junction-timeout-ms': '5000' },
      payload: { model: 'openai/patient', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(response.statusCode, response.body).toBe(200);
    solo.stall = 'before-headers';
    const timedOut = await gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { ...bearer(key), 'x-junction-timeout-ms': '40' },
      payload: { model: 'openai/patient', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(timedOut.statusCode, timedOut.body).toBe(504);
    expect(timedOut.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });
});

describe('stream_idle_timeout_ms', () => {
  it('ends a stream that stalls after its first event with an error event, without a retry, and bills what streamed', async () => {
    quiet.stall = 'after-first-event';
    const hits = quiet.hits;
    const response = await chat('openai/idle', { stream: true });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('"content":"hello "');
    expect(response.body).toContain('"code":"upstream_timeout"');
    expect(response.body).not.toContain('data: [DONE]');
    expect(quiet.hits - hits).toBe(1);
    const [row] = await usageRow(String(response.headers['x-request-id']));
    expect(row).toMatchObject({ status: 'upstream_error', http_status: 504, error_code: 'upstream_timeout', provider: 'quiet' });
    expect(row?.output_tokens).toBeGreaterThan(0);
    expect(Number(row?.cost_micros)).toBeGreaterThan(0);
  });

  it('ends an Anthropic-format stream with its error event', async () => {
    quiet.stall = 'after-first-event';
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: bearer(key),
      payload: { model: 'openai/idle', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('"text":"hello "');
    expect(response.body).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
  });
});
