import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JunctionError } from '../../../../src/core/errors.ts';
import { convertBatchEmbedContentsBody, convertEmbedContentBody } from '../../../../src/gateway/gemini/convert-embed-request.ts';
import { convertCountTokensBody, convertGenerateBody } from '../../../../src/gateway/gemini/convert-generate-request.ts';
import { BatchEmbedContentsRequestSchema, CountTokensRequestSchema, EmbedContentRequestSchema, GenerateContentRequestSchema } from '../../../../src/gateway/gemini/gemini-request-schemas.ts';
import { geminiSchemaToJsonSchema } from '../../../../src/gateway/gemini/gemini-schema-to-json-schema.ts';
import { parseInput } from '../../../../src/http/parse-body.ts';
import { convertGenerateRequest } from '../../../../src/providers/gemini/convert-generate-request.ts';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../fixtures/gateway/${name}`, import.meta.url), 'utf8'));
const parse = (body: unknown) => parseInput(GenerateContentRequestSchema, body);
const hello = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

function rejection(body: unknown): JunctionError {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof JunctionError) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('convertGenerateBody', () => {
  it('turns the body @google/genai sends (tools round trip without ids, thoughts, media, schema) into the exact canonical request', () => {
    expect(convertGenerateBody(parse(fixture('gemini-sdk-request-full.json')))).toEqual(fixture('gemini-sdk-request-full.canonical.json'));
  });

  it('gives a google/… model back what the client sent', () => {
    const body = parse(fixture('gemini-sdk-request-full.json'));
    const upstream = convertGenerateRequest({ ...convertGenerateBody(body).request, model: 'gemini-2.5-flash' });
    expect(upstream['safetySettings']).toEqual(body.safetySettings);
    expect(upstream.toolConfig).toEqual(body.toolConfig);
    expect(upstream.generationConfig?.thinkingConfig).toEqual(body.generationConfig?.thinkingConfig);
    expect(upstream.generationConfig?.responseSchema).toEqual(body.generationConfig?.responseSchema);
    // Thoughts and the signature on the first functionCall come back in Gemini's layout.
    expect(upstream.contents[1]?.parts).toEqual([
      { text: 'Thinking about the tools.', thought: true },
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLTE=' },
      { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
    ]);
  });

  it('keeps client ids, matches id-less responses by name in order, and refuses orphans', () => {
    const contents = [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [{ functionCall: { name: 'a', args: {}, id: 'call_x' } }, { functionCall: { name: 'b', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'b', response: { error: 'boom' } } }, { functionResponse: { name: 'a', response: { output: { ok: true } }, id: 'call_x' } }] },
    ];
    expect(convertGenerateBody(parse({ contents })).request.messages.slice(2)).toEqual([
      { role: 'tool', toolCallId: 'call_1', name: 'b', content: 'boom', isError: true },
      { role: 'tool', toolCallId: 'call_x', name: 'a', content: '{"ok":true}' },
    ]);
    const orphan = parse({ contents: [{ role: 'user', parts: [{ functionResponse: { name: 'a', response: {} } }] }] });
    expect(() => convertGenerateBody(orphan)).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'contents.0.parts.0' }));
  });

  it('maps thinking configs and tool modes', () => {
    const reasoning = (thinkingConfig: unknown) => convertGenerateBody(parse({ ...hello, generationConfig: { thinkingConfig } }));
    expect(reasoning({ thinkingBudget: 0 }).request.reasoning).toEqual({ enabled: false });
    expect(reasoning({ thinkingBudget: -1 }).request.reasoning).toEqual({ enabled: true });
    expect(reasoning({ thinkingLevel: 'LOW' }).request.reasoning).toEqual({ enabled: true, effort: 'low' });
    expect(reasoning({ includeThoughts: true })).toMatchObject({ request: { reasoning: { enabled: true } }, includeThoughts: true });
    expect(reasoning({ includeThoughts: false }).includeThoughts).toBe(false);
    const choice = (functionCallingConfig: unknown) => convertGenerateBody(parse({ ...hello, toolConfig: { functionCallingConfig } })).request.toolChoice;
    expect(choice({ mode: 'AUTO' })).toBe('auto');
    expect(choice({ mode: 'NONE' })).toBe('none');
    expect(choice({ mode: 'ANY' })).toBe('required');
    expect(choice({ mode: 'ANY', allowedFunctionNames: ['a', 'b'] })).toBe('required');
    expect(convertGenerateBody(parse({ ...hello, generationConfig: { responseMimeType: 'application/json' } })).request.responseFormat).toEqual({ type: 'json_object' });
  });

  it('converts Gemini schemas (upper-case types, nullable) to JSON Schema', () => {
    expect(
      geminiSchemaToJsonSchema({
        type: 'OBJECT',
        properties: { tags: { type: 'ARRAY', items: { type: 'STRING' } }, note: { type: 'STRING', nullable: true, example: 'x' } },
        required: ['tags'],
        propertyOrdering: ['tags', 'note'],
      }),
    ).toEqual({
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'string' } }, note: { type: ['string', 'null'] } },
      required: ['tags'],
    });
  });
});

describe('Gemini request schemas', () => {
  it('refuse built-in tools, several candidates, cachedContent and unknown fields with the field named', () => {
    const search = rejection({ ...hello, tools: [{ googleSearch: {} }] });
    expect([search.param, search.status]).toEqual(['tools.0.googleSearch', 400]);
    expect(search.message).toContain('built-in tools');
    expect(rejection({ ...hello, generationConfig: { candidateCount: 2 } }).message).toContain('candidateCount must be 1');
    expect(rejection({ ...hello, cachedContent: 'cachedContents/abc' }).param).toBe('cachedContent');
    expect(rejection({ ...hello, generation_config: {} }).param).toBe('generation_config');
    expect(rejection({ contents: [] }).param).toBe('contents');
  });

  it('count tokens from bare contents or a whole generateContentRequest', () => {
    const bare = parseInput(CountTokensRequestSchema, { contents: hello.contents });
    expect(convertCountTokensBody(bare)).toEqual({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    const full = parseInput(CountTokensRequestSchema, {
      generateContentRequest: { model: 'models/x', ...hello, systemInstruction: { role: 'user', parts: [{ text: 'S' }] } },
    });
    expect(convertCountTokensBody(full).messages[0]).toEqual({ role: 'system', content: 'S' });
    expect(() => convertCountTokensBody(parseInput(CountTokensRequestSchema, {}))).toThrow(/contents/);
  });

  it('embedding bodies as the SDK sends them (batch with per-request model and role)', () => {
    const batch = parseInput(BatchEmbedContentsRequestSchema, {
      requests: ['a', 'b'].map((text) => ({
        content: { role: 'user', parts: [{ text }] },
        taskType: 'RETRIEVAL_QUERY',
        outputDimensionality: 8,
        model: 'models/google/text-embedding-004',
      })),
    });
    // What the route passes: strip `models/`, then qualify a bare Gemini name as the URL's was.
    const qualify = (name: string) => {
      const bare = name.replace(/^models\//, '');
      return bare.includes('/') ? bare : `google/${bare}`;
    };
    expect(convertBatchEmbedContentsBody(batch, 'google/text-embedding-004', qualify)).toEqual({ input: ['a', 'b'], taskType: 'RETRIEVAL_QUERY', dimensions: 8 });
    expect(() => convertBatchEmbedContentsBody(batch, 'openai/text-embedding-3-small', qualify)).toThrow(/does not match/);
    const bare = parseInput(BatchEmbedContentsRequestSchema, { requests: [{ content: { parts: [{ text: 'a' }] }, model: 'models/gemini-embedding-001' }] });
    expect(convertBatchEmbedContentsBody(bare, 'google/gemini-embedding-001', qualify)).toEqual({ input: ['a'] });
    const single = parseInput(EmbedContentRequestSchema, { content: { parts: [{ text: 'one' }, { text: 'two' }] }, title: 'T' });
    expect(convertEmbedContentBody(single, 'openai/text-embedding-3-small', qualify)).toEqual({ input: ['one\ntwo'] });
  });
});
