import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let provisioning: string;

beforeAll(async () => {
  t = await startTestApp();
  provisioning = await t.key('provisioning');
});
afterAll(async () => t.close());

async function createModelKey(body: Record<string, unknown> = {}) {
  const response = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'k', ...body } });
  expect(response.statusCode).toBe(201);
  return response.json() as { data: Record<string, unknown> & { id: string; label: string }; key: string };
}

describe('POST /v1/keys', () => {
  it('returns the plain key once, with the key object', async () => {
    const created = await createModelKey({ name: 'backend', daily_limit_usd: 5, allowed_models: ['openai/gpt-4o-mini'] });
    expect(created.key).toMatch(/^sk-jn-[0-9A-Za-z]{55}$/);
    expect(created.data.label).toBe(`sk-jn-${created.key.slice(6, 9)}…${created.key.slice(-3)}`);
    expect(created.data).toMatchObject({
      name: 'backend',
      kind: 'model',
      hash: created.data.id,
      daily_limit_usd: 5,
      limit: 5,
      limit_remaining: 5,
      limit_reset: 'daily',
      usage: 0,
      disabled: false,
      allowed_models: ['openai/gpt-4o-mini'],
    });
    const read = await t.app.inject({ url: `/v1/keys/${created.data.id}`, headers: bearer(provisioning) });
    expect(read.statusCode).toBe(200);
    expect(JSON.stringify(read.json())).not.toContain(created.key.slice(6));
    const list = await t.app.inject({ url: '/v1/keys?limit=100', headers: bearer(provisioning) });
    expect(JSON.stringify(list.json())).not.toContain(created.key.slice(6));
  });

  it('stores neither the plain key nor its secret part anywhere', async () => {
    const created = await createModelKey();
    const secret = created.key.slice(6 + 12);
    const rows = await t.services.db.query('SELECT * FROM api_keys');
    const dump = JSON.stringify(rows.rows, (_, value) => (value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value));
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(Buffer.from(secret).toString('hex'));
  });

  it('creates agent keys that never look like model keys', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'a', kind: 'agent' } });
    expect(response.statusCode).toBe(201);
    const key = response.json().key as string;
    expect(key).toMatch(/^sk-[0-9A-Za-z]{55}$/);
    expect(key.startsWith('sk-jn-')).toBe(false);
  });

  it('rejects disabled on create, naming the field', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'x', disabled: true } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid_request', param: 'disabled', type: 'invalid_request_error' });
  });

  it('rejects unknown fields and bad values with param', async () => {
    const unknown = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'x', colour: 'red' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.param).toBe('colour');
    const bad = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'x', daily_limit_usd: -1 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.param).toBe('daily_limit_usd');
    const missing = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: {} });
    expect(missing.json().error.param).toBe('name');
    const past = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'x', expires_at: '2001-01-01T00:00:00Z' } });
    expect(past.json().error.param).toBe('expires_at');
  });

  it("accepts OpenRouter's limit and limit_reset", async () => {
    const created = await createModelKey({ limit: 12.5, limit_reset: 'monthly' });
    expect(created.data).toMatchObject({ monthly_limit_usd: 12.5, total_limit_usd: null, limit: 12.5, limit_reset: 'monthly' });
    const total = await createModelKey({ limit: 3 });
    expect(total.data).toMatchObject({ total_limit_usd: 3, limit_reset: null });
  });
});

