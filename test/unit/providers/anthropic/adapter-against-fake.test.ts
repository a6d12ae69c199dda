import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamEvent } from '../../../../src/core/model-types.ts';
import type { ProviderAdapter } from '../../../../src/providers/adapter.ts';
import { createAnthropicAdapter } from '../../../../src/providers/anthropic/anthropic-adapter.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';
import { startFakeAnthropicUpstream, type FakeUpstream } from '../../../support/fake-anthropic-upstream.ts';

let fake: FakeUpstream;
let adapter: ProviderAdapter;
const options = () => ({ signal: new AbortController().signal });

beforeAll(async () => {
  fake = await startFakeAnthropicUpstream();
  adapter = createAnthropicAdapter({ id: 'anthropic', kind: 'anthropic', baseUrl: fake.url, apiKey: 'sk-ant-test', timeoutMs: 5_000 });
});
afterAll(() => fake.close());

const ask = (model: string, text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model,
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  ...extra,
});

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
};

describe('Anthropic adapter against the fake upstream', () => {
  it('generates a plain answer and sends the auth and version headers', async () => {
    const response = await adapter.generateChat(ask('claude-echo', 'hello there friend'), options());
    expect(response.content).toEqual([{ type: 'text', text: 'hello there friend' }]);
    // 18 characters → ceil(18 / 4) = 5 input tokens; 3 words out.
    expect(response.usage).toEqual({ inputTokens: 5, outputTokens: 3 });
    expect(response.finishReason).toEqual({ unified: 'stop', raw: 'end_turn' });
    const recorded = fake.requests.at(-1);
    expect(recorded?.path).toBe('/v1/messages');
    expect(recorded?.headers['x-api-key']).toBe('sk-ant-test');
    expect(recorded?.headers['anthropic-version']).toBe('2023-06-01');
    expect(recorded?.body).toEqual({
      model: 'claude-echo',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there friend' }] }],
    });
  });

  it('streams a plain answer with usage (cache reads counted in input) and finish', async () => {
    const events = await collect(adapter.streamChat(ask('claude-echo-cached', 'one two three four'), options()));
    expect(
      events
        .filter((event) => event.type === 'text-delta')
        .map((event) => event.delta)
        .join(''),
    ).toBe('one two three four');
    // 18 characters → 5 tokens, of which floor(5 / 2) = 2 are reported as cache reads.
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 4, cachedInputTokens: 2 } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' } },
    ]);
    expect(fake.requests.at(-1)?.body).toMatchObject({ stream: true });
  });

  it('runs a tool round trip, streamed then not', async () => {
    const request = ask('claude-tool', 'Paris', { tools: [weatherTool] });
    const events = await collect(adapter.streamChat(request, options()));
    expect(events.filter((event) => event.type.startsWith('tool-call'))).toEqual([
      { type: 'tool-call-start', index: 0, id: 'toolu_fake_0', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Pari' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 's","days":42}' },
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' } });

    const second = await adapter.generateChat(
      {
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_fake_0', name: 'get_weather', arguments: '{"city":"Paris","days":42}' }] },
          { role: 'tool', toolCallId: 'toolu_fake_0', content: 'sunny' },
        ],
      },
      options(),
    );
    expect(second.content).toEqual([{ type: 'text', text: 'The tool said: sunny' }]);
    expect(second.finishReason.unified).toBe('stop');
  });

  it('streams thinking with its signature and bills thinking as output', async () => {
    const events = await collect(adapter.streamChat(ask('claude-thinking', 'why', { reasoning: { effort: 'low' } }), options()));
    expect(events.filter((event) => event.type.startsWith('reasoning'))).toEqual([
      { type: 'reasoning-delta', delta: 'Let ' },
      { type: 'reasoning-delta', delta: 'me ' },
      { type: 'reasoning-delta', delta: 'think ' },
      { type: 'reasoning-delta', delta: 'about ' },
      { type: 'reasoning-delta', delta: 'it.' },
      { type: 'reasoning-signature', signature: expect.stringMatching(/^sig_[0-9a-f]{16}$/) },
    ]);
    expect(events.find((event) => event.type === 'usage')).toEqual({ type: 'usage', usage: { inputTokens: 1, outputTokens: 6 } });
    expect(fake.requests.at(-1)?.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4096 }, max_tokens: 8192 });
  });

  it('maps HTTP errors to UpstreamError with status, retryability and Retry-After', async () => {
    const rateLimited = await adapter.generateChat(ask('claude-fail-429', 'hi'), options()).catch((error: unknown) => error);
    expect(rateLimited).toBeInstanceOf(UpstreamError);
    expect(rateLimited).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterSeconds: 1,
      upstreamMessage: 'rate_limit_error: Number of requests has exceeded your rate limit',
    });

    const failOnce = ask('claude-fail-500-1', 'back again');
    await expect(collect(adapter.streamChat(failOnce, options()))).rejects.toMatchObject({ status: 500, retryable: true });
    expect((await adapter.generateChat(failOnce, options())).content).toEqual([{ type: 'text', text: 'back again' }]);
    expect(fake.attempts('claude-fail-500-1')).toBe(2);

    const unauthenticated = createAnthropicAdapter({ id: 'anthropic', kind: 'anthropic', baseUrl: fake.url });
    await expect(unauthenticated.generateChat(ask('claude-echo', 'hi'), options())).rejects.toMatchObject({
      status: 401,
      retryable: false,
    });
  });

  it('surfaces a mid-stream error event and a cut connection as UpstreamError after the partial events', async () => {
    const overloaded: ModelStreamEvent[] = [];
    const runOverloaded = async () => {
      for await (const event of adapter.streamChat(ask('claude-stream-error', 'hi'), options())) overloaded.push(event);
    };
    await expect(runOverloaded()).rejects.toMatchObject({ status: 529, retryable: true });
    expect(overloaded.map((event) => event.type)).toEqual(['response-metadata']);

    const partial: ModelStreamEvent[] = [];
    const runCut = async () => {
      for await (const event of adapter.streamChat(ask('claude-fail-midstream', 'alpha beta'), options())) partial.push(event);
    };
    await expect(runCut()).rejects.toMatchObject({ name: 'UpstreamError', status: 0, retryable: true });
    expect(partial).toEqual([
      { type: 'response-metadata', id: expect.stringMatching(/^msg_fake_/), model: 'claude-fail-midstream' },
      { type: 'text-delta', delta: 'alpha ' },
    ]);
  });

  it('counts tokens through /messages/count_tokens without sampling fields', async () => {
    const counted = await adapter.countTokens?.(ask('claude-echo', 'twelve chars', { temperature: 0.5 }), options());
    expect(counted).toEqual({ inputTokens: 3 });
    expect(fake.requests.at(-1)).toMatchObject({
      path: '/v1/messages/count_tokens',
      body: { model: 'claude-echo', messages: [{ role: 'user', content: [{ type: 'text', text: 'twelve chars' }] }] },
    });
    expect(fake.requests.at(-1)?.body).not.toHaveProperty('max_tokens');
    expect(fake.requests.at(-1)?.body).not.toHaveProperty('temperature');
  });
});
