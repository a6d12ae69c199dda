import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { TEST_CONFIG } from '../support/gateway-harness.ts';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The pass-through under a request's `x-junction-timeout-ms`: against a bare upstream that
 * records the headers reaching it and, while `stalled`, never answers.
 */
let app: TestApp;
let key: string;
let stalled = false;
const reached: IncomingHttpHeaders[] = [];
const upstream = createServer((request, response) => {
  reached.push(request.headers);
  request.resume();
  if (stalled) return;
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'asst_1', object: 'assistant' })));
});

beforeAll(async () => {
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const env = { OPENAI_API_KEY: 'sk-provider', OPENAI_BASE_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`, JUNCTION_CONFIG: TEST_CONFIG };
  app = await startTestApp(env, { env });
  await runAdminCommand(app.services, { command: 'credits.grant', amount: '1', currency: 'USD' });
  key = await app.key('model');
});
afterAll(async () => {
  await app.close();
  upstream.closeAllConnections();
  await new Promise<void>((done) => upstream.close(() => done()));
});

const create = (timeout: string) =>
  app.app.inject({ method: 'POST', url: '/v1/assistants', headers: { ...bearer(key), 'content-type': 'application/json', 'x-junction-timeout-ms': timeout }, payload: '{}' });

describe('x-junction-timeout-ms on the pass-through', () => {
  it('is Junction’s own: checked, and never sent upstream', async () => {
    expect((await create('soon')).statusCode).toBe(400);
    const response = await create('5000');
    expect(response.statusCode, response.body).toBe(200);
    expect(reached.at(-1)).not.toHaveProperty('x-junction-timeout-ms');
  });

  it('shortens the wait for a provider that does not answer', async () => {
    stalled = true;
    const response = await create('40');
    expect(response.statusCode, response.body).toBe(504);
    expect(response.json().error.code).toBe('upstream_timeout');
  });
});
