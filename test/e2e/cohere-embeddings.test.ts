import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { bagOfWordsVector } from '../support/bag-of-words-embedding.ts';
import { type FakeCohere, startFakeCohereUpstream } from '../support/fake-cohere-upstream.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Cohere's embedding models behind /v1/embeddings and Gemini's embed methods, through the
 * official openai and @google/genai clients: a fake of Cohere's v2 Embed API that checks
 * the bearer key, the input type, the 96-text cap and output_dimension as Cohere does,
 * and bills its own token count.
 */
const COHERE_KEY = 'cohere-embed-key';
let cohere: FakeCohere;
let t: TestApp;
let openai: OpenAI;
let google: GoogleGenAI;

beforeAll(async () => {
  cohere = await startFakeCohereUpstream({ apiKeys: [COHERE_KEY] });
  const env = { COHERE_API_KEY: COHERE_KEY, COHERE_BASE_URL: cohere.url };
  t = await startTestApp(env, { env, retry: { retries: 0, baseDelayMs: 1, maxRetryAfterMs: 50 } });
  const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  await runAdminCommand(t.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  const key = await t.key('model');
  openai = new OpenAI({ apiKey: key, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl } });
});

afterAll(async () => {
  await t?.close();
  await cohere?.close();
});

const embedCalls = () => cohere.requests.filter((request) => request.path === '/v2/embed');

async function usageRows(model: string) {
  await t.services.settlements.drain();
  const { rows } = await t.services.db.query<{ provider: string; endpoint: string; input_tokens: number; cost_micros: string; status: string }>(
    'SELECT provider, endpoint, input_tokens, cost_micros, status FROM usage_log WHERE model = $1 ORDER BY created_at',
    [model],
  );
  return rows;
}

describe('Cohere embeddings through the openai SDK', () => {
  it('embeds with /v2/embed as search documents, the vectors in order and the billed tokens priced at $0.12 per million', async () => {
    const before = embedCalls().length;
    const texts = ['the quick brown fox', 'jumps over the lazy dog'];
    const result = await openai.embeddings.create({ model: 'cohere/embed-v4.0', input: texts, dimensions: 256 });
    // The SDK asks for base64 and decodes it: float32 of the fake's bag-of-words vectors.
    expect(result.data.map((item) => item.index)).toEqual([0, 1]);
    expect(result.data.map((item) => item.embedding)).toEqual(texts.map((text) => bagOfWordsVector(text, 256)));
    expect(result.model).toBe('cohere/embed-v4.0');
    const calls = embedCalls().slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${COHERE_KEY}`);
    expect(calls[0]?.body).toEqual({ model: 'embed-v4.0', texts, input_type: 'search_document', embedding_types: ['float'], output_dimension: 256 });
    // The fake bills ceil(characters / 4) per text: 5 + 6.
    expect(result.usage).toMatchObject({ prompt_tokens: 11, total_tokens: 11 });
    const row = (await usageRows('cohere/embed-v4.0')).at(-1);
    expect(row).toMatchObject({ provider: 'cohere', endpoint: 'embeddings', input_tokens: 11, status: 'success' });
    expect(Number(row?.cost_micros)).toBe(Math.ceil((11 * 120_000) / 1_000_000));
  });

  it('splits more than 96 inputs into calls of 96, the usage summed over them', async () => {
    const before = embedCalls().length;
    const texts = Array.from({ length: 100 }, (_, index) => `text number ${index}`);
    const result = await openai.embeddings.create({ model: 'cohere/embed-english-v3.0', input: texts, encoding_format: 'float' });
    expect(result.data).toHaveLength(100);
    expect(result.data[99]?.embedding).toEqual(bagOfWordsVector('text number 99'));
    expect(
      embedCalls()
        .slice(before)
        .map((call) => (call.body['texts'] as string[]).length),
    ).toEqual([96, 4]);
    const billed = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    expect(result.usage.prompt_tokens).toBe(billed);
    const row = (await usageRows('cohere/embed-english-v3.0')).at(-1);
    expect(row).toMatchObject({ input_tokens: billed });
    expect(Number(row?.cost_micros)).toBe(Math.ceil((billed * 100_000) / 1_000_000));
  });

  it('passes on what Cohere refuses as the caller’s 400: output_dimension on an Embed 3 model', async () => {
    const error = await openai.embeddings.create({ model: 'cohere/embed-multilingual-v3.0', input: 'hallo', dimensions: 256 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('output_dimension is only supported');
    const refused = (await usageRows('cohere/embed-multilingual-v3.0')).at(-1);
    expect(refused?.status).toBe('upstream_error');
    expect(Number(refused?.cost_micros)).toBe(0);
  });
});

describe('Cohere embeddings through the @google/genai client', () => {
  it("maps Gemini's task type to Cohere's input type", async () => {
    const before = embedCalls().length;
    const result = await google.models.embedContent({ model: 'cohere/embed-english-light-v3.0', contents: ['where is the fox?', 'and the dog?'], config: { taskType: 'RETRIEVAL_QUERY' } });
    expect(result.embeddings?.map((embedding) => embedding.values)).toEqual([bagOfWordsVector('where is the fox?'), bagOfWordsVector('and the dog?')]);
    const calls = embedCalls().slice(before);
    expect(calls.map((call) => call.body['input_type'])).toEqual(['search_query']);
    expect(calls[0]?.body['texts']).toEqual(['where is the fox?', 'and the dog?']);
  });
});
