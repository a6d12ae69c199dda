import { describe, expect, it } from 'vitest';
import { JunctionError } from '../../../../src/core/errors.ts';
import type { ModelRequest } from '../../../../src/core/model-types.ts';
import { convertGenerateRequest, convertReasoning } from '../../../../src/providers/gemini/convert-generate-request.ts';
import { convertJsonSchema } from '../../../../src/providers/gemini/convert-json-schema.ts';

describe('convertGenerateRequest', () => {
  it('builds contents, systemInstruction, tools, toolConfig and generationConfig', () => {
    const request: ModelRequest = {
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'You are terse.', cacheControl: { type: 'ephemeral' } },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image', url: 'https://example.com/cat.png' },
            { type: 'image', url: 'data:image/jpeg;base64,/9j/4AAQ' },
            { type: 'image', data: 'R0lGODlh', mediaType: 'image/gif' },
            { type: 'file', data: 'JVBERi0xLjQ=', mediaType: 'application/pdf' },
            { type: 'file', url: 'https://generativelanguage.googleapis.com/v1beta/files/abc', mediaType: 'application/pdf' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'I should check.' },
            { type: 'reasoning', text: '', signature: 'sig-A' },
            { type: 'tool-call', id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { type: 'tool-call', id: 'call_1', name: 'get_time', arguments: '{}' },
            { type: 'reasoning', text: '', redactedData: 'anthropic-only' },
          ],
        },
        { role: 'tool', toolCallId: 'call_0', content: '{"temperature":18}' },
        { role: 'tool', toolCallId: 'call_1', name: 'get_time', content: '12:00' },
        { role: 'tool', toolCallId: 'call_1', content: 'clock broken', isError: true },
        { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['c', 'f', null] } },
            required: ['city'],
            additionalProperties: false,
          },
          strict: true,
        },
        { name: 'get_time', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: { type: 'tool', name: 'get_weather' },
      temperature: 0.4,
      topP: 0.8,
      topK: 20,
      maxOutputTokens: 300,
      stop: ['END'],
      seed: 7,
      responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      reasoning: { effort: 'low' },
      providerOptions: {
        gemini: { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }], generationConfig: { candidateCount: 1 } },
        anthropic: { ignored: true },
      },
    };

    expect(convertGenerateRequest(request)).toEqual({
      systemInstruction: { parts: [{ text: 'You are terse.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Look:' },
            { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.png' } },
            { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
            { inlineData: { mimeType: 'image/gif', data: 'R0lGODlh' } },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0xLjQ=' } },
            { fileData: { mimeType: 'application/pdf', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'I should check.', thought: true },
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-A' },
            { functionCall: { name: 'get_time', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { temperature: 18 } } },
            { functionResponse: { name: 'get_time', response: { output: '12:00' } } },
            { functionResponse: { name: 'get_time', response: { error: 'clock broken' } } },
            { text: 'And tomorrow?' },
          ],
        },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather for a city',
              parameters: {
                type: 'object',
                properties: { city: { type: 'string' }, unit: { type: 'string', nullable: true, enum: ['c', 'f'] } },
                required: ['city'],
              },
            },
            { name: 'get_time' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      generationConfig: {
        temperature: 0.4,
        topP: 0.8,
        topK: 20,
        maxOutputTokens: 300,
        stopSequences: ['END'],
        seed: 7,
        responseMimeType: 'application/json',
        responseSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
        candidateCount: 1,
      },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    });
  });

  it('keeps a folded reasoning signature next to the function call and a trailing one on the thought', () => {
    const body = convertGenerateRequest({
      model: 'm',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'thinking…', signature: 'sig-B' },
            { type: 'tool-call', id: 'call_0', name: 'f', arguments: 'not json' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'x' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'only thought', signature: 'sig-C' }] },
      ],
    });
    expect(body.contents).toEqual([
      {
        role: 'model',
        parts: [
          { text: 'thinking…', thought: true },
          { functionCall: { name: 'f', args: {} }, thoughtSignature: 'sig-B' },
          { text: 'x' },
          { text: 'only thought', thought: true, thoughtSignature: 'sig-C' },
        ],
      },
    ]);
  });

  it('maps tool choices and a minimal request', () => {
    const tools = [{ name: 't', parameters: { type: 'object', properties: { a: { type: 'string' } } } }];
    const choice = (toolChoice: ModelRequest['toolChoice']) => convertGenerateRequest({ model: 'm', messages: [], tools, toolChoice }).toolConfig;
    expect(choice('auto')).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(choice('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(choice('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(choice(undefined)).toBeUndefined();
    expect(convertGenerateRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    });
  });

  it('refuses a tool result whose function name cannot be found', () => {
    expect(() => convertGenerateRequest({ model: 'm', messages: [{ role: 'tool', toolCallId: 'call_9', content: 'x' }] })).toThrow(JunctionError);
  });

  it('maps reasoning settings to thinkingConfig', () => {
    expect(convertReasoning(undefined)).toBeUndefined();
    expect(convertReasoning({ enabled: false })).toEqual({ thinkingBudget: 0 });
    expect(convertReasoning({ enabled: true })).toEqual({ thinkingBudget: -1, includeThoughts: true });
    expect(convertReasoning({ effort: 'high' })).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(convertReasoning({ budgetTokens: 2000, effort: 'high' })).toEqual({ thinkingBudget: 2000, includeThoughts: true });
  });
});

describe('convertJsonSchema', () => {
  it('narrows JSON Schema to the subset Gemini accepts', () => {
    expect(
      convertJsonSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { street: { type: 'string', format: 'uri' } }, additionalProperties: false } },
        properties: {
          home: { $ref: '#/$defs/address', description: 'Where they live' },
          kind: { const: 'person' },
          age: { type: 'integer', minimum: 0, exclusiveMaximum: 200 },
          nickname: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
          size: { enum: [1, 2, 3] },
          value: { oneOf: [{ type: 'string' }, { type: 'number' }] },
          when: { type: 'string', format: 'date-time' },
          base: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'number' } } }] },
        },
        required: ['home', 'missing'],
        additionalProperties: false,
      }),
    ).toEqual({
      type: 'object',
      properties: {
        home: { type: 'object', description: 'Where they live', properties: { street: { type: 'string' } } },
        kind: { type: 'string', enum: ['person'] },
        age: { type: 'integer', minimum: 0 },
        nickname: { type: 'string', nullable: true },
        tags: { type: 'array', items: { type: 'string' } },
        size: { type: 'integer' },
        value: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        when: { type: 'string', format: 'date-time' },
        base: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] },
      },
      required: ['home'],
    });
  });

  it('stops inlining recursive references', () => {
    const schema = { type: 'object', properties: { child: { $ref: '#' } } };
    let depth = 0;
    let node: unknown = convertJsonSchema(schema);
    while (typeof node === 'object' && node !== null && 'properties' in node) {
      node = (node as { properties: { child: unknown } }).properties.child;
      depth += 1;
    }
    expect(depth).toBe(9);
    expect(node).toEqual({ type: 'object' });
  });
});
