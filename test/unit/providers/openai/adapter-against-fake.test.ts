import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamEvent } from '../../../../src/core/model-types.ts';
import type { ProviderAdapter } from '../../../../src/providers/adapter.ts';
import { isUpstreamTimeout } from '../../../../src/providers/http/upstream-client.ts';
import { createOpenAIAdapter } from '../../../../src/providers/openai/openai-adapter.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream, type MultipartBody } from '../../../support/fake-openai-upstream.ts';

const API_KEY = 'sk-fake-test-key';
let upstream: FakeOpenAIUpstream;
let adapter: ProviderAdapter;
const options = () => ({ signal: new AbortController().signal });

const ask = (model: string, text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model,
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  ...extra,
});

async function collect(events: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const collected: ModelStreamEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream({ apiKey: API_KEY, slowChunkDelayMs: 40 });
  adapter = createOpenAIAdapter({ id: 'openai', kind: 'openai', baseUrl: upstream.url, apiKey: API_KEY, headers: { 'x-team': 'junction' } });
});
afterAll(() => upstream.close());

describe('OpenAI adapter against the fake upstream', () => {
  it('generates a chat answer and sends auth, config headers and the converted body', async () => {
    const response = await adapter.generateChat(ask('echo', 'hello there friend', { maxOutputTokens: 50 }), options());
    expect(response).toEqual({
      id: expect.stringMatching(/^chatcmpl-fake-/),
      model: 'echo',
      content: [{ type: 'text', text: 'hello there friend' }],
      // 18 characters / 4 → 5 prompt tokens; 3 words out.
      usage: { inputTokens: 5, outputTokens: 3, cachedInputTokens: 0, reasoningTokens: 0 },
      finishReason: { unified: 'stop', raw: 'stop' },
    });
    const recorded = upstream.requests.at(-1);
    expect(recorded?.path).toBe('/v1/chat/completions');
    expect(recorded?.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(recorded?.headers['x-team']).toBe('junction');
    expect(recorded?.body).toEqual({
      model: 'echo',
      messages: [{ role: 'user', content: 'hello there friend' }],
      max_completion_tokens: 50,
    });
  });

  it('streams text with usage last, asking for include_usage', async () => {
    const events = await collect(adapter.streamChat(ask('echo', 'one two three'), options()));
    expect(events).toEqual([
      { type: 'response-metadata', id: expect.stringMatching(/^chatcmpl-fake-/), model: 'echo' },
      { type: 'text-delta', delta: 'one ' },
      { type: 'text-delta', delta: 'two ' },
      { type: 'text-delta', delta: 'three' },
      { type: 'usage', usage: { inputTokens: 4, outputTokens: 3, cachedInputTokens: 0, reasoningTokens: 0 } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
    ]);
    expect(upstream.requests.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streams reasoning deltas before the text', async () => {
    const events = await collect(adapter.streamChat(ask('reasoning-model', 'hi'), options()));
    const reasoning = events.flatMap((event) => (event.type === 'reasoning-delta' ? [event.delta] : [])).join('');
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : [])).join('');
    expect(reasoning).toBe('The user wants an answer. I will give it.');
    expect(text).toBe('hi');
    expect(events.findIndex((event) => event.type === 'text-delta')).toBeGreaterThan(events.findLastIndex((event) => event.type === 'reasoning-delta'));
    expect(events.find((event) => event.type === 'usage')).toEqual({
      type: 'usage',
      usage: { inputTokens: 1, outputTokens: 10, cachedInputTokens: 0, reasoningTokens: 9 },
    });
  });

  it('runs a tool round trip: a streamed call, then text once the result is sent back', async () => {
    const first = await collect(adapter.streamChat(ask('tool-model', 'weather in Paris?', { tools: [weatherTool] }), options()));
    expect(first.filter((event) => event.type.startsWith('tool-call-start'))).toEqual([{ type: 'tool-call-start', index: 0, id: 'call_fake_0', name: 'get_weather' }]);
    const argumentsText = first.flatMap((event) => (event.type === 'tool-call-delta' ? [event.argumentsDelta] : [])).join('');
    expect(JSON.parse(argumentsText)).toEqual({ city: 'fake' });
    expect(first.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' } });

    const second = await adapter.generateChat(
      {
        model: 'tool-model',
        tools: [weatherTool],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'weather in Paris?' }] },
          { role: 'assistant', content: [{ type: 'tool-call', id: 'call_fake_0', name: 'get_weather', arguments: argumentsText }] },
          { role: 'tool', toolCallId: 'call_fake_0', content: 'sunny' },
        ],
      },
      options(),
    );
    expect(second.content).toEqual([{ type: 'text', text: 'Tool get_weather returned: sunny' }]);
    expect(second.finishReason.unified).toBe('stop');
  });

  it('embeds in input order with float encoding', async () => {
    const response = await adapter.embed?.({ model: 'text-embedding-3-small', input: ['ab', 'cd'], dimensions: 2 }, options());
    expect(response).toEqual({
      model: 'text-embedding-3-small',
      embeddings: [
        [0.7, 0.8],
        [0.9, 0],
      ],
      usage: { inputTokens: 1 },
    });
    expect(upstream.requests.at(-1)?.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['ab', 'cd'],
      encoding_format: 'float',
      dimensions: 2,
    });
  });

  it('generates images, passing parameters through and reading token usage', async () => {
    const response = await adapter.generateImages?.({ model: 'gpt-image-1', prompt: 'a red fox', n: 1, params: { size: '1024x1024', quality: 'low' } }, options());
    expect(response).toEqual({
      created: 1_700_000_000,
      data: [{ b64_json: Buffer.from('fake-image-0:a red fox').toString('base64') }],
      usage: { inputTokens: 3, outputTokens: 100 },
      extra: { background: 'opaque', output_format: 'png', quality: 'low', size: '1024x1024' },
    });
    expect(upstream.requests.at(-1)?.body).toEqual({ size: '1024x1024', quality: 'low', model: 'gpt-image-1', prompt: 'a red fox', n: 1 });
  });

  it('moderates', async () => {
    const response = await adapter.moderate?.({ model: 'omni-moderation-latest', input: ['hello', 'attack them'] }, options());
    expect(response?.model).toBe('omni-moderation-latest');
    expect(response?.results).toHaveLength(2);
    expect(response?.results[0]).toMatchObject({ flagged: false });
    expect(response?.results[1]).toMatchObject({ flagged: true, categories: { violence: true } });
  });

  it('streams speech bytes with the upstream content type', async () => {
    const response = await adapter.speech?.({ model: 'tts-1', input: 'Hello world', voice: 'alloy', params: { response_format: 'wav' } }, options());
    expect(response?.contentType).toBe('audio/wav');
    const chunks: Uint8Array[] = [];
    for await (const chunk of response?.body ?? []) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).toString()).toBe('FAKEAUDIO:alloy:Hello world');
  });

  it('transcribes via multipart, passing fields through and reading duration from verbose_json and usage', async () => {
    const file = { data: Buffer.alloc(64_000, 1), filename: 'clip.wav', contentType: 'audio/wav' };
    const verbose = await adapter.transcribe?.({ model: 'whisper-1', task: 'transcription', file, fields: { response_format: 'verbose_json', language: 'en' } }, options());
    expect(verbose?.contentType).toBe('application/json');
    expect(verbose?.durationSeconds).toBe(2);
    expect(JSON.parse(verbose?.body.toString() ?? '{}')).toMatchObject({ task: 'transcribe', text: 'Fake transcript of clip.wav.' });
    const recorded = upstream.requests.at(-1);
    expect(recorded?.path).toBe('/v1/audio/transcriptions');
    const multipart = recorded?.body as MultipartBody;
    expect(multipart.fields).toEqual({ response_format: 'verbose_json', language: 'en', model: 'whisper-1' });
    expect(multipart.files).toMatchObject([{ field: 'file', filename: 'clip.wav', contentType: 'audio/wav', size: 64_000 }]);

    const json = await adapter.transcribe?.({ model: 'whisper-1', task: 'translation', file, fields: {} }, options());
    expect(json?.durationSeconds).toBe(2);
    expect(upstream.requests.at(-1)?.path).toBe('/v1/audio/translations');

    const tokens = await adapter.transcribe?.({ model: 'gpt-4o-transcribe', task: 'transcription', file, fields: {} }, options());
    expect(tokens?.durationSeconds).toBeUndefined();
    expect(tokens?.usage).toEqual({ inputTokens: 64, outputTokens: 4 });

    const text = await adapter.transcribe?.({ model: 'whisper-1', task: 'transcription', file, fields: { response_format: 'text' } }, options());
    expect(text?.contentType).toMatch(/^text\/plain/);
    expect(text?.body.toString()).toBe('Fake transcript of clip.wav.\n');
    expect(text?.durationSeconds).toBeUndefined();
  });

  it('throws a retryable UpstreamError with Retry-After on 429, once per attempt', async () => {
    const error = await rejection(adapter.generateChat(ask('fail-429', 'hi'), options()));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterSeconds: 1 });
    expect((error as UpstreamError).upstreamMessage).toMatch(/^Rate limit reached/);
    expect(upstream.attempts('fail-429')).toBe(1);
  });

  it('fails a stream before the first event on a 500, and a 400 is not retryable', async () => {
    const iterator = adapter.streamChat(ask('fail-500', 'hi'), options())[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ status: 500, retryable: true });
    await expect(adapter.generateChat(ask('fail-400', 'hi'), options())).rejects.toMatchObject({ status: 400, retryable: false });
  });

  it('never puts the API key in an error, even when the upstream echoes it', async () => {
    const wrongKey = createOpenAIAdapter({ id: 'openai', kind: 'openai', baseUrl: upstream.url, apiKey: 'sk-wrong-key-123' });
    const error = await rejection(wrongKey.generateChat(ask('echo', 'hi'), options()));
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(String((error as Error).message)).not.toContain('sk-wrong-key-123');
  });

  it('reports a socket destroyed mid-stream as an UpstreamError after the first events', async () => {
    const events: ModelStreamEvent[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of adapter.streamChat(ask('fail-midstream', 'a b c d e f'), options())) events.push(event);
      })(),
    );
    expect(events[0]?.type).toBe('response-metadata');
    expect(events.some((event) => event.type === 'text-delta')).toBe(true);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 0 });
  });

  it('stops reading and closes the upstream connection when the caller aborts', async () => {
    const controller = new AbortController();
    const before = upstream.clientDisconnects;
    const events: ModelStreamEvent[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of adapter.streamChat(ask('slow', 'hi'), { signal: controller.signal })) {
          events.push(event);
          if (events.length === 3) controller.abort(new Error('client went away'));
        }
      })(),
    );
    expect(error).toEqual(new Error('client went away'));
    await expect.poll(() => upstream.clientDisconnects).toBe(before + 1);
  });

  it('times out while waiting for headers as a retryable status-0 error, but never cuts a live stream', async () => {
    const impatient = createOpenAIAdapter({ id: 'openai', kind: 'openai', baseUrl: upstream.url, apiKey: API_KEY, timeoutMs: 30 });
    const error = await rejection(impatient.generateChat(ask('hang', 'hi'), options()));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 0, retryable: true });
    expect(isUpstreamTimeout(error)).toBe(true);
    // `slow` sends headers at once and then a chunk every 40 ms: longer than the 30 ms header timeout.
    const streamed = await collect(impatient.streamChat(ask('slow', 'x'), options()));
    expect(streamed.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } });
  });

  it('reports an unreachable upstream as a retryable status-0 error that is not a timeout', async () => {
    const closed = await startFakeOpenAIUpstream();
    await closed.close();
    const unreachable = createOpenAIAdapter({ id: 'openai', kind: 'openai', baseUrl: closed.url, apiKey: API_KEY });
    const error = await rejection(unreachable.generateChat(ask('echo', 'hi'), options()));
    expect(error).toMatchObject({ status: 0, retryable: true });
    expect(isUpstreamTimeout(error)).toBe(false);
    expect((error as Error).message).toContain('ECONNREFUSED');
  });
});