describe('PATCH /v1/keys/{id}', () => {
  it('keeps omitted fields, clears null ones, and sets disabled', async () => {
    const created = await createModelKey({ description: 'd', daily_limit_usd: 1, monthly_limit_usd: 10, rate_limit_rpm: 60 });
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/v1/keys/${created.data.id}`,
      headers: bearer(provisioning),
      payload: { daily_limit_usd: null, name: 'renamed', disabled: true },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      name: 'renamed',
      description: 'd',
      daily_limit_usd: null,
      monthly_limit_usd: 10,
      rate_limit_rpm: 60,
      disabled: true,
    });
  });

  it("changes the window a key's limit shows when OpenRouter's PATCH sends only limit", async () => {
    const patch = (id: string, payload: Record<string, unknown>) => t.app.inject({ method: 'PATCH', url: `/v1/keys/${id}`, headers: bearer(provisioning), payload });
    const monthly = await createModelKey({ limit: 5, limit_reset: 'monthly' });
    const raised = await patch(monthly.data.id, { limit: 7 });
    expect(raised.statusCode).toBe(200);
    expect(raised.json().data).toMatchObject({ monthly_limit_usd: 7, daily_limit_usd: null, total_limit_usd: null, limit: 7, limit_reset: 'monthly' });
    // limit_reset sent as null still means "no reset": the total window.
    const total = await patch(monthly.data.id, { limit: 9, limit_reset: null });
    expect(total.json().data).toMatchObject({ monthly_limit_usd: 7, total_limit_usd: 9 });
    // A key without limits gets a total one, as on create.
    const unlimited = await createModelKey();
    expect((await patch(unlimited.data.id, { limit: 2 })).json().data).toMatchObject({ total_limit_usd: 2, limit: 2, limit_reset: null });
    const missing = await patch('00000000-0000-4000-8000-000000000000', { limit: 2 });
    expect(missing.statusCode).toBe(404);
  });

  it('rejects unknown fields and leaves the key unchanged', async () => {
    const created = await createModelKey({ name: 'same' });
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/v1/keys/${created.data.id}`,
      headers: bearer(provisioning),
      payload: { name: 'changed', owner: 'me' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.param).toBe('owner');
    const read = await t.app.inject({ url: `/v1/keys/${created.data.id}`, headers: bearer(provisioning) });
    expect(read.json().data.name).toBe('same');
  });

  it('loses no update under concurrent patches of different fields', async () => {
    const created = await createModelKey();
    const fields = ['description', 'daily_limit_usd', 'monthly_limit_usd', 'total_limit_usd', 'rate_limit_rpm', 'name'] as const;
    const values: Record<(typeof fields)[number], unknown> = {
      description: 'desc',
      daily_limit_usd: 1,
      monthly_limit_usd: 2,
      total_limit_usd: 3,
      rate_limit_rpm: 7,
      name: 'n2',
    };
    const responses = await Promise.all(
      fields.map((field) => t.app.inject({ method: 'PATCH', url: `/v1/keys/${created.data.id}`, headers: bearer(provisioning), payload: { [field]: values[field] } })),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(fields.map(() => 200));
    const read = await t.app.inject({ url: `/v1/keys/${created.data.id}`, headers: bearer(provisioning) });
    expect(read.json().data).toMatchObject(values);
  });
});

describe('key lifecycle takes effect on the next request', () => {
  it('disable, re-enable, expire and delete', async () => {
    const created = await createModelKey();
    const status = () => t.app.inject({ url: '/v1/credits', headers: bearer(created.key) });
    expect((await status()).statusCode).toBe(200);

    await t.app.inject({ method: 'PATCH', url: `/v1/keys/${created.data.id}`, headers: bearer(provisioning), payload: { disabled: true } });
    const disabled = await status();
    expect(disabled.statusCode).toBe(401);
    expect(disabled.json().error.code).toBe('key_disabled');

    await t.app.inject({ method: 'PATCH', url: `/v1/keys/${created.data.id}`, headers: bearer(provisioning), payload: { disabled: false } });
    expect((await status()).statusCode).toBe(200);

    const past = new Date(Date.now() - 1000).toISOString();
    await t.app.inject({ method: 'PATCH', url: `/v1/keys/${created.data.id}`, headers: bearer(provisioning), payload: { expires_at: past } });
    const expired = await status();
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('key_expired');
    // GET /key still answers for an expired key and says so.
    const own = await t.app.inject({ url: '/v1/key', headers: bearer(created.key) });
    expect(own.statusCode).toBe(200);
    expect(own.json().data).toMatchObject({ expired: true, expires_at: past });

    // As OpenRouter-style clients delete: labelled JSON, with no body.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/v1/keys/${created.data.id}`,
      headers: { ...bearer(provisioning), 'content-type': 'application/json' },
      payload: '',
    });
    expect(deleted.json()).toEqual({ deleted: true });
    const gone = await status();
    expect(gone.statusCode).toBe(401);
    expect(gone.json().error.code).toBe('invalid_api_key');
    expect((await t.app.inject({ url: `/v1/keys/${created.data.id}`, headers: bearer(provisioning) })).statusCode).toBe(404);
  });
});

