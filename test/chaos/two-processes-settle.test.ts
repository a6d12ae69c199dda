import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';

/**
 * Two processes on one PostgreSQL database, 300 concurrent calls on a key capped at
 * $0.01: admission stays exact, and every served call's usage row and spend land
 * within seconds without any outage (the settlement timer once stalled here).
 */
const enabled = Boolean(process.env.DATABASE_URL);
let first: GatewayHarness;
let second: GatewayHarness;

beforeAll(async () => {
  if (!enabled) return;
  first = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  second = await startGateway({ DATABASE_URL: first.config.databaseUrl as string, JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(first.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
});
afterAll(async () => {
  if (!enabled) return;
  await second?.close();
  await first?.close();
});

describe.skipIf(!enabled)('two processes, one capped key', () => {
  it('bills every served call within 3 s, with no outage and no restart', async () => {
    const key = await first.key('model', { totalLimitMicros: 10_000 });
    const calls = Array.from({ length: 300 }, (_, index) =>
      fetch(`${(index % 2 === 0 ? first : second).baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/test-echo', max_tokens: 16, messages: [{ role: 'user', content: `call ${index}` }] }),
      }).then((response) => response.status),
    );
    const statuses = await Promise.all(calls);
    const served = statuses.filter((status) => status === 200).length;
    const refused = statuses.filter((status) => status === 403 || status === 402).length;
    const other = statuses.filter((status) => status !== 200 && status !== 403 && status !== 402);
    const doneAt = Date.now();
    const read = async () => {
      const rows = await first.services.db.query<{ n: number; cost: number }>("SELECT count(*)::int AS n, COALESCE(sum(cost_micros), 0)::bigint AS cost FROM usage_log WHERE status = 'success'");
      const status = await first.app.inject({ method: 'GET', url: '/v1/key', headers: bearer(key) });
      return { rows: rows.rows[0]?.n ?? 0, cost: Number(rows.rows[0]?.cost ?? 0), reported: status.json<{ data: { usage: number } }>().data.usage };
    };
    let found = await read();
    while ((found.rows < served || found.reported * 1e6 < found.cost - 0.5) && Date.now() - doneAt < 3_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      found = await read();
    }
    console.log(
      `[chaos] two processes, 300 calls on a $0.01 key: served ${served}, refused ${refused}, other [${other.join(',')}]; rows expected ${served}, found ${found.rows} ` +
        `${Date.now() - doneAt} ms after the last answer; GET /v1/key usage $${found.reported} for ${found.cost} µUSD of rows`,
    );
    expect(served + refused).toBe(300);
    expect(served).toBeGreaterThan(0);
    expect(found.rows).toBe(served);
    expect(found.cost).toBeLessThanOrEqual(10_000);
    expect(Math.round(found.reported * 1e6)).toBe(found.cost);
  });
});
