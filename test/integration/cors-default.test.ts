import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/** Without JUNCTION_CORS_ORIGINS no page on another origin may read an answer. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
});
afterAll(async () => t.close());

describe('CORS is off by default', () => {
  it('answers no preflight and sends no allow-origin header', async () => {
    const origin = 'https://app.example.com';
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/chat/completions',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.statusCode).toBe(404);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const models = await t.app.inject({ url: '/v1/models', headers: { origin } });
    expect(models.headers['access-control-allow-origin']).toBeUndefined();
  });
});
