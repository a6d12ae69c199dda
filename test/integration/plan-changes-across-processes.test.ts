import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { buildApp } from '../../src/app.ts';
import { createServices, type Services } from '../../src/assembly/services.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import type { FastifyInstance } from 'fastify';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';

/**
 * Two gateway processes on one PostgreSQL database: an account's plan changed through
 * one applies on the other at its very next request, because the change waits for every
 * live process to acknowledge it, as key changes do. (PGlite is one process by design.)
 */
describe.skipIf(!process.env.DATABASE_URL)('plan changes reach every process', () => {
  let first: GatewayHarness;
  let secondServices: Services;
  let second: FastifyInstance;
  let key: string;

  beforeAll(async () => {
    first = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
    // B is a busy process: each notification reaches its handler 300 ms late. Without the
    // acknowledgement, A's command returns long before B has dropped its cached plan.
    const database = await openDatabase(first.config);
    const slowListener = new Proxy(database, {
      get(target, property) {
        if (property === 'listen') {
          return (channel: string, handler: (payload: string) => void) => target.listen(channel, (payload) => setTimeout(() => handler(payload), 300));
        }
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    secondServices = await createServices(first.config, { env: first.env, loadAgents: false, database: slowListener });
    second = await buildApp(secondServices);
    await runAdminCommand(first.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
    key = await first.key('model');
  });
  afterAll(async () => {
    await second?.close();
    await secondServices?.close();
    await first?.close();
  });

  const callOnSecond = (model: string) =>
    second.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] } });

  it('a plan set on A limits B at once, and lifting it frees B at once', async () => {
    const account = first.services.defaultAccount.id;
    for (let round = 0; round < 3; round += 1) {
      // B has the default plan cached from a successful call of a model outside echo-only.
      expect((await callOnSecond('openai/test-tool')).statusCode).toBe(200);
      await runAdminCommand(first.services, { command: 'accounts.set-plan', account, plan: 'echo-only' });
      const limited = await callOnSecond('openai/test-tool');
      expect(limited.statusCode).toBe(403);
      expect(limited.json()).toMatchObject({ error: { code: 'model_not_allowed' } });
      expect((await callOnSecond('openai/test-echo')).statusCode).toBe(200);
      await runAdminCommand(first.services, { command: 'accounts.set-plan', account, plan: 'default' });
    }
  });
});
