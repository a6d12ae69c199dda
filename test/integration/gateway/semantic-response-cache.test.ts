import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/account-repository.ts';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { ResponseCache } from '../../../src/pipeline/response-cache.ts';
import { bagOfWordsSimilarity } from '../../support/bag-of-words-embedding.ts';
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { bearer, startTestApp, type TestApp } from '../../support/test-app.ts';

/**
 * Semantic matching of the response cache through the real app, with the fake OpenAI
 * upstream embedding by bag of words (similar questions close, others far): a paraphrase
 * hits and says how similar it was, everything else about the request must still match
 * exactly, entries stay per account, the threshold holds, and the embedding call is a
 * billed call of the caller's key. Off unless the deployment names an embedding model.
 */
const MODEL = 'openai/gpt-4o-mini';
const EMBEDDING_MODEL = 'openai/text-embedding-3-small';
const THRESHOLD = 0.9;

const QUESTION = 'What is the capital of France?';
/** Shares all six words of QUESTION and adds one: similarity 6 / sqrt(42), above THRESHOLD. */
const PARAPHRASE = 'what is the capital of France, please';
/** Shares six of nine words: similarity 6 / sqrt(54), below THRESHOLD. */
const LOOSE_PARAPHRASE = 'Please tell me what the capital of France is';

let upstream: FakeOpenAIUpstream;
let clock = Date.parse('2026-03-02T10:00:00Z');
const now = () => new Date(clock);

async function startApp(env: Record<string, string>): Promise<TestApp> {
  const providerEnv = { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: upstream.url, ...env };
  return startTestApp(providerEnv, { env: providerEnv, now });
}

async function fundedKey(t: TestApp, name: string): Promise<{ key: string; accountId: string }> {
  const account = await createAccount(t.services.db, name);
  await runAdminCommand(t.services, { command: 'credits.grant', account: account.id, amount: '5', currency: 'USD' });
  return { key: await t.key('model', {}, account.id), accountId: account.id };
}

const chat = (t: TestApp, key: string, text: string, extra: Record<string, unknown> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: bearer(key),
    payload: { model: MODEL, messages: [{ role: 'user', content: text }], cache: { ttl_seconds: 60, semantic: true }, ...extra },
  });

const count = (path: string) => upstream.requests.filter((request) => request.path === path).length;
const chats = () => count('/v1/chat/completions');
const embeddings = () => count('/v1/embeddings');

/** Waits for the miss's answer to reach the table (the store is not awaited by the call). */
async function stored(t: TestApp, accountId: string, rows: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const result = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM response_cache WHERE account_id = $1 AND embedding IS NOT NULL', [accountId]);
    if (result.rows[0]?.n === rows) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`response_cache never held ${rows} semantic rows for the account`);
}

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream({ embeddings: 'bag-of-words' });
});
afterAll(async () => upstream.close());

