import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createServices, type Services } from '../../src/assembly/services.ts';
import type { FastifyInstance } from 'fastify';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Two gateway processes on one PostgreSQL database: a key changed through one stops
 * working on the other at its very next request. (PGlite is one process by design.)
 */
describe.skipIf(!process.env.DATABASE_URL)('key changes reach every process', () => {
  let first: TestApp;
  let secondServices: Services;
  let second: FastifyInstance;
  let provisioning: string;

  beforeAll(async () => {
    first = await startTestApp();
    secondServices = await createServices(first.config);
    second = await buildApp(secondServices);
    provisioning = await first.key('provisioning');
  });
  afterAll(async () => {
    await second.close();
    await secondServices.close();
    await first.close();
  });

  it('disable, expire and delete on A are refused on B at once', async () => {
    for (const change of [{ disabled: true }, { expires_at: new Date(Date.now() - 1).toISOString() }, 'delete'] as const) {
      const created = await first.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'shared' } });
      const { data, key } = created.json();
      // B has the key cached from a successful request.
      expect((await second.inject({ url: '/v1/credits', headers: bearer(key) })).statusCode).toBe(200);
      if (change === 'delete') {
        await first.app.inject({ method: 'DELETE', url: `/v1/keys/${data.id}`, headers: bearer(provisioning) });
      } else {
        await first.app.inject({ method: 'PATCH', url: `/v1/keys/${data.id}`, headers: bearer(provisioning), payload: change });
      }
      const after = await second.inject({ url: '/v1/credits', headers: bearer(key) });
      expect(after.statusCode).toBe(401);
    }
  });
});
