import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { type ScratchCluster, scratchClusterAvailable, startScratchCluster } from '../support/scratch-cluster.ts';

/** `/readyz` says ready while the database answers, and 503 naming the database while it is down; `/healthz` stays 200. */
const enabled = Boolean(process.env.DATABASE_URL) && scratchClusterAvailable();
let cluster: ScratchCluster;
let gateway: GatewayHarness;

beforeAll(async () => {
  if (!enabled) return;
  cluster = await startScratchCluster();
  gateway = await startGateway({ DATABASE_URL: cluster.url, JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
});
afterAll(async () => {
  if (!enabled) return;
  await gateway?.close().catch(() => undefined);
  await cluster?.destroy();
});

describe.skipIf(!enabled)('readiness during a database outage', () => {
  it('is ready, then 503 naming the database, then ready again without a restart', async () => {
    const before = await fetch(`${gateway.baseUrl}/readyz`);
    expect(before.status).toBe(200);
    expect(await before.json()).toMatchObject({ status: 'ready', checks: { database: { ok: true }, migrations: { ok: true }, catalog: { ok: true } } });
    await cluster.stop();
    const during = await fetch(`${gateway.baseUrl}/readyz`);
    expect(during.status).toBe(503);
    expect(await during.json()).toMatchObject({ status: 'not_ready', failing: ['database', 'migrations'] });
    expect((await fetch(`${gateway.baseUrl}/healthz`)).status).toBe(200);
    await cluster.start();
    const after = await fetch(`${gateway.baseUrl}/readyz`);
    console.log(`[chaos] readiness: ${before.status} before, ${during.status} during the outage, ${after.status} after`);
    expect(after.status).toBe(200);
  });
});
