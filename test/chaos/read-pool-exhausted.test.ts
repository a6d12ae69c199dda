import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { reportingReadsOf } from '../../src/store/reporting-reads.ts';
import { type ConsoleSession, ORIGIN, sessionCookieOf, sessionFrom } from '../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';

/**
 * Console and reporting reads have connections of their own (a pool on PostgreSQL, a slot
 * on the embedded engine). With every one of them held, the gateway still serves `GET
 * /v1/key` and chat calls, and settles them, at once; the console's reads and `GET
 * /v1/usage` get a 503 that says the service is busy, with Retry-After, and are counted.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let modelKey: string;
let provisioningKey: string;

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent', JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '20', currency: 'USD' });
  const link = await issueSetupLink(gateway.services.db, 'http://localhost', new Date());
  const token = new URL(link as string).searchParams.get('token') as string;
  const setup = await gateway.app.inject({
    method: 'POST',
    url: '/console/api/setup',
    headers: { origin: ORIGIN, host: 'localhost:80' },
    payload: { token, email: 'owner@example.com', password: 'correct horse battery' },
  });
  owner = await sessionFrom(gateway.app, sessionCookieOf(setup));
  modelKey = await gateway.key('model');
  provisioningKey = await gateway.key('provisioning');
});
afterAll(async () => gateway?.close());

describe('every reading connection held', () => {
  it('leaves the gateway serving and settling, and refuses console reads as busy', async () => {
    const reads = reportingReadsOf(gateway.services.db);
    expect((await owner.request('GET', '/console/api/overview')).statusCode).toBe(200);
    const slots = reads.stats().max;
    expect(slots).toBeGreaterThan(0);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const holders = Array.from({ length: slots }, () =>
      reads.session(async (db) => {
        await db.query('SELECT 1');
        await held;
      }),
    );
    try {
      await expect.poll(() => reads.stats().inUse).toBe(slots);
      const busyBefore = reads.stats().busyRefusals;

      // The gateway's calls do not use the reading connections: answered while every one is held, none refused.
      for (let index = 0; index < 5; index += 1) {
        expect((await gateway.app.inject({ url: '/v1/key', headers: bearer(modelKey) })).statusCode).toBe(200);
      }
      for (let index = 0; index < 3; index += 1) {
        const chat = await gateway.app.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers: bearer(modelKey),
          payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: `held ${index}` }] },
        });
        expect(chat.statusCode).toBe(200);
      }
      expect(reads.stats()).toMatchObject({ waiting: 0, busyRefusals: busyBefore });
      // Settlement is the gateway's own work: it is written while the reads are held.
      await gateway.settle();
      const settled = await gateway.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_log WHERE endpoint = 'chat.completions'");
      expect(settled.rows[0]?.n).toBe(3);

      // A console read queues for a reading connection first, and is refused as busy only after that wait.
      let answered = false;
      const overviewAnswer = owner.request('GET', '/console/api/overview').finally(() => (answered = true));
      await expect.poll(() => reads.stats().waiting).toBe(1);
      expect(answered).toBe(false);
      const overview = await overviewAnswer;
      expect(reads.stats().waiting).toBe(0);
      expect(overview.statusCode).toBe(503);
      expect(overview.headers['retry-after']).toBe('2');
      expect(overview.json()).toMatchObject({ error: { message: expect.stringMatching(/busy/) } });
      expect((await owner.request('GET', '/console/api/usage')).statusCode).toBe(503);
      expect((await owner.request('GET', '/console/api/usage.csv')).statusCode).toBe(503);
      expect((await gateway.app.inject({ url: '/v1/usage', headers: bearer(provisioningKey) })).statusCode).toBe(503);
      expect(reads.stats().busyRefusals - busyBefore).toBe(4);
      const metrics = await gateway.app.inject({ url: '/metrics' });
      expect(metrics.body).toMatch(/^junction_db_read_pool_busy_total [4-9]/m);
    } finally {
      release();
      await Promise.all(holders);
    }
    const after = (await owner.request('GET', '/console/api/overview')).json<{ requests: Array<{ requests: number }> }>();
    expect(after.requests.reduce((sum, day) => sum + day.requests, 0)).toBe(3);
  }, 60_000);
});
