import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { type ScratchCluster, scratchClusterAvailable, startScratchCluster } from '../support/scratch-cluster.ts';

/**
 * The database stops for 2 s during traffic and comes back: calls made meanwhile with a
 * cached key are served, everything that needs the database answers 503 (never 401 or
 * 500), and every call's usage row and spend land within 2 s of the database returning,
 * without a restart. Runs on a PostgreSQL cluster of its own (never the shared server),
 * in the PostgreSQL pass of the suite.
 */
const enabled = Boolean(process.env.DATABASE_URL) && scratchClusterAvailable();
let cluster: ScratchCluster;
let gateway: GatewayHarness;
let admin: pg.Client;

beforeAll(async () => {
  if (!enabled) return;
  cluster = await startScratchCluster();
  gateway = await startGateway({ DATABASE_URL: cluster.url, JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
});
afterAll(async () => {
  if (!enabled) return;
  await admin?.end().catch(() => undefined);
  await gateway?.close().catch(() => undefined);
  await cluster?.destroy();
});

async function counts(keyId: string): Promise<{ rows: number; rowCost: number; spend: number }> {
  admin = new pg.Client(cluster.url);
  await admin.connect();
  try {
    const rows = await admin.query<{ n: string; cost: string | null }>("SELECT count(*) AS n, sum(cost_micros) AS cost FROM usage_log WHERE key_id = $1 AND status = 'success'", [keyId]);
    const key = await admin.query<{ spend: string }>('SELECT spend_total_micros AS spend FROM api_keys WHERE id = $1', [keyId]);
    return { rows: Number(rows.rows[0]?.n), rowCost: Number(rows.rows[0]?.cost ?? 0), spend: Number(key.rows[0]?.spend) };
  } finally {
    await admin.end();
  }
}

const keyIdOf = async (plain: string): Promise<string> => {
  const response = await fetch(`${gateway.baseUrl}/v1/key`, { headers: { authorization: `Bearer ${plain}` } });
  return ((await response.json()) as { data: { id: string } }).data.id;
};

describe.skipIf(!enabled)('database outage during traffic', () => {
  it('serves cached keys, answers 503 where the database is needed, and lands every row within 2 s of recovery', async () => {
    const key = await gateway.key('model', { totalLimitMicros: 50_000_000 });
    const coldKey = await gateway.key('model');
    const keyId = await keyIdOf(key);
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    const chat = () => client.chat.completions.create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'outage test' }] });
    for (let index = 0; index < 5; index += 1) await chat();

    await cluster.stop();
    const duringOutage = await Promise.allSettled(Array.from({ length: 5 }, chat));
    const keyStatus = await fetch(`${gateway.baseUrl}/v1/key`, { headers: { authorization: `Bearer ${key}` } });
    const cold = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${coldKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'x' }] }),
    });
    const coldAnthropic = await fetch(`${gateway.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': coldKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'anthropic/test-echo', max_tokens: 50, messages: [{ role: 'user', content: 'x' }] }),
    });
    const coldGoogle = await fetch(`${gateway.baseUrl}/v1beta/models/google/test-echo:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': coldKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await cluster.start();
    const recoveredAt = Date.now();
    const afterRecovery: string[] = [];
    for (let index = 0; index < 5; index += 1)
      afterRecovery.push(
        await chat().then(
          () => 'ok',
          (error: unknown) => String(error),
        ),
      );

    let found = await counts(keyId);
    const expectedRows = 15;
    while (found.rows < expectedRows && Date.now() - recoveredAt < 2_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      found = await counts(keyId).catch(() => found);
    }
    const landedAfterMs = Date.now() - recoveredAt;
    const served = duringOutage.filter((result) => result.status === 'fulfilled').length;
    console.log(
      `[chaos] database outage: served during outage ${served}/5; rows expected ${expectedRows}, found ${found.rows} ` +
        `${landedAfterMs} ms after recovery; spend expected ${found.rowCost} µUSD, found ${found.spend}; ` +
        `GET /v1/key ${keyStatus.status}, uncached key ${cold.status}/${coldAnthropic.status}/${coldGoogle.status}`,
    );
    expect(served).toBe(5);
    expect(afterRecovery).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(found.rows).toBe(expectedRows);
    expect(landedAfterMs).toBeLessThanOrEqual(2_000);
    expect(found.spend).toBe(found.rowCost);
    expect(found.spend).toBeGreaterThan(0);

    expect(keyStatus.status).toBe(503);
    expect(keyStatus.headers.get('retry-after')).toBeTruthy();
    expect(((await keyStatus.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
    expect(cold.status).toBe(503);
    expect(coldAnthropic.status).toBe(503);
    expect(((await coldAnthropic.json()) as { type: string; error: { type: string } }).type).toBe('error');
    expect(coldGoogle.status).toBe(503);
    expect(((await coldGoogle.json()) as { error: { status: string } }).error.status).toBeTruthy();
  });
});
