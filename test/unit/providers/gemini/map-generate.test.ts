import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../../src/core/model-types.ts';
import { readGeminiErrorMessage } from '../../../../src/providers/gemini/gemini-error.ts';
import { mapGenerateResponse } from '../../../../src/providers/gemini/map-generate-response.ts';
import { mapGenerateStream } from '../../../../src/providers/gemini/map-generate-stream.ts';
import { readSseBatches } from '../../../../src/providers/http/sse-events.ts';

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/gemini/${name}`, import.meta.url), 'utf8');

/** Replays a recorded SSE body in uneven byte chunks, as a socket would deliver it. */
async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  const data = new TextEncoder().encode(text);
  for (let offset = 0; offset < data.length; offset += 41) yield data.slice(offset, offset + 41);
}

async function collect(text: string, events: ModelStreamEvent[] = []): Promise<ModelStreamEvent[]> {
  for await (const event of mapGenerateStream(readSseBatches(bytes(text)))) events.push(event);
  return events;
}

describe('mapGenerateResponse', () => {
  it('maps text parts and cached usage', () => {
    expect(mapGenerateResponse(JSON.parse(fixture('generate-plain.json')), 'gemini-2.5-flash')).toEqual({
      id: 'mRDIaJ3NBJqMz7IPq6HrkAY',
      model: 'gemini-2.5-flash',
      content: [
        { type: 'text', text: 'AI learns patterns from data' },
        { type: 'text', text: ' to make predictions.' },
      ],
      usage: { inputTokens: 1200, outputTokens: 9, cachedInputTokens: 1024 },
      finishReason: { unified: 'stop', raw: 'STOP' },
    });
  });

  it('maps thoughts, signatures and function calls with generated ids; thoughts count as output', () => {
    expect(mapGenerateResponse(JSON.parse(fixture('generate-thinking-function-call.json')), 'gemini-2.5-pro')).toEqual({
      id: 'Hn7IaOrDAd2Xz7IP6pnCwQM',
      model: 'gemini-2.5-pro',
      content: [
        {
          type: 'reasoning',
          text: '**Checking the weather**\nThe user wants the temperature in London, so I will call the tool.',
        },
        { type: 'reasoning', text: '', signature: 'CiQB0e2Kb6Mkg2Fc8Ouln3WfFq1eYuKdNTHfIHwKZ4LQ0SDs=' },
        { type: 'tool-call', id: 'call_0', name: 'get_current_temperature', arguments: '{"location":"London"}' },
        { type: 'tool-call', id: 'call_1', name: 'get_time', arguments: '{}' },
      ],
      usage: { inputTokens: 63, outputTokens: 130, reasoningTokens: 108 },
      finishReason: { unified: 'tool-calls', raw: 'STOP' },
    });
  });

  it('reports a blocked prompt as content-filter', () => {
    expect(mapGenerateResponse(JSON.parse(fixture('generate-blocked.json')), 'gemini-2.5-flash')).toMatchObject({
      content: [],
      usage: { inputTokens: 8, outputTokens: 0 },
      finishReason: { unified: 'content-filter', raw: 'PROHIBITED_CONTENT' },
    });
  });

  it('maps the other finish reasons', () => {
    const finish = (finishReason: string) => mapGenerateResponse({ candidates: [{ content: { parts: [] }, finishReason }] }, 'm').finishReason.unified;
    expect(['MAX_TOKENS', 'SAFETY', 'RECITATION', 'MALFORMED_FUNCTION_CALL', 'LANGUAGE', 'OTHER'].map(finish)).toEqual(['length', 'content-filter', 'content-filter', 'error', 'other', 'other']);
  });

  it('reads the Google error body', () => {
    expect(readGeminiErrorMessage(JSON.parse(fixture('error-resource-exhausted.json')))).toBe('RESOURCE_EXHAUSTED: You exceeded your current quota, please check your plan and billing details.');
    expect(readGeminiErrorMessage([{ error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' } }])).toBe('INVALID_ARGUMENT: bad');
  });
});

describe('mapGenerateStream', () => {
  it('maps streamed text, reporting the last usage once', async () => {
    expect(await collect(fixture('stream-text.sse'))).toEqual([
      { type: 'response-metadata', id: '2xLIaNTyL8Cez7IP3JPRsAU', model: 'gemini-2.5-flash' },
      { type: 'text-delta', delta: 'The' },
      { type: 'text-delta', delta: ' sky is blue because of Rayleigh' },
      { type: 'text-delta', delta: ' scattering.' },
      { type: 'usage', usage: { inputTokens: 9, outputTokens: 10 } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'STOP' } },
    ]);
  });

  it('maps streamed thoughts and a whole function call with its signature', async () => {
    expect(await collect(fixture('stream-thoughts-function-call.sse'))).toEqual([
      { type: 'response-metadata', id: 'qhPIaKWoAvSXz7IPkfOB4AY', model: 'gemini-2.5-pro' },
      { type: 'reasoning-delta', delta: '**Planning the lookup**\nI should call get_current_temperature for London.' },
      { type: 'reasoning-signature', signature: 'CiQB0e2Kb6Mkg2Fc8Ouln3WfFq1eYuKdNTHfIHwKZ4LQ0SDs=' },
      { type: 'tool-call-start', index: 0, id: 'call_0', name: 'get_current_temperature' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"location":"London"}' },
      { type: 'usage', usage: { inputTokens: 63, outputTokens: 74, cachedInputTokens: 32, reasoningTokens: 57 } },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'STOP' } },
    ]);
  });

  it('throws the in-stream error object as an UpstreamError after the partial events', async () => {
    const events: ModelStreamEvent[] = [];
    await expect(collect(fixture('stream-error.sse'), events)).rejects.toMatchObject({
      name: 'UpstreamError',
      status: 503,
      retryable: true,
      upstreamMessage: 'UNAVAILABLE: The model is overloaded. Please try again later.',
    });
    expect(events.map((event) => event.type)).toEqual(['response-metadata', 'text-delta']);
  });

  it('throws when the stream ends without a finishReason', async () => {
    const truncated = fixture('stream-text.sse').split('\r\n\r\n').slice(0, 2).join('\r\n\r\n');
    await expect(collect(truncated)).rejects.toMatchObject({ name: 'UpstreamError', status: 0, retryable: true });
  });
});
