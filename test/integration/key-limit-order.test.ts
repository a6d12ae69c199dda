import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';

/** A key's limits grow with their window: a monthly limit under the daily one is refused, on create and on change. */
let t: TestApp;
let provisioning: string;

beforeAll(async () => {
  t = await startTestApp();
  provisioning = await t.key('provisioning');
});
afterAll(async () => t.close());

const createKey = (body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'ordered', ...body } });

describe('key limit order', () => {
  it('refuses a monthly limit under the daily one, naming the monthly field', async () => {
    const refused = await createKey({ daily_limit_usd: 10, monthly_limit_usd: 1 });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: { param: 'monthly_limit_usd' } });
    expect(refused.json<{ error: { message: string } }>().error.message).toBe('The monthly limit ($1) is below the daily limit ($10): raise it, or lower the daily one.');
    expect((await createKey({ monthly_limit_usd: 5, total_limit_usd: 2 })).json()).toMatchObject({ error: { param: 'total_limit_usd' } });
  });

  it('accepts equal or growing limits, and refuses a change that sends them out of order', async () => {
    const created = await createKey({ daily_limit_usd: 1, monthly_limit_usd: 1, total_limit_usd: 50 });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ data: { id: string } }>().data.id;
    const change = await t.app.inject({ method: 'PATCH', url: `/v1/keys/${id}`, headers: bearer(provisioning), payload: { daily_limit_usd: 20, monthly_limit_usd: 5 } });
    expect(change.statusCode).toBe(400);
    expect(change.json()).toMatchObject({ error: { param: 'monthly_limit_usd' } });
  });
});
