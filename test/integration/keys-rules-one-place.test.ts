import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { type ConsoleSession, signIn } from '../support/console-session.ts';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';

/** `/v1/keys` and `/console/api/keys` apply the same key rules: each case gives the same answer on both. */
let t: TestApp;
let provisioning: string;
let owner: ConsoleSession;

beforeAll(async () => {
  t = await startTestApp();
  provisioning = await t.key('provisioning');
  await runAdminCommand(t.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  owner = await signIn(t.app, 'owner@example.com', 'owner password 1');
});
afterAll(async () => t?.close());

type Route = { name: string; send(method: 'POST' | 'PATCH', path: string, body: object): Promise<LightMyRequestResponse> };

const routes = (): Route[] => [
  { name: '/v1/keys', send: (method, path, body) => t.app.inject({ method, url: `/v1/keys${path}`, headers: bearer(provisioning), payload: body }) },
  { name: '/console/api/keys', send: (method, path, body) => owner.request(method, `/console/api/keys${path}`, body) },
];

/** The fields both routes show, without what differs between any two keys (id, label, times). */
function rulesOutcome(response: LightMyRequestResponse) {
  const body = response.json<{ data?: Record<string, unknown>; error?: Record<string, unknown> }>();
  if (body.error) return { status: response.statusCode, code: body.error.code, param: body.error.param, message: body.error.message };
  const data = body.data ?? {};
  return {
    status: response.statusCode,
    daily_limit_usd: data.daily_limit_usd,
    monthly_limit_usd: data.monthly_limit_usd,
    total_limit_usd: data.total_limit_usd,
    expires_at: data.expires_at,
    allowed_models: data.allowed_models,
    rate_limit_rpm: data.rate_limit_rpm,
    disabled: data.disabled,
  };
}

async function createThenPatch(route: Route, created: object, patch: object) {
  const made = await route.send('POST', '', { name: 'rules', ...created });
  expect(made.statusCode, `${route.name}: ${made.body}`).toBe(201);
  return rulesOutcome(await route.send('PATCH', `/${made.json<{ data: { id: string } }>().data.id}`, patch));
}

async function sameOnBoth(answer: (route: Route) => Promise<unknown>) {
  const [api, console] = await Promise.all(routes().map(answer));
  expect(console).toEqual(api);
  return api;
}

describe('one set of key rules behind both routes', () => {
  it('PATCH {limit: 7} on a key with a $5 daily limit raises the daily limit on both', async () => {
    const outcome = await sameOnBoth((route) => createThenPatch(route, { daily_limit_usd: 5 }, { limit: 7 }));
    expect(outcome).toMatchObject({ status: 200, daily_limit_usd: 7, total_limit_usd: null });
  });

  it('PATCH {limit: 3} on a key without limits sets a total limit on both', async () => {
    const outcome = await sameOnBoth((route) => createThenPatch(route, {}, { limit: 3 }));
    expect(outcome).toMatchObject({ status: 200, daily_limit_usd: null, monthly_limit_usd: null, total_limit_usd: 3 });
  });

  it("PATCH with 'limit' and the window it would change is refused the same way", async () => {
    const outcome = await sameOnBoth((route) => createThenPatch(route, { monthly_limit_usd: 5 }, { limit: 7, monthly_limit_usd: 8 }));
    expect(outcome).toMatchObject({ status: 400, code: 'invalid_request', param: 'limit' });
  });

  it('an expiry in the past is refused the same way on create', async () => {
    const outcome = await sameOnBoth(async (route) => rulesOutcome(await route.send('POST', '', { name: 'old', expires_at: '2001-01-01T00:00:00Z' })));
    expect(outcome).toMatchObject({ status: 400, code: 'invalid_request', param: 'expires_at' });
  });

  it("'disabled' on create is refused the same way", async () => {
    const outcome = await sameOnBoth(async (route) => rulesOutcome(await route.send('POST', '', { name: 'off', disabled: true })));
    expect(outcome).toMatchObject({ status: 400, code: 'invalid_request', param: 'disabled' });
    expect(String((outcome as { message: string }).message)).toContain('PATCH');
  });

  it('a model the catalog does not know is kept in the allowlist the same way', async () => {
    // The catalog reloads: a key may name a model that is not served yet, and calls to it are refused until it is.
    const outcome = await sameOnBoth(async (route) => rulesOutcome(await route.send('POST', '', { name: 'future', allowed_models: ['nobody/unknown-model', 'nobody/unknown-model'] })));
    expect(outcome).toMatchObject({ status: 201, allowed_models: ['nobody/unknown-model'] });
  });

  it("'limit_reset' without 'limit' is refused the same way on PATCH", async () => {
    const outcome = await sameOnBoth((route) => createThenPatch(route, {}, { limit_reset: 'daily' }));
    expect(outcome).toMatchObject({ status: 400, param: 'limit_reset' });
  });
});
