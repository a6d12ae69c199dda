import { describe, expect, it } from 'vitest';
import { JunctionError } from '../../../../src/core/errors.ts';
import type { ModelRequest } from '../../../../src/core/model-types.ts';
import { convertCohereRequest } from '../../../../src/providers/cohere/convert-cohere-request.ts';

const tools: ModelRequest['tools'] = [
  { name: 'search', description: 'Search', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
  { name: 'now', parameters: { type: 'object', properties: {} } },
];

describe('convertCohereRequest', () => {
  it('maps sampling, stops, json_schema and thinking to Cohere names', () => {
    const body = convertCohereRequest(
      {
        model: 'command-a-03-2025',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        temperature: 0.2,
        topP: 0.8,
        topK: 40,
        maxOutputTokens: 64,
        seed: 3,
        stop: ['END'],
        responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' } },
        reasoning: { budgetTokens: 512 },
        user: 'someone',
        parallelToolCalls: false,
      },
      false,
    );
    expect(body).toEqual({
      model: 'command-a-03-2025',
      stream: false,
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.2,
      p: 0.8,
      k: 40,
      max_tokens: 64,
      seed: 3,
      stop_sequences: ['END'],
      response_format: { type: 'json_object', json_schema: { type: 'object' } },
      thinking: { type: 'enabled', token_budget: 512 },
    });
  });

  it('sends a named tool choice as that tool alone, REQUIRED; auto as nothing; none as NONE', () => {
    const base: ModelRequest = { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], tools };
    const named = convertCohereRequest({ ...base, toolChoice: { type: 'tool', name: 'now' } }, true);
    expect(named.tools?.map((tool) => tool.function.name)).toEqual(['now']);
    expect(named.tool_choice).toBe('REQUIRED');
    expect(convertCohereRequest({ ...base, toolChoice: 'auto' }, true)).not.toHaveProperty('tool_choice');
    expect(convertCohereRequest({ ...base, toolChoice: 'none' }, true).tool_choice).toBe('NONE');
  });

  it("puts an assistant turn's reasoning back as its tool_plan beside its tool calls, and images as image_url parts", () => {
    const body = convertCohereRequest(
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image', data: 'AAAA', mediaType: 'image/png' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'I will search.' },
              { type: 'tool-call', id: 'search_1', name: 'search', arguments: '{"q":"x"}' },
            ],
          },
          { role: 'tool', toolCallId: 'search_1', content: 'found' },
        ],
      },
      false,
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
      { role: 'assistant', tool_plan: 'I will search.', tool_calls: [{ id: 'search_1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }] },
      { role: 'tool', tool_call_id: 'search_1', content: 'found' },
    ]);
  });

  it('takes providerOptions.cohere verbatim, but never over the model, the messages or stream; refuses files', () => {
    const body = convertCohereRequest(
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], providerOptions: { cohere: { safety_mode: 'STRICT', model: 'other', stream: true } } },
      false,
    );
    expect(body).toMatchObject({ model: 'm', stream: false, safety_mode: 'STRICT' });
    expect(() => convertCohereRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'file', data: 'AA', mediaType: 'application/pdf' }] }] }, false)).toThrow(JunctionError);
  });
});
