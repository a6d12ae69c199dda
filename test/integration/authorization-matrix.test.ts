import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyKind } from '../../src/keys/key-kind.ts';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Each key kind against each endpoint family: a kind reaches only its own endpoints,
 * and everything else is 403 wrong_key_kind (never a 404 or a leak of data).
 */
type Family = { name: string; method: 'GET' | 'POST'; url: string; payload?: unknown; kinds: KeyKind[]; headers?: Record<string, string> };
// Bodies are deliberately minimal: an allowed kind may still get a 400/404 for the body
// or model, but never 401/403; every other kind must get 403 before the body is read.
const chat = { model: 'openai/none', messages: [{ role: 'user', content: 'x' }] };
const FAMILIES: Family[] = [
  { name: 'key management', method: 'GET', url: '/v1/keys', kinds: ['provisioning'] },
  { name: 'usage log', method: 'GET', url: '/v1/usage', kinds: ['provisioning'] },
  { name: 'key status', method: 'GET', url: '/v1/key', kinds: ['model'] },
  { name: 'credits', method: 'GET', url: '/v1/credits', kinds: ['model', 'provisioning', 'agent'] },
  { name: 'models list', method: 'GET', url: '/v1/models', kinds: ['model'] },
  { name: 'chat completions', method: 'POST', url: '/v1/chat/completions', payload: chat, kinds: ['model'] },
  { name: 'embeddings', method: 'POST', url: '/v1/embeddings', payload: { model: 'openai/none', input: 'x' }, kinds: ['model'] },
  { name: 'images', method: 'POST', url: '/v1/images/generations', payload: { model: 'openai/none', prompt: 'x' }, kinds: ['model'] },
  { name: 'moderations', method: 'POST', url: '/v1/moderations', payload: { input: 'x' }, kinds: ['model'] },
  { name: 'speech', method: 'POST', url: '/v1/audio/speech', payload: { model: 'openai/none', input: 'x', voice: 'alloy' }, kinds: ['model'] },
  { name: 'messages', method: 'POST', url: '/v1/messages', payload: { model: 'openai/none', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, kinds: ['model'] },
  { name: 'gemini', method: 'POST', url: '/v1beta/models/google%2Fnone:generateContent', payload: { contents: [{ role: 'user', parts: [{ text: 'x' }] }] }, kinds: ['model'] },
  { name: 'pass-through', method: 'GET', url: '/v1/files', kinds: ['model'] },
  { name: 'agents models', method: 'GET', url: '/agents/v1/models', kinds: ['agent'] },
  { name: 'agents chat', method: 'POST', url: '/agents/v1/chat/completions', payload: { ...chat, model: 'none' }, kinds: ['agent'] },
  { name: 'agents responses', method: 'POST', url: '/agents/v1/responses', payload: { model: 'none', input: 'x' }, kinds: ['agent'] },
  { name: 'agents conversations', method: 'GET', url: '/agents/v1/conversations', kinds: ['agent'] },
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
      expect([401, 403]).not.toContain(response.statusCode);
    } else {
      expect(response.statusCode).toBe(403);
      expect(JSON.stringify(response.json())).toContain('wrong_key_kind');
    }
  });

  it('without a key, or with a made-up one', async () => {
    const none = await t.app.inject({ method: family.method, url: family.url });
    expect(none.statusCode).toBe(401);
    expect(JSON.stringify(none.json())).toContain('invalid_api_key');
    const forged = keys.model.slice(0, -1) + (keys.model.endsWith('A') ? 'B' : 'A');
    const wrong = await t.app.inject({ method: family.method, url: family.url, headers: bearer(forged) });
    expect(wrong.statusCode).toBe(401);
    expect(JSON.stringify(wrong.json())).toContain('invalid_api_key');
  });
});
