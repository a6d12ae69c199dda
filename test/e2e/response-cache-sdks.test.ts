import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { type PromptCacheUpstream, startPromptCacheUpstream } from '../support/fake-prompt-cache-upstream.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * A cached answer replayed as a stream in each wire format, read by the official SDKs:
 * the second identical stream is a hit (no provider call) with the same text, whichever
 * provider first produced it and whichever format it was first streamed in.
 */
let upstream: PromptCacheUpstream;
let t: TestApp;
let baseUrl: string;
let key: string;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;

beforeAll(async () => {
  upstream = await startPromptCacheUpstream();
  const env = {
    OPENAI_API_KEY: 'sk-upstream',
    OPENAI_BASE_URL: upstream.openaiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-upstream',
    ANTHROPIC_BASE_URL: upstream.anthropicUrl,
    GEMINI_API_KEY: 'gemini-upstream',
    GEMINI_BASE_URL: upstream.geminiUrl,
  };
  t = await startTestApp(env, { env });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  await runAdminCommand(t.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  // Every call of this key opts into the cache: the SDKs need no extra field.
  key = await t.key('model', { cacheTtlSeconds: 600 });
  openai = new OpenAI({ apiKey: key, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: key, baseURL: baseUrl, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl } });
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

const MODELS = ['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5', 'google/gemini-2.5-flash'];

async function cacheHits(): Promise<number> {
  await t.services.settlements.drain();
  const result = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_log WHERE cache_hit');
  return Number(result.rows[0]?.n ?? 0);
}

describe('streamed cache hits through the official SDKs', () => {
  it('openai: replays a chat-completions stream, usage and cost included, x-junction-cache: hit', async () => {
    for (const model of MODELS) {
      const ask = () => openai.chat.completions.create({ model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: `openai sdk ${model}` }] }).withResponse();
      const read = async (stream: AsyncIterable<OpenAI.ChatCompletionChunk>) => {
        let text = '';
        let usage: OpenAI.CompletionUsage | undefined;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          usage = chunk.usage ?? usage;
        }
        return { text, usage: usage as (OpenAI.CompletionUsage & { cost?: number }) | undefined };
      };
      const first = await ask();
      expect(first.response.headers.get('x-junction-cache'), model).toBe('miss');
      const missed = await read(first.data);
      const calls = upstream.requests.length;
      const hits = await cacheHits();
      const second = await ask();
      expect(second.response.headers.get('x-junction-cache'), model).toBe('hit');
      const hit = await read(second.data);
      expect(hit.text, model).toBe(`echo: openai sdk ${model}`);
      expect(hit.text).toBe(missed.text);
      expect(hit.usage?.prompt_tokens).toBe(missed.usage?.prompt_tokens);
      expect(hit.usage?.cost).toBe(0);
      expect(upstream.requests.length).toBe(calls);
      expect(await cacheHits()).toBe(hits + 1);
    }
  });

  it('anthropic: replays a messages stream the SDK folds into the same final message', async () => {
    for (const model of MODELS) {
      const ask = async () => {
        const stream = anthropic.messages.stream({ model, max_tokens: 200, messages: [{ role: 'user', content: `anthropic sdk ${model}` }] });
        let text = '';
        stream.on('text', (delta) => (text += delta));
        const final = await stream.finalMessage();
        return { text, final };
      };
      const missed = await ask();
      const calls = upstream.requests.length;
      const hits = await cacheHits();
      const hit = await ask();
      expect(hit.text, model).toBe(`echo: anthropic sdk ${model}`);
      expect(hit.final.content).toEqual(missed.final.content);
      expect(hit.final.stop_reason).toBe('end_turn');
      expect(hit.final.usage.output_tokens).toBe(missed.final.usage.output_tokens);
      expect(upstream.requests.length).toBe(calls);
      expect(await cacheHits()).toBe(hits + 1);
    }
  });

  it('google: replays a streamGenerateContent stream', async () => {
    for (const model of MODELS) {
      const ask = async () => {
        let text = '';
        let finish: string | undefined;
        for await (const chunk of await google.models.generateContentStream({ model, contents: `gemini sdk ${model}` })) {
          text += chunk.text ?? '';
          finish = chunk.candidates?.[0]?.finishReason ?? finish;
        }
        return { text, finish };
      };
      const missed = await ask();
      const calls = upstream.requests.length;
      const hits = await cacheHits();
      const hit = await ask();
      expect(hit.text, model).toBe(`echo: gemini sdk ${model}`);
      expect(hit).toEqual(missed);
      expect(upstream.requests.length).toBe(calls);
      expect(await cacheHits()).toBe(hits + 1);
    }
  });

  it('a stream replays an answer first streamed in another format', async () => {
    const content = 'one question, three formats';
    await openai.chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages: [{ role: 'user', content }] });
    const calls = upstream.requests.length;
    const stream = anthropic.messages.stream({ model: 'anthropic/claude-sonnet-4-5', max_tokens: 200, messages: [{ role: 'user', content }] });
    const final = await stream.finalMessage();
    // The messages front-end sends max_tokens, which the chat call did not: another request.
    expect(upstream.requests.length).toBe(calls + 1);
    expect(final.content[0]?.type === 'text' && final.content[0].text).toBe(`echo: ${content}`);
    let text = '';
    for await (const chunk of await google.models.generateContentStream({ model: 'anthropic/claude-sonnet-4-5', contents: content })) text += chunk.text ?? '';
    expect(text).toBe(`echo: ${content}`);
    // Gemini's canonical request (no max_tokens, the same one user message) is the chat call's.
    expect(upstream.requests.length).toBe(calls + 1);
  });
});
