import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { TEST_CONFIG } from './gateway-harness.ts';
import { startTestApp, type TestApp } from './test-app.ts';

export type PassthroughApp = { app: TestApp; key: string; close(): Promise<void> };

/**
 * The real app whose OpenAI pass-through reaches `upstream`, a bare server a test answers
 * with, started here on 127.0.0.1; with credit and a model key. Closing ends both.
 */
export async function startPassthroughApp(upstream: Server): Promise<PassthroughApp> {
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const env = { OPENAI_API_KEY: 'sk-provider', OPENAI_BASE_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`, JUNCTION_CONFIG: TEST_CONFIG };
  const app = await startTestApp(env, { env });
  await runAdminCommand(app.services, { command: 'credits.grant', amount: '1', currency: 'USD' });
  return {
    app,
    key: await app.key('model'),
    async close() {
      await app.close();
      upstream.closeAllConnections();
      await new Promise<void>((done) => upstream.close(() => done()));
    },
  };
}
