import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../../src/core/model-types.ts';
import { convertMessagesRequest, maxTokensFor, thinkingBudgetFor } from '../../../../src/providers/anthropic/convert-messages-request.ts';

describe('convertMessagesRequest', () => {
  it('builds a full Messages body: system blocks, media, tool round trip, merged turns, tools, sampling', () => {
    const request: ModelRequest = {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'You are terse.', cacheControl: { type: 'ephemeral' } },
        { role: 'system', content: 'Answer in English.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image', url: 'https://example.com/cat.png' },
            { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
            { type: 'image', data: 'R0lGODlh', mediaType: 'image/gif', cacheControl: { type: 'ephemeral', ttl: '1h' } },
            { type: 'file', data: 'JVBERi0xLjQ=', mediaType: 'application/pdf', filename: 'report.pdf' },
            { type: 'file', data: Buffer.from('plain notes').toString('base64'), mediaType: 'text/plain' },
            { type: 'file', url: 'https://example.com/paper.pdf', mediaType: 'application/pdf' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Need weather.', signature: 'sig-1' },
            { type: 'reasoning', text: '', redactedData: 'REDACTED' },
            { type: 'reasoning', text: 'foreign reasoning without signature' },
            { type: 'text', text: '' },
            { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { type: 'tool-call', id: 'toolu_2', name: 'get_time', arguments: '' },
          ],
        },
        { role: 'tool', toolCallId: 'toolu_1', content: '18°C', cacheControl: { type: 'ephemeral' } },
        { role: 'tool', toolCallId: 'toolu_2', content: 'clock broken', isError: true },
        { role: 'user', content: [{ type: 'text', text: 'Thanks. And tomorrow?' }] },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          cacheControl: { type: 'ephemeral' },
        },
      ],
      toolChoice: { type: 'tool', name: 'get_weather' },
      parallelToolCalls: false,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      maxOutputTokens: 512,
      stop: ['END'],
      seed: 7,
      user: 'user-1',
      providerOptions: { anthropic: { metadata: { user_id: 'u-42' }, service_tier: 'auto' }, gemini: { ignored: true } },
    };

    expect(convertMessagesRequest(request)).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 512,
      system: [
        { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Answer in English.' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/gif', data: 'R0lGODlh' },
              cache_control: { type: 'ephemeral', ttl: '1h' },
            },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' }, title: 'report.pdf' },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain notes' } },
            { type: 'document', source: { type: 'url', url: 'https://example.com/paper.pdf' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Need weather.', signature: 'sig-1' },
            { type: 'redacted_thinking', data: 'REDACTED' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C', cache_control: { type: 'ephemeral' } },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'clock broken', is_error: true },
            { type: 'text', text: 'Thanks. And tomorrow?' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          cache_control: { type: 'ephemeral' },
        },
      ],
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
      stop_sequences: ['END'],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      metadata: { user_id: 'u-42' },
      service_tier: 'auto',
    });
  });

  it('defaults max_tokens, and drops tool_choice when there are no tools', () => {
    expect(convertMessagesRequest({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], toolChoice: 'none' })).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('maps tool choices', () => {
    const base: ModelRequest = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ name: 't', parameters: { type: 'object' } }],
    };
    expect(convertMessagesRequest({ ...base, toolChoice: 'auto' }).tool_choice).toEqual({ type: 'auto' });
    expect(convertMessagesRequest({ ...base, toolChoice: 'required' }).tool_choice).toEqual({ type: 'any' });
    expect(convertMessagesRequest({ ...base, toolChoice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(convertMessagesRequest({ ...base, parallelToolCalls: false }).tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect(convertMessagesRequest(base).tool_choice).toBeUndefined();
  });

  it('turns reasoning into thinking, drops sampling fields Anthropic rejects with it, and keeps max_tokens above the budget', () => {
    const body = convertMessagesRequest({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Prove it.' }] }],
      reasoning: { effort: 'high' },
      temperature: 0.3,
      topK: 5,
      maxOutputTokens: 2000,
    });
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 18384,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Prove it.' }] }],
      thinking: { type: 'enabled', budget_tokens: 16384 },
    });
  });

  it('picks thinking budgets and max_tokens', () => {
    expect(thinkingBudgetFor(undefined)).toBeUndefined();
    expect(thinkingBudgetFor({ enabled: false, effort: 'high' })).toBeUndefined();
    expect(thinkingBudgetFor({ effort: 'minimal' })).toBe(1024);
    expect(thinkingBudgetFor({ effort: 'low' })).toBe(4096);
    expect(thinkingBudgetFor({ effort: 'medium' })).toBe(8192);
    expect(thinkingBudgetFor({ budgetTokens: 300 })).toBe(1024);
    expect(thinkingBudgetFor({ budgetTokens: 5000, effort: 'low' })).toBe(5000);
    expect(thinkingBudgetFor({ enabled: true })).toBe(8192);
    expect(maxTokensFor(undefined, undefined)).toBe(4096);
    expect(maxTokensFor(undefined, 8192)).toBe(12288);
    expect(maxTokensFor(20000, 8192)).toBe(20000);
    expect(maxTokensFor(8192, 8192)).toBe(16384);
  });

  it('emulates JSON output with a system instruction carrying the schema', () => {
    const body = convertMessagesRequest({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be helpful.' },
        { role: 'user', content: [{ type: 'text', text: 'A person, please.' }] },
      ],
      responseFormat: { type: 'json_schema', name: 'person', schema: { type: 'object', properties: { name: { type: 'string' } } } },
    });
    expect(body.system).toEqual([
      { type: 'text', text: 'Be helpful.' },
      {
        type: 'text',
        text: 'Respond with a single JSON value only: no prose, no Markdown code fences. It must conform to the JSON Schema "person":\n' + '{"type":"object","properties":{"name":{"type":"string"}}}',
      },
    ]);
    const jsonObject = convertMessagesRequest({ model: 'm', messages: [], responseFormat: { type: 'json_object' } });
    expect(jsonObject.system).toEqual([{ type: 'text', text: 'Respond with a single JSON value only: no prose, no Markdown code fences. The value must be a JSON object.' }]);
  });
});
