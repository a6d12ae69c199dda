import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyKind } from '../../src/keys/key-format.ts';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Each key kind against each endpoint family: a kind reaches only its own endpoints,
 * and everything else is 403 wrong_key_kind (never a 404 or a leak of data).
 */
type Family = { name: string; method: 'GET' | 'POST'; url: string; payload?: unknown; kinds: KeyKind[] };
const FAMILIES: Family[] = [
  { name: 'key management', method: 'GET', url: '/v1/keys', kinds: ['provisioning'] },
  { name: 'key status', method: 'GET', url: '/v1/key', kinds: ['model'] },
  { name: 'credits', method: 'GET', url: '/v1/credits', kinds: ['model', 'provisioning', 'agent'] },
];

let t: TestApp;
const keys = {} as Record<KeyKind, string>;
beforeAll(async () => {
  t = await startTestApp();
  for (const kind of ['model', 'provisioning', 'agent'] as const) keys[kind] = await t.key(kind);
});
afterAll(async () => t.close());

describe.each(FAMILIES)('$name ($method $url)', (family) => {
  it.each(['model', 'provisioning', 'agent'] as const)('with a %s key', async (kind) => {
    const response = await t.app.inject({ method: family.method, url: family.url, headers: bearer(keys[kind]), ...(family.payload ? { payload: family.payload as object } : {}) });
    if (family.kinds.includes(kind)) {
      expect(response.statusCode).toBeLessThan(400);
    } else {
      expect(response.statusCode).toBe(403);
      expect(response.json().error).toMatchObject({ code: 'wrong_key_kind', type: 'permission_error' });
    }
  });

  it('without a key, or with a made-up one', async () => {
    const none = await t.app.inject({ method: family.method, url: family.url });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('invalid_api_key');
    const forged = keys.model.slice(0, -1) + (keys.model.endsWith('A') ? 'B' : 'A');
    const wrong = await t.app.inject({ method: family.method, url: family.url, headers: bearer(forged) });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('invalid_api_key');
  });
});