describe('semantic response cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ JUNCTION_SEMANTIC_CACHE_MODEL: EMBEDDING_MODEL, JUNCTION_SEMANTIC_CACHE_THRESHOLD: String(THRESHOLD) });
  });
  afterAll(async () => t.close());

  it('answers a paraphrase from the cache and reports its similarity; the embedding calls are billed to the key', async () => {
    const { key, accountId } = await fundedKey(t, 'paraphrase');
    const [chatsBefore, embeddingsBefore] = [chats(), embeddings()];
    const first = await chat(t, key, QUESTION);
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-junction-cache']).toBe('miss');
    expect(first.headers['x-junction-cache-similarity']).toBeUndefined();
    expect([chats(), embeddings()]).toEqual([chatsBefore + 1, embeddingsBefore + 1]);
    // The embedding call carried the conversation's text, never Junction's cache field.
    const embedded = upstream.requests.filter((request) => request.path === '/v1/embeddings').at(-1)?.body;
    expect(embedded).toMatchObject({ model: 'text-embedding-3-small', input: [QUESTION] });
    await stored(t, accountId, 1);

    const second = await chat(t, key, PARAPHRASE);
    expect(second.statusCode).toBe(200);
    expect(second.headers['x-junction-cache']).toBe('hit');
    const expected = bagOfWordsSimilarity(QUESTION, PARAPHRASE);
    expect(expected).toBeGreaterThan(THRESHOLD);
    expect(Number(second.headers['x-junction-cache-similarity'])).toBeCloseTo(expected, 3);
    expect(second.json().choices[0].message.content).toBe(first.json().choices[0].message.content);
    expect(second.json().usage.cost).toBe(0);
    // The hit asked the embedding model, never the chat model.
    expect([chats(), embeddings()]).toEqual([chatsBefore + 1, embeddingsBefore + 2]);

    await t.services.settlements.drain();
    const rows = await t.services.db.query<{ endpoint: string; model: string; cost_micros: string; cache_hit: boolean }>(
      'SELECT endpoint, model, cost_micros, cache_hit FROM usage_log WHERE account_id = $1 ORDER BY created_at, id',
      [accountId],
    );
    const embeddingRows = rows.rows.filter((row) => row.model === EMBEDDING_MODEL);
    expect(embeddingRows).toHaveLength(2);
    for (const row of embeddingRows) {
      expect(row.endpoint).toBe('cache.semantic');
      expect(Number(row.cost_micros)).toBeGreaterThan(0);
    }
    expect(rows.rows.filter((row) => row.model === MODEL).map((row) => row.cache_hit)).toEqual([false, true]);
  });

  it('serves a streamed paraphrase from an entry a plain call stored', async () => {
    const { key, accountId } = await fundedKey(t, 'stream');
    expect((await chat(t, key, 'How many legs does a spider have?')).headers['x-junction-cache']).toBe('miss');
    await stored(t, accountId, 1);
    const before = chats();
    const streamed = await chat(t, key, 'how many legs does a spider have', { stream: true });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers['x-junction-cache']).toBe('hit');
    expect(Number(streamed.headers['x-junction-cache-similarity'])).toBeCloseTo(1, 3);
    expect(streamed.body).toContain('data: [DONE]');
    expect(chats()).toBe(before);
  });

  it('misses on a different prompt, a paraphrase below the threshold, another model or other tools', async () => {
    const { key, accountId } = await fundedKey(t, 'misses');
    expect((await chat(t, key, QUESTION)).headers['x-junction-cache']).toBe('miss');
    await stored(t, accountId, 1);
    const before = chats();
    const different = await chat(t, key, 'How do I bake sourdough bread at home?');
    expect(different.headers['x-junction-cache']).toBe('miss');
    expect(bagOfWordsSimilarity(QUESTION, LOOSE_PARAPHRASE)).toBeLessThan(THRESHOLD);
    expect((await chat(t, key, LOOSE_PARAPHRASE)).headers['x-junction-cache']).toBe('miss');
    expect((await chat(t, key, PARAPHRASE, { model: 'openai/gpt-4o' })).headers['x-junction-cache']).toBe('miss');
    const tools = [{ type: 'function', function: { name: 'lookup', description: 'Looks a city up.', parameters: { type: 'object', properties: {} } } }];
    expect((await chat(t, key, PARAPHRASE, { tools })).headers['x-junction-cache']).toBe('miss');
    expect((await chat(t, key, PARAPHRASE, { temperature: 0.3 })).headers['x-junction-cache']).toBe('miss');
    expect(chats()).toBe(before + 5);
  });

  it('takes the same field on /v1/messages and generateContent, each with its similarity header', async () => {
    const { key, accountId } = await fundedKey(t, 'native-formats');
    const headers = { ...bearer(key), 'anthropic-version': '2023-06-01' };
    const cache = { ttl_seconds: 60, semantic: true };
    const messages = (text: string) => t.app.inject({ method: 'POST', url: '/v1/messages', headers, payload: { model: MODEL, max_tokens: 50, cache, messages: [{ role: 'user', content: text }] } });
    const gemini = (text: string) => t.app.inject({ method: 'POST', url: `/v1beta/models/${MODEL}:generateContent`, headers, payload: { cache, contents: [{ role: 'user', parts: [{ text }] }] } });
    expect((await messages(QUESTION)).headers['x-junction-cache']).toBe('miss');
    await stored(t, accountId, 1);
    const viaMessages = await messages(PARAPHRASE);
    expect(viaMessages.headers['x-junction-cache']).toBe('hit');
    expect(Number(viaMessages.headers['x-junction-cache-similarity'])).toBeCloseTo(bagOfWordsSimilarity(QUESTION, PARAPHRASE), 3);
    expect((await gemini('Name the largest planet of the solar system')).headers['x-junction-cache']).toBe('miss');
    await stored(t, accountId, 2);
    const viaGemini = await gemini('please name the largest planet of the solar system');
    expect(viaGemini.headers['x-junction-cache']).toBe('hit');
    expect(Number(viaGemini.headers['x-junction-cache-similarity'])).toBeGreaterThan(THRESHOLD);
  });

  it('never answers one account from another account’s entry', async () => {
    const a = await fundedKey(t, 'account-a');
    const b = await fundedKey(t, 'account-b');
    expect((await chat(t, a.key, QUESTION)).headers['x-junction-cache']).toBe('miss');
    await stored(t, a.accountId, 1);
    const before = chats();
    expect((await chat(t, b.key, PARAPHRASE)).headers['x-junction-cache']).toBe('miss');
    expect(chats()).toBe(before + 1);
    await stored(t, b.accountId, 1);
    // Account a's own entry answers its paraphrase; b's exact copy of the paraphrase is not a's.
    const hit = await chat(t, a.key, PARAPHRASE);
    expect(hit.headers['x-junction-cache']).toBe('hit');
    expect(Number(hit.headers['x-junction-cache-similarity'])).toBeLessThan(1);
  });

  it('matches only calls that asked for it, and only within the ttl; the sweep removes expired rows', async () => {
    const { key, accountId } = await fundedKey(t, 'expiry');
    expect((await chat(t, key, QUESTION)).headers['x-junction-cache']).toBe('miss');
    await stored(t, accountId, 1);
    const before = embeddings();
    // Opted into the cache but not into matching by meaning: exact only, no embedding call.
    expect((await chat(t, key, PARAPHRASE, { cache: { ttl_seconds: 60 } })).headers['x-junction-cache']).toBe('miss');
    expect(embeddings()).toBe(before);
    // An exact hit needs no embedding either.
    expect((await chat(t, key, QUESTION)).headers['x-junction-cache']).toBe('hit');
    expect(embeddings()).toBe(before);

    clock += 61_000;
    expect((await chat(t, key, PARAPHRASE, { cache: { ttl_seconds: 1, semantic: true } })).headers['x-junction-cache']).toBe('miss');
    // A miss is stored after it is answered: the sweep must find it there.
    await stored(t, accountId, 2);
    clock += 2_000;
    const cache = new ResponseCache({ db: t.services.db, now, hitPriceFraction: 0 });
    expect(await cache.sweep()).toBeGreaterThanOrEqual(3);
    const left = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM response_cache WHERE account_id = $1', [accountId]);
    expect(left.rows[0]?.n).toBe(0);
  });
});