describe('GET /v1/keys', () => {
  it('pages through the keys, never showing provisioning keys', async () => {
    const fresh = await createAccount(t.services.db, 'paging');
    const admin = await t.key('provisioning', {}, fresh.id);
    for (let index = 0; index < 5; index += 1) await t.key('model', { name: `m${index}` }, fresh.id);
    const first = await t.app.inject({ url: '/v1/keys?limit=2', headers: bearer(admin) });
    expect(first.json()).toMatchObject({ has_more: true, next_offset: 2 });
    expect(first.json().data.map((k: { name: string }) => k.name)).toEqual(['m0', 'm1']);
    const last = await t.app.inject({ url: '/v1/keys?limit=2&offset=4', headers: bearer(admin) });
    expect(last.json()).toMatchObject({ has_more: false, next_offset: null });
    expect(last.json().data.map((k: { name: string }) => k.name)).toEqual(['m4']);
    const all = await t.app.inject({ url: '/v1/keys?limit=100', headers: bearer(admin) });
    expect(all.json().data.every((k: { kind: string }) => k.kind !== 'provisioning')).toBe(true);
  });

  it('keeps provisioning keys out of reach of /keys/{id}', async () => {
    const rows = await t.services.db.query<{ id: string }>("SELECT id FROM api_keys WHERE kind = 'provisioning' LIMIT 1");
    const id = rows.rows[0]?.id;
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const response = await t.app.inject({ method, url: `/v1/keys/${id}`, headers: bearer(provisioning), ...(method === 'PATCH' ? { payload: { name: 'x' } } : {}) });
      expect(response.statusCode).toBe(404);
    }
  });

  it('handles creates racing each other', async () => {
    const fresh = await createAccount(t.services.db, 'race');
    const admin = await t.key('provisioning', {}, fresh.id);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, index) => t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(admin), payload: { name: `r${index}` } })));
    expect(responses.every((r) => r.statusCode === 201)).toBe(true);
    expect(new Set(responses.map((r) => r.json().key)).size).toBe(20);
    const list = await t.app.inject({ url: '/v1/keys?limit=100', headers: bearer(admin) });
    expect(list.json().data).toHaveLength(20);
  });
});

describe('accounts are isolated', () => {
  it("a provisioning key of account A cannot see or touch account B's keys", async () => {
    const other = await createAccount(t.services.db, 'other');
    const otherAdmin = await t.key('provisioning', {}, other.id);
    const mine = await createModelKey();
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const response = await t.app.inject({ method, url: `/v1/keys/${mine.data.id}`, headers: bearer(otherAdmin), ...(method === 'PATCH' ? { payload: { disabled: true } } : {}) });
      expect(response.statusCode).toBe(404);
    }
    const list = await t.app.inject({ url: '/v1/keys?limit=100', headers: bearer(otherAdmin) });
    expect(list.json().data).toEqual([]);
    expect((await t.app.inject({ url: '/v1/credits', headers: bearer(mine.key) })).statusCode).toBe(200);
  });
});

describe('every response has a request id', () => {
  it('on success and on error', async () => {
    const ok = await t.app.inject({ url: '/healthz' });
    const error = await t.app.inject({ url: '/v1/key' });
    expect(ok.headers['x-request-id']).toMatch(/^req_/);
    expect(error.headers['x-request-id']).toMatch(/^req_/);
    expect(error.statusCode).toBe(401);
    expect(error.json().error).toMatchObject({ code: 'invalid_api_key', type: 'authentication_error', param: null });
  });
});
