import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/account-repository.ts';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { computeChatCost } from '../../../src/catalog/costs.ts';
import { resolveModel } from '../../../src/catalog/lookup.ts';
import { FAKE_USAGE, type PromptCacheUpstream, startPromptCacheUpstream } from '../../support/fake-prompt-cache-upstream.ts';
import { bearer, startTestApp, type TestApp } from '../../support/test-app.ts';

/**
 * The response cache through the real app: exact match per account, opt-in per request
 * (`cache.ttl_seconds`) or per key (`cache_ttl_seconds`), `x-junction-cache`, hits billed
 * at zero (or the configured fraction) without asking the provider, expiry on an injected
 * clock, and streamed and plain answers serving each other.
 */
const MODEL = 'openai/gpt-4o-mini';
const OPENAI_PATH = '/openai/v1/chat/completions';

let upstream: PromptCacheUpstream;
let clock = Date.parse('2026-03-02T10:00:00Z');
const now = () => new Date(clock);

async function startApp(env: Record<string, string> = {}): Promise<TestApp> {
  const providerEnv = {
    OPENAI_API_KEY: 'sk-upstream',
    OPENAI_BASE_URL: upstream.openaiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-upstream',
    ANTHROPIC_BASE_URL: upstream.anthropicUrl,
    GEMINI_API_KEY: 'gemini-upstream',
    GEMINI_BASE_URL: upstream.geminiUrl,
    ...env,
  };
  return startTestApp(providerEnv, { env: providerEnv, now });
}

async function fundedKey(t: TestApp, name: string, settings: Parameters<TestApp['key']>[1] = {}): Promise<{ key: string; accountId: string }> {
  const account = await createAccount(t.services.db, name);
  await runAdminCommand(t.services, { command: 'credits.grant', account: account.id, amount: '5', currency: 'USD' });
  return { key: await t.key('model', settings, account.id), accountId: account.id };
}

const chat = (t: TestApp, key: string, body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model: MODEL, ...body } });

const question = (text: string) => ({ messages: [{ role: 'user', content: text }] });

type Row = { cache_hit: boolean; cost_micros: string; input_tokens: number; cached_input_tokens: number; attempts: number; streamed: boolean };
async function rows(t: TestApp, accountId: string): Promise<Row[]> {
  await t.services.settlements.drain();
  const result = await t.services.db.query<Row>('SELECT cache_hit, cost_micros, input_tokens, cached_input_tokens, attempts, streamed FROM usage_log WHERE account_id = $1 ORDER BY created_at, id', [
    accountId,
  ]);
  return result.rows;
}

beforeAll(async () => {
  upstream = await startPromptCacheUpstream();
});
afterAll(async () => upstream.close());

