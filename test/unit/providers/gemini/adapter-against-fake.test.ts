import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamEvent } from '../../../../src/core/model-types.ts';
import type { ProviderAdapter } from '../../../../src/providers/adapter.ts';
import { createGeminiAdapter } from '../../../../src/providers/gemini/gemini-adapter.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';
import { startFakeGeminiUpstream, type FakeUpstream } from '../../../support/fake-gemini-upstream.ts';

let fake: FakeUpstream;
let adapter: ProviderAdapter;
const options = () => ({ signal: new AbortController().signal });

beforeAll(async () => {
  fake = await startFakeGeminiUpstream();
  adapter = createGeminiAdapter({ id: 'google', kind: 'gemini', baseUrl: fake.url, apiKey: 'AIza-test', timeoutMs: 5_000 });
});
afterAll(() => fake.close());

const ask = (model: string, text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model,
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  ...extra,
});

async function collect(stream: AsyncIterable<ModelStreamEvent>, events: ModelStreamEvent[] = []): Promise<ModelStreamEvent[]> {
  for await (const event of stream) events.push(event);
  return events;
}

const weatherTool = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};

describe('Gemini adapter against the fake upstream', () => {
  it('generates a plain answer with the key in a header, never in the URL', async () => {
    const response = await adapter.generateChat(ask('gemini-echo', 'hello there friend'), options());
    expect(response).toEqual({
      id: expect.stringMatching(/^fake_/),
      model: 'gemini-echo',
      content: [{ type: 'text', text: 'hello there friend' }],
      usage: { inputTokens: 5, outputTokens: 3 },
      finishReason: { unified: 'stop', raw: 'STOP' },
    });
    const recorded = fake.requests.at(-1);
    expect(recorded?.path).toBe('/v1beta/models/gemini-echo:generateContent');
    expect(recorded?.headers['x-goog-api-key']).toBe('AIza-test');
    expect(recorded?.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hello there friend' }] }] });
  });

  it('streams over alt=sse', async () => {
    const events = await collect(adapter.streamChat(ask('gemini-echo', 'one two three', { maxOutputTokens: 2 }), options()));
    expect(events).toEqual([
      { type: 'response-metadata', id: expect.stringMatching(/^fake_/), model: 'gemini-echo' },
      { type: 'text-delta', delta: 'one ' },
      { type: 'text-delta', delta: 'two' },
      { type: 'usage', usage: { inputTokens: 4, outputTokens: 2 } },
      { type: 'finish', finishReason: { unified: 'length', raw: 'MAX_TOKENS' } },
    ]);
    expect(fake.requests.at(-1)?.path).toBe('/v1beta/models/gemini-echo:streamGenerateContent?alt=sse');
  });

  it('runs a function-call round trip; the tool result finds its function name from the call id', async () => {
    const request = ask('gemini-tool', 'Paris', { tools: [weatherTool] });
    const events = await collect(adapter.streamChat(request, options()));
    expect(events.filter((event) => event.type.startsWith('tool-call'))).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_0', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Paris"}' },
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'STOP' } });

    const second = await adapter.generateChat(
      {
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: [{ type: 'tool-call', id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
          { role: 'tool', toolCallId: 'call_0', content: 'sunny' },
        ],
      },
      options(),
    );
    expect(second.content).toEqual([{ type: 'text', text: 'The tool said: {"output":"sunny"}' }]);
    expect(fake.requests.at(-1)?.body).toMatchObject({
      contents: [
        { role: 'user', parts: [{ text: 'Paris' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
      ],
    });
  });

  it('returns thoughts and the signature when reasoning is asked for', async () => {
    const response = await adapter.generateChat(ask('gemini-thinking', 'why', { reasoning: { effort: 'medium' } }), options());
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'Let me think about it.' },
      { type: 'reasoning', text: '', signature: expect.stringMatching(/^sig_[0-9a-f]{16}$/) },
      { type: 'text', text: 'why' },
    ]);
    expect(response.usage).toEqual({ inputTokens: 1, outputTokens: 6, reasoningTokens: 5 });
    expect(fake.requests.at(-1)?.body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingBudget: 8192, includeThoughts: true } } });

    const events = await collect(adapter.streamChat(ask('gemini-thinking', 'why', { reasoning: { enabled: true } }), options()));
    expect(events.filter((event) => event.type.startsWith('reasoning')).map((event) => event.type)).toEqual(['reasoning-delta', 'reasoning-signature']);
  });

  it('maps HTTP errors to UpstreamError with status and retryability', async () => {
    const exhausted = await adapter.generateChat(ask('gemini-fail-429', 'hi'), options()).catch((error: unknown) => error);
    expect(exhausted).toBeInstanceOf(UpstreamError);
    expect(exhausted).toMatchObject({
      status: 429,
      retryable: true,
      upstreamMessage: 'RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).',
      // From the body's RetryInfo: Gemini sends no Retry-After header.
      retryAfterSeconds: 1,
    });

    const failTwice = ask('gemini-fail-500-2', 'finally');
    await expect(adapter.generateChat(failTwice, options())).rejects.toMatchObject({ status: 500, retryable: true });
    await expect(collect(adapter.streamChat(failTwice, options()))).rejects.toMatchObject({ status: 500 });
    expect((await adapter.generateChat(failTwice, options())).content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(fake.attempts('gemini-fail-500-2')).toBe(3);

    const keyless = createGeminiAdapter({ id: 'google', kind: 'gemini', baseUrl: fake.url });
    await expect(keyless.generateChat(ask('gemini-echo', 'hi'), options())).rejects.toMatchObject({ status: 403, retryable: false });
  });

  it('surfaces an in-stream error and a cut connection after the partial events', async () => {
    const overloaded: ModelStreamEvent[] = [];
    await expect(collect(adapter.streamChat(ask('gemini-stream-error', 'alpha beta'), options()), overloaded)).rejects.toMatchObject({
      status: 503,
      retryable: true,
    });
    expect(overloaded.map((event) => event.type)).toEqual(['response-metadata', 'text-delta']);

    const partial: ModelStreamEvent[] = [];
    await expect(collect(adapter.streamChat(ask('gemini-fail-midstream', 'alpha beta'), options()), partial)).rejects.toMatchObject({
      name: 'UpstreamError',
      status: 0,
      retryable: true,
    });
    expect(partial.filter((event) => event.type === 'text-delta')).toEqual([{ type: 'text-delta', delta: 'alpha ' }]);
  });

  it('embeds one input with embedContent and several with batchEmbedContents, estimating tokens', async () => {
    const embed = adapter.embed;
    if (embed === undefined) throw new Error('the Gemini adapter must embed');
    const one = await embed({ model: 'text-embedding-004', input: ['hello world'], taskType: 'RETRIEVAL_QUERY' }, options());
    expect(one.embeddings).toHaveLength(1);
    expect(one.embeddings[0]).toHaveLength(8);
    expect(one.usage).toEqual({ inputTokens: 3 });
    expect(fake.requests.at(-1)).toMatchObject({
      path: '/v1beta/models/text-embedding-004:embedContent',
      body: { content: { parts: [{ text: 'hello world' }] }, taskType: 'RETRIEVAL_QUERY' },
    });

    const many = await embed({ model: 'text-embedding-004', input: ['hello world', 'bye', 'hello world'], dimensions: 4 }, options());
    expect(many.embeddings.map((values) => values.length)).toEqual([4, 4, 4]);
    expect(many.embeddings[0]).toEqual(many.embeddings[2]);
    expect(many.embeddings[0]).not.toEqual(many.embeddings[1]);
    expect(many.embeddings[0]).toEqual(one.embeddings[0]?.slice(0, 4));
    expect(many.usage).toEqual({ inputTokens: 3 + 1 + 3 });
    expect(fake.requests.at(-1)?.path).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
    expect(fake.requests.at(-1)?.body).toEqual({
      requests: ['hello world', 'bye', 'hello world'].map((text) => ({
        model: 'models/text-embedding-004',
        content: { parts: [{ text }] },
        outputDimensionality: 4,
      })),
    });
  });

  it('splits more than 100 inputs into batches of 100', async () => {
    const embed = adapter.embed;
    if (embed === undefined) throw new Error('the Gemini adapter must embed');
    const before = fake.requests.length;
    const input = Array.from({ length: 205 }, (_, index) => `text ${index}`);
    const result = await embed({ model: 'text-embedding-004', input }, options());
    expect(result.embeddings).toHaveLength(205);
    const batches = fake.requests.slice(before).map((recorded) => (recorded.body as { requests: unknown[] }).requests.length);
    expect(batches).toEqual([100, 100, 5]);
  });

  it('counts tokens with the whole request, system instruction included', async () => {
    const request = ask('gemini-echo', 'twelve chars', { messages: [{ role: 'system', content: 'abcd' }, ...ask('x', 'twelve chars').messages] });
    expect(await adapter.countTokens?.(request, options())).toEqual({ inputTokens: 4 });
    expect(fake.requests.at(-1)).toMatchObject({
      path: '/v1beta/models/gemini-echo:countTokens',
      body: { generateContentRequest: { model: 'models/gemini-echo', systemInstruction: { parts: [{ text: 'abcd' }] } } },
    });
  });
});
