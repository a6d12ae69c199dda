import { GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ModelResponse, ModelStreamEvent } from '../../../../src/core/model-types.ts';
import { renderBatchEmbedContents, renderEmbedContent } from '../../../../src/gateway/gemini/render-embeddings.ts';
import { renderGenerateResponse } from '../../../../src/gateway/gemini/render-generate-response.ts';
import { GenerateStreamEncoder } from '../../../../src/gateway/gemini/render-generate-stream.ts';

const response: ModelResponse = {
  id: 'msg_01',
  model: 'claude-sonnet-4-5',
  content: [
    { type: 'reasoning', text: 'Need the weather.', signature: 'sig-1' },
    { type: 'reasoning', text: '', redactedData: 'REDACTED' },
    { type: 'text', text: 'Checking.' },
    { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
  ],
  usage: { inputTokens: 1000, outputTokens: 50, cachedInputTokens: 600, reasoningTokens: 10 },
  finishReason: { unified: 'tool-calls', raw: 'tool_use' },
};

describe('renderGenerateResponse', () => {
  it('renders thoughts only when asked, moves the signature to the next part, keeps tool ids', () => {
    const usageMetadata = {
      promptTokenCount: 1000,
      candidatesTokenCount: 40,
      thoughtsTokenCount: 10,
      cachedContentTokenCount: 600,
      totalTokenCount: 1050,
      cost: 0.002,
    };
    expect(renderGenerateResponse(response, { model: 'anthropic/claude-sonnet-4-5', includeThoughts: true, costMicros: 2000 })).toEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ text: 'Need the weather.', thought: true }, { text: 'Checking.', thoughtSignature: 'sig-1' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'toolu_1' } }],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata,
      modelVersion: 'anthropic/claude-sonnet-4-5',
      responseId: 'msg_01',
    });
    const hidden = renderGenerateResponse(response, { model: 'm', includeThoughts: false });
    expect(hidden.candidates[0]?.content.parts[0]).toEqual({ text: 'Checking.', thoughtSignature: 'sig-1' });
    expect(hidden.usageMetadata).not.toHaveProperty('cost');
  });

  it('maps finish reasons, preferring a Gemini upstream own value', () => {
    const reason = (unified: ModelResponse['finishReason']['unified'], raw: string | undefined) =>
      renderGenerateResponse({ ...response, finishReason: { unified, raw } }, { model: 'm', includeThoughts: false }).candidates[0]?.finishReason;
    expect(reason('length', 'length')).toBe('MAX_TOKENS');
    expect(reason('content-filter', 'refusal')).toBe('SAFETY');
    expect(reason('content-filter', 'RECITATION')).toBe('RECITATION');
    expect(reason('error', 'MALFORMED_FUNCTION_CALL')).toBe('MALFORMED_FUNCTION_CALL');
    expect(reason('other', 'pause_turn')).toBe('OTHER');
  });

  it('renders embeddings', () => {
    const embeddings = { model: 'm', embeddings: [[1, 2], [3]], usage: { inputTokens: 2 } };
    expect(renderEmbedContent(embeddings)).toEqual({ embedding: { values: [1, 2] } });
    expect(renderBatchEmbedContents(embeddings)).toEqual({ embeddings: [{ values: [1, 2] }, { values: [3] }] });
  });
});

const streamEvents: ModelStreamEvent[] = [
  { type: 'response-metadata', id: 'msg_7', model: 'claude' },
  { type: 'reasoning-delta', delta: 'Hmm' },
  { type: 'reasoning-signature', signature: 'sig-7' },
  { type: 'text-delta', delta: 'Hello' },
  { type: 'text-delta', delta: ' there' },
  { type: 'tool-call-start', index: 0, id: 'toolu_a', name: 'f' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":' },
  { type: 'tool-call-start', index: 1, id: 'toolu_b', name: 'g' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
  { type: 'usage', usage: { inputTokens: 10, outputTokens: 7, reasoningTokens: 2 } },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
];

describe('GenerateStreamEncoder', () => {
  const envelope = { modelVersion: 'anthropic/claude-sonnet-4-5', responseId: 'msg_7' };
  const chunk = (parts: unknown[]) => ({ candidates: [{ content: { role: 'model', parts }, index: 0 }], ...envelope });

  it('emits text chunks, whole function calls, and a last chunk with finishReason and usage', () => {
    const encoder = new GenerateStreamEncoder({ model: 'anthropic/claude-sonnet-4-5', includeThoughts: true });
    expect(streamEvents.flatMap((event) => encoder.push(event))).toEqual([
      chunk([{ text: 'Hmm', thought: true }]),
      chunk([{ text: 'Hello', thoughtSignature: 'sig-7' }]),
      chunk([{ text: ' there' }]),
      chunk([{ functionCall: { name: 'f', args: { x: 1 }, id: 'toolu_a' } }, { functionCall: { name: 'g', args: {}, id: 'toolu_b' } }]),
      {
        candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 2, totalTokenCount: 17 },
        ...envelope,
      },
    ]);
  });

  it('hides thoughts unless includeThoughts, but keeps the signature', () => {
    const encoder = new GenerateStreamEncoder({ model: 'anthropic/claude-sonnet-4-5', includeThoughts: false });
    const chunks = streamEvents.slice(0, 4).flatMap((event) => encoder.push(event));
    expect(chunks).toEqual([chunk([{ text: 'Hello', thoughtSignature: 'sig-7' }])]);
  });
});

describe('official @google/genai client', () => {
  afterEach(() => vi.unstubAllGlobals());
  const client = () => new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: 'http://junction.test' } });

  it('parses a rendered response, cost included', async () => {
    const body = renderGenerateResponse(response, { model: 'anthropic/claude-sonnet-4-5', includeThoughts: true, costMicros: 2000 });
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));
    const result = await client().models.generateContent({ model: 'anthropic/claude-sonnet-4-5', contents: 'hi' });
    expect(result.text).toBe('Checking.');
    expect(result.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris' }, id: 'toolu_1' }]);
    expect(result.usageMetadata).toMatchObject({ promptTokenCount: 1000, cost: 0.002 });
  });

  it('reads a rendered stream', async () => {
    const encoder = new GenerateStreamEncoder({ model: 'anthropic/claude-sonnet-4-5', includeThoughts: false });
    const sse = streamEvents
      .flatMap((event) => encoder.push(event))
      .map((item) => `data: ${JSON.stringify(item)}\r\n\r\n`)
      .join('');
    vi.stubGlobal('fetch', async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }));
    const stream = await client().models.generateContentStream({ model: 'anthropic/claude-sonnet-4-5', contents: 'hi' });
    let text = '';
    let last: unknown;
    for await (const item of stream) {
      text += item.text ?? '';
      last = item;
    }
    expect(text).toBe('Hello there');
    expect(last).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { totalTokenCount: 17 } });
  });
});