describe('response cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => t.close());

  it('answers a second identical call from the cache: no provider call, no cost, logged as a hit', async () => {
    const { key, accountId } = await fundedKey(t, 'hits');
    const before = upstream.count(OPENAI_PATH);
    const first = await chat(t, key, { ...question('what is a cache?'), cache: { ttl_seconds: 60 } });
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-junction-cache']).toBe('miss');
    expect(upstream.count(OPENAI_PATH)).toBe(before + 1);
    // The field is Junction's: it never reaches the provider.
    expect(upstream.requests.at(-1)?.body).not.toHaveProperty('cache');

    const second = await chat(t, key, { ...question('what is a cache?'), cache: { ttl_seconds: 60 } });
    expect(second.statusCode).toBe(200);
    expect(second.headers['x-junction-cache']).toBe('hit');
    expect(upstream.count(OPENAI_PATH)).toBe(before + 1);
    expect(second.json().choices[0].message.content).toBe('echo: what is a cache?');
    expect(second.json().choices[0].message.content).toBe(first.json().choices[0].message.content);
    expect(second.json().usage.cost).toBe(0);
    expect(first.json().usage.cost).toBeGreaterThan(0);

    const logged = await rows(t, accountId);
    expect(logged.map((row) => [row.cache_hit, Number(row.cost_micros) > 0, row.attempts])).toEqual([
      [false, true, 1],
      [true, false, 0],
    ]);
    // A hit reports the tokens of the answer it replays.
    expect(logged[1]).toMatchObject({ input_tokens: FAKE_USAGE.openai.prompt, cached_input_tokens: FAKE_USAGE.openai.cached });
  });

  it('hits across fields that do not change the answer, and misses on any that do', async () => {
    const { key } = await fundedKey(t, 'normalised');
    const cache = { ttl_seconds: 60 };
    const before = upstream.count(OPENAI_PATH);
    expect((await chat(t, key, { ...question('normalise me'), cache, user: 'alice', metadata: { run: '1' } })).headers['x-junction-cache']).toBe('miss');
    // Another order of the same fields, another `user`, other metadata: the same request.
    expect((await chat(t, key, { cache, metadata: { run: '2' }, user: 'bob', messages: [{ content: 'normalise me', role: 'user' }] })).headers['x-junction-cache']).toBe('hit');
    expect(upstream.count(OPENAI_PATH)).toBe(before + 1);
    // A sampling parameter, a message or the model changes the answer.
    expect((await chat(t, key, { ...question('normalise me'), cache, temperature: 0.2 })).headers['x-junction-cache']).toBe('miss');
    expect((await chat(t, key, { ...question('normalise me too'), cache })).headers['x-junction-cache']).toBe('miss');
    expect((await chat(t, key, { ...question('normalise me'), cache, model: 'openai/gpt-4o' })).headers['x-junction-cache']).toBe('miss');
    expect(upstream.count(OPENAI_PATH)).toBe(before + 4);
  });

  it('never answers one account from another account’s entry', async () => {
    const a = await fundedKey(t, 'account-a');
    const b = await fundedKey(t, 'account-b');
    const body = { ...question('shared question'), cache: { ttl_seconds: 60 } };
    expect((await chat(t, a.key, body)).headers['x-junction-cache']).toBe('miss');
    const before = upstream.count(OPENAI_PATH);
    expect((await chat(t, b.key, body)).headers['x-junction-cache']).toBe('miss');
    expect(upstream.count(OPENAI_PATH)).toBe(before + 1);
    // Two keys of one account share its entries.
    const sameAccount = await t.key('model', {}, a.accountId);
    expect((await chat(t, sameAccount, body)).headers['x-junction-cache']).toBe('hit');
  });

  it('opts a key in with cache_ttl_seconds; a request’s ttl_seconds 0 keeps one call out; no header when off', async () => {
    const opted = await fundedKey(t, 'key-opt-in', { cacheTtlSeconds: 300 });
    expect((await chat(t, opted.key, question('key level'))).headers['x-junction-cache']).toBe('miss');
    expect((await chat(t, opted.key, question('key level'))).headers['x-junction-cache']).toBe('hit');
    const out = await chat(t, opted.key, { ...question('key level'), cache: { ttl_seconds: 0 } });
    expect(out.headers['x-junction-cache']).toBeUndefined();

    const plain = await fundedKey(t, 'no-cache');
    const before = upstream.count(OPENAI_PATH);
    for (let call = 0; call < 2; call += 1) expect((await chat(t, plain.key, question('never cached'))).headers['x-junction-cache']).toBeUndefined();
    expect(upstream.count(OPENAI_PATH)).toBe(before + 2);
  });

  it('expires an entry after its ttl, and the sweep deletes expired rows', async () => {
    const { key, accountId } = await fundedKey(t, 'expiry');
    const body = { ...question('expire me'), cache: { ttl_seconds: 30 } };
    expect((await chat(t, key, body)).headers['x-junction-cache']).toBe('miss');
    clock += 29_000;
    expect((await chat(t, key, body)).headers['x-junction-cache']).toBe('hit');
    clock += 2_000;
    const before = upstream.count(OPENAI_PATH);
    expect((await chat(t, key, body)).headers['x-junction-cache']).toBe('miss');
    expect(upstream.count(OPENAI_PATH)).toBe(before + 1);

    // The miss stored the answer again for 30 s; past that, the sweep removes it.
    const stored = async () => Number((await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM response_cache WHERE account_id = $1', [accountId])).rows[0]?.n);
    await waitFor(async () => (await stored()) === 1);
    clock += 31_000;
    const { ResponseCache } = await import('../../../src/pipeline/response-cache.ts');
    const sweeper = new ResponseCache({ db: t.services.db, now, hitPriceFraction: 0 });
    expect(await sweeper.sweep()).toBeGreaterThanOrEqual(1);
    expect(await stored()).toBe(0);
  });

  it('stores in the database, so another process (no in-memory entry) hits too', async () => {
    const { key, accountId } = await fundedKey(t, 'shared-store');
    await chat(t, key, { ...question('kept in the table'), cache: { ttl_seconds: 60 } });
    const { ResponseCache } = await import('../../../src/pipeline/response-cache.ts');
    const { responseCacheKey } = await import('../../../src/pipeline/response-cache-key.ts');
    const model = resolveModel(t.services.catalog, MODEL);
    if (!model) throw new Error('model missing from the catalog');
    const hash = responseCacheKey([model], { messages: [{ role: 'user', content: [{ type: 'text', text: 'kept in the table' }] }] });
    const other = new ResponseCache({ db: t.services.db, now, hitPriceFraction: 0, memoryEntries: 0 });
    await waitFor(async () => (await other.lookup(accountId, hash)) !== undefined);
    const hit = await other.lookup(accountId, hash);
    expect(hit?.model).toBe(MODEL);
    expect(await other.lookup((await fundedKey(t, 'stranger')).accountId, hash)).toBeUndefined();
  });

  it('keeps no answer beyond the entry bound, and none that did not end on its own', async () => {
    const { accountId } = await fundedKey(t, 'bounded');
    const { ResponseCache } = await import('../../../src/pipeline/response-cache.ts');
    const cache = new ResponseCache({ db: t.services.db, now, hitPriceFraction: 0, maxEntryBytes: 2_000 });
    const answer = (text: string, finish: 'stop' | 'error' = 'stop') => ({
      kind: 'response' as const,
      response: { id: 'r', model: 'm', content: [{ type: 'text' as const, text }], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: { unified: finish, raw: undefined } },
    });
    expect(await cache.store(accountId, 'small', MODEL, answer('fits'), 60)).toBe(true);
    expect(await cache.store(accountId, 'large', MODEL, answer('x'.repeat(2_000)), 60)).toBe(false);
    expect(await cache.store(accountId, 'failed', MODEL, answer('cut', 'error'), 60)).toBe(false);
    const kept = await t.services.db.query<{ request_hash: string }>('SELECT request_hash FROM response_cache WHERE account_id = $1', [accountId]);
    expect(kept.rows.map((row) => row.request_hash)).toEqual(['small']);
    expect(await cache.lookup(accountId, 'large')).toBeUndefined();
  });

  it('serves a plain call from a streamed answer and a stream from a plain one', async () => {
    const { key } = await fundedKey(t, 'cross-mode');
    const cache = { ttl_seconds: 60 };
    const streamed = await chat(t, key, { ...question('streamed first'), cache, stream: true, stream_options: { include_usage: true } });
    expect(streamed.headers['x-junction-cache']).toBe('miss');
    expect(streamText(streamed.body)).toBe('echo: streamed first');
    const plain = await chat(t, key, { ...question('streamed first'), cache });
    expect(plain.headers['x-junction-cache']).toBe('hit');
    expect(plain.json().choices[0].message.content).toBe('echo: streamed first');
    expect(plain.json().usage).toMatchObject({ prompt_tokens: FAKE_USAGE.openai.prompt, completion_tokens: FAKE_USAGE.openai.completion, cost: 0 });

    await chat(t, key, { ...question('plain first'), cache });
    const before = upstream.count(OPENAI_PATH);
    const replayed = await chat(t, key, { ...question('plain first'), cache, stream: true, stream_options: { include_usage: true } });
    expect(replayed.headers['x-junction-cache']).toBe('hit');
    expect(replayed.headers['content-type']).toContain('text/event-stream');
    expect(streamText(replayed.body)).toBe('echo: plain first');
    expect(replayed.body).toContain('"cost":0');
    expect(replayed.body.trim().endsWith('data: [DONE]')).toBe(true);
    expect(upstream.count(OPENAI_PATH)).toBe(before);
  });

  it('takes the same field on /v1/messages and generateContent, and a replayed stream there costs nothing too', async () => {
    const { key } = await fundedKey(t, 'native-formats');
    const headers = { ...bearer(key), 'anthropic-version': '2023-06-01' };
    const messages = (stream: boolean) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers,
        payload: { model: 'anthropic/claude-sonnet-4-5', max_tokens: 50, stream, cache: { ttl_seconds: 60 }, ...question('native messages') },
      });
    const gemini = (stream: boolean) =>
      t.app.inject({
        method: 'POST',
        url: `/v1beta/models/google/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers,
        payload: { cache: { ttl_seconds: 60 }, contents: [{ role: 'user', parts: [{ text: 'native gemini' }] }] },
      });
    const before = upstream.requests.length;
    expect((await messages(false)).headers['x-junction-cache']).toBe('miss');
    expect(upstream.requests.at(-1)?.body).not.toHaveProperty('cache');
    const streamedMessages = await messages(true);
    expect(streamedMessages.headers['x-junction-cache']).toBe('hit');
    expect(streamedMessages.body).toMatch(/"type":"message_delta".*"cost":0[,}]/);
    expect((await gemini(false)).headers['x-junction-cache']).toBe('miss');
    expect(upstream.requests.at(-1)?.body).not.toHaveProperty('cache');
    const streamedGemini = await gemini(true);
    expect(streamedGemini.headers['x-junction-cache']).toBe('hit');
    expect(streamedGemini.body).toMatch(/"usageMetadata":\{[^}]*"cost":0[,}]/);
    expect(upstream.requests.length).toBe(before + 2);
  });

  it('refuses a malformed cache field by name', async () => {
    const { key } = await fundedKey(t, 'malformed');
    for (const cache of [{ ttl_seconds: -1 }, { ttl_seconds: 'soon' }, { ttl: 5 }, 'yes']) {
      const response = await chat(t, key, { ...question('bad'), cache });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.param).toMatch(/^cache/);
    }
  });

  it('sets cache_ttl_seconds through /v1/keys with the key rules', async () => {
    const provisioning = await t.key('provisioning');
    const created = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(provisioning), payload: { name: 'cached', cache_ttl_seconds: 120 } });
    expect(created.statusCode).toBe(201);
    expect(created.json().data.cache_ttl_seconds).toBe(120);
    const id = created.json().data.id as string;
    const cleared = await t.app.inject({ method: 'PATCH', url: `/v1/keys/${id}`, headers: bearer(provisioning), payload: { cache_ttl_seconds: null } });
    expect(cleared.json().data.cache_ttl_seconds).toBeNull();
    const refused = await t.app.inject({ method: 'PATCH', url: `/v1/keys/${id}`, headers: bearer(provisioning), payload: { cache_ttl_seconds: 0 } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.param).toBe('cache_ttl_seconds');
  });
});

describe('response cache: a stream the client cuts is not kept', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startApp();
    baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t.close());

  it('stores nothing for a stream the client closed, and the next call asks the provider', async () => {
    const { key, accountId } = await fundedKey(t, 'cut');
    const body = JSON.stringify({ model: MODEL, stream: true, cache: { ttl_seconds: 60 }, ...question('a slow answer') });
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body, signal: controller.signal });
    expect(response.headers.get('x-junction-cache')).toBe('miss');
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await waitFor(async () => (await rows(t, accountId)).length === 1);
    expect((await t.services.db.query('SELECT 1 FROM response_cache WHERE account_id = $1', [accountId])).rows).toHaveLength(0);

    const before = upstream.count(OPENAI_PATH);
    const again = await fetch(`${baseUrl}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body });
    expect(again.headers.get('x-junction-cache')).toBe('miss');
    expect(streamText(await again.text())).toBe('echo: a slow answer');
    expect(upstream.count(OPENAI_PATH)).toBe(before + 1);
  });
});

