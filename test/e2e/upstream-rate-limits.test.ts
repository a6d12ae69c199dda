import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * A provider that keeps answering 429 past the gateway's retries (2 in the harness):
 * each front-end answers 429 with Retry-After in its own error shape, so the client's
 * SDK backs off and retries instead of treating it as a gateway fault. Each fake's
 * `fail-429` asks for one second (OpenAI and Anthropic in the Retry-After header,
 * Gemini in the body's RetryInfo).
 */
let gateway: GatewayHarness;
let modelKey: string;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  modelKey = await gateway.key('model');
});
afterAll(async () => gateway.close());

const ask = [{ role: 'user' as const, content: 'x' }];

describe('an upstream 429 that outlasts the retries reaches the client as 429 with Retry-After', () => {
  it('openai: RateLimitError, retry-after from the provider, streamed or not', async () => {
    const client = new OpenAI({ apiKey: modelKey, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    const before = gateway.openai.attempts('test-fail-429');
    for (const stream of [false, true]) {
      const error = await client.chat.completions.create({ model: 'openai/test-fail-429', messages: ask, stream }).catch((caught: unknown) => caught);
      expect(error, `stream: ${stream}`).toBeInstanceOf(OpenAI.RateLimitError);
      const limited = error as InstanceType<typeof OpenAI.RateLimitError>;
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('1');
      expect(limited.error).toMatchObject({ type: 'rate_limit_error', code: 'upstream_rate_limited' });
      expect(limited.message).toContain('Rate limit reached for requests');
    }
    expect(gateway.openai.attempts('test-fail-429') - before).toBe(6);
  });

  it("openai: the SDK's own retry sees the 429 and tries again after Retry-After", async () => {
    const client = new OpenAI({ apiKey: modelKey, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 1 });
    const before = gateway.openai.attempts('test-fail-429');
    // The waits each side asks for, read off the timers their sleeps set (still real timers).
    const waits = { sdk: [] as number[], gateway: [] as number[] };
    const realSetTimeout = globalThis.setTimeout;
    const timers = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((handler: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const caller = new Error().stack ?? '';
      if (caller.includes('/node_modules/openai/internal/utils/sleep')) waits.sdk.push(ms ?? 0);
      else if (caller.includes('/src/pipeline/cancellable-sleep')) waits.gateway.push(ms ?? 0);
      return realSetTimeout(handler, ms, ...args);
    }) as typeof setTimeout);
    try {
      await expect(client.chat.completions.create({ model: 'openai/test-fail-429', messages: ask })).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    } finally {
      timers.mockRestore();
    }
    // Two client attempts of three upstream attempts each: the gateway waits the provider's
    // Retry-After (1 s) between its attempts, and the SDK the 1 s the gateway's 429 passed on.
    expect(gateway.openai.attempts('test-fail-429') - before).toBe(6);
    expect(waits).toEqual({ sdk: [1_000], gateway: [1_000, 1_000, 1_000, 1_000] });
  });

  it('anthropic: RateLimitError with rate_limit_error in the Anthropic shape', async () => {
    const client = new Anthropic({ apiKey: modelKey, baseURL: gateway.baseUrl, maxRetries: 0 });
    for (const stream of [false, true]) {
      const error = await client.messages.create({ model: 'anthropic/test-fail-429', max_tokens: 10, messages: ask, stream }).catch((caught: unknown) => caught);
      expect(error, `stream: ${stream}`).toBeInstanceOf(Anthropic.RateLimitError);
      const limited = error as InstanceType<typeof Anthropic.RateLimitError>;
      expect(limited.status).toBe(429);
      expect(limited.headers?.get('retry-after')).toBe('1');
      expect(limited.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    }
  });

  it('gemini: ApiError 429 RESOURCE_EXHAUSTED with RetryInfo, retried by the SDK when asked to', async () => {
    const seen: Response[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      seen.push(response.clone());
      return response;
    };
    const client = new GoogleGenAI({ apiKey: modelKey, httpOptions: { baseUrl: gateway.baseUrl, fetch: recordingFetch } });
    const error = await client.models.generateContent({ model: 'google/test-fail-429', contents: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    const answer = seen.at(-1);
    expect(answer?.headers.get('retry-after')).toBe('1');
    expect(await answer?.json()).toMatchObject({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: expect.arrayContaining([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }]),
      },
    });

    const retrying = new GoogleGenAI({
      apiKey: modelKey,
      httpOptions: { baseUrl: gateway.baseUrl, retryOptions: { attempts: 2, initialDelay: 0.01, maxDelay: 0.01 } },
    });
    const before = gateway.gemini.attempts('test-fail-429');
    const streamed = await retrying.models.generateContentStream({ model: 'google/test-fail-429', contents: 'x' }).catch((caught: unknown) => caught);
    expect((streamed as ApiError).status).toBe(429);
    expect(gateway.gemini.attempts('test-fail-429') - before).toBe(6);
  });
});