describe('semantic response cache, off by default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({});
  });
  afterAll(async () => t.close());

  it('matches exactly only and makes no embedding call without JUNCTION_SEMANTIC_CACHE_MODEL', async () => {
    const { key, accountId } = await fundedKey(t, 'off');
    const [chatsBefore, embeddingsBefore] = [chats(), embeddings()];
    expect((await chat(t, key, QUESTION)).headers['x-junction-cache']).toBe('miss');
    expect((await chat(t, key, QUESTION)).headers['x-junction-cache']).toBe('hit');
    const paraphrase = await chat(t, key, PARAPHRASE);
    expect(paraphrase.headers['x-junction-cache']).toBe('miss');
    expect(paraphrase.headers['x-junction-cache-similarity']).toBeUndefined();
    expect([chats(), embeddings()]).toEqual([chatsBefore + 2, embeddingsBefore]);
    const semanticRows = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM response_cache WHERE account_id = $1 AND embedding IS NOT NULL', [accountId]);
    expect(semanticRows.rows[0]?.n).toBe(0);
  });

  it('refuses a cache field with an unknown member or a non-boolean semantic', async () => {
    const { key } = await fundedKey(t, 'invalid');
    const bad = await chat(t, key, QUESTION, { cache: { ttl_seconds: 60, semantic: 'yes' } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('semantic response cache, embedding model unusable', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Not an embedding model: every embedding call is refused at admission.
    t = await startApp({ JUNCTION_SEMANTIC_CACHE_MODEL: MODEL });
  });
  afterAll(async () => t.close());

  it('answers the call as an exact-only miss when its prompt cannot be embedded', async () => {
    const { key, accountId } = await fundedKey(t, 'unembeddable');
    const before = chats();
    const first = await chat(t, key, QUESTION);
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-junction-cache']).toBe('miss');
    expect((await chat(t, key, PARAPHRASE)).headers['x-junction-cache']).toBe('miss');
    expect((await chat(t, key, QUESTION)).headers['x-junction-cache']).toBe('hit');
    expect(chats()).toBe(before + 2);
    const semanticRows = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM response_cache WHERE account_id = $1 AND embedding IS NOT NULL', [accountId]);
    expect(semanticRows.rows[0]?.n).toBe(0);
  });
});
