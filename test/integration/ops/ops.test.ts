import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';
import { engineName } from '../../support/test-database.ts';

/** Operators' endpoints: readiness and Prometheus metrics (who may read them, what they count, what they never carry). */
let gateway: GatewayHarness;
let withToken: GatewayHarness;
const TOKEN = 'metrics-token-0123456789';

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  withToken = await startGateway({ JUNCTION_METRICS_TOKEN: TOKEN, JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '5', currency: 'USD' });
});
afterAll(async () => {
  await gateway?.close();
  await withToken?.close();
});

describe('GET /readyz', () => {
  it('is ready with every check named, without a key', async () => {
    const ready = await gateway.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', checks: { database: { ok: true }, migrations: { ok: true }, catalog: { ok: true } } });
  });
});

describe('GET /metrics', () => {
  it('counts requests, tokens, cost and the settlement queue, and carries no key', async () => {
    const key = await gateway.key('model');
    const chat = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(key),
      payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: 'count me please' }] },
    });
    expect(chat.statusCode).toBe(200);
    await gateway.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model: 'secret-model-name-xyz', messages: [{ role: 'user', content: 'x' }] } });
    const response = await gateway.app.inject({ url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/plain/);
    const text = response.body;
    expect(text).toMatch(/junction_http_requests_total\{route="\/v1\/chat\/completions",method="POST",status="200",caller="model"\} 1/);
    expect(text).toMatch(/junction_tokens_total\{model="openai\/test-echo",direction="input"\} \d+/);
    expect(text).toMatch(/junction_cost_usd_total\{model="openai\/test-echo"\} 0\.\d+/);
    expect(text).toMatch(/junction_model_calls_total\{model="unknown",provider="none",endpoint="chat.completions",status="rejected"\} 1/);
    expect(text).toMatch(/junction_settlement_queue_depth \d+/);
    expect(text).toMatch(/junction_settlement_oldest_pending_seconds \d+/);
    expect(text).toMatch(/junction_open_streams \d+/);
    expect(text).not.toContain(key.slice(6));
    expect(text).not.toContain('secret-model-name-xyz');
    expect(text).not.toContain('count me please');
  });

  it("counts the embedded engine thread's CPU on PGlite, and has no such counter on PostgreSQL", async () => {
    const scrape = async () => (await gateway.app.inject({ url: '/metrics' })).body;
    const engineSeconds = (text: string) => Number(/^junction_embedded_store_cpu_seconds_total (\S+)$/m.exec(text)?.[1]);
    if (engineName() === 'postgres') {
      expect(await scrape()).not.toContain('junction_embedded_store_cpu_seconds');
      return;
    }
    const before = engineSeconds(await scrape());
    expect(before).toBeGreaterThan(0);
    // Work the engine thread must spend well over one clock tick (10 ms) on, on any machine:
    // the counter has to grow, by however much this machine needs.
    await gateway.services.db.query('SELECT count(*) FROM generate_series(1, 2000000)');
    expect(engineSeconds(await scrape()) - before).toBeGreaterThan(0);
  });

  it('answers loopback clients only without a token, and only the token with one', async () => {
    expect((await gateway.app.inject({ url: '/metrics', remoteAddress: '10.1.2.3' })).statusCode).toBe(403);
    expect((await withToken.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    expect((await withToken.app.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong-token-0123456789' } })).statusCode).toBe(401);
    expect((await withToken.app.inject({ url: '/metrics', remoteAddress: '10.1.2.3', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(200);
  });
});