describe('response cache: a configured hit price', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ JUNCTION_CACHE_HIT_PRICE_FRACTION: '0.25' });
  });
  afterAll(async () => t.close());

  it('bills a hit at the fraction of the answer’s price, rounded up to a µUSD', async () => {
    const { key, accountId } = await fundedKey(t, 'fraction');
    const body = { ...question('priced hit'), cache: { ttl_seconds: 60 } };
    await chat(t, key, body);
    const hit = await chat(t, key, body);
    expect(hit.headers['x-junction-cache']).toBe('hit');
    const model = resolveModel(t.services.catalog, MODEL);
    if (!model) throw new Error('model missing from the catalog');
    const full = computeChatCost(model, { inputTokens: FAKE_USAGE.openai.prompt, cachedInputTokens: FAKE_USAGE.openai.cached, outputTokens: FAKE_USAGE.openai.completion });
    const logged = await rows(t, accountId);
    expect(logged.map((row) => Number(row.cost_micros))).toEqual([full, Math.ceil(full * 0.25)]);
    expect(hit.json().usage.cost).toBe(Math.ceil(full * 0.25) / 1_000_000);
  });
});

/** The text of a chat-completions SSE body. */
function streamText(body: string): string {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> })
    .map((chunk) => chunk.choices?.[0]?.delta?.content ?? '')
    .join('');
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not met');
}
