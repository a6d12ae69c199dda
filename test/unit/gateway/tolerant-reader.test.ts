import { describe, expect, it } from 'vitest';
import { AgentChatRequestSchema } from '../../../src/agents/api/agent-chat-request.ts';
import { ChatRequestSchema } from '../../../src/gateway/chat-completions/chat-request-schema.ts';
import { MessagesRequestSchema } from '../../../src/gateway/messages/messages-request-schema.ts';
import { carryUnknownFields, droppedParamsHeaders, readTolerantly } from '../../../src/gateway/tolerant-reader.ts';
import { parseInput } from '../../../src/http/parse-body.ts';

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('readTolerantly', () => {
  it('sets unknown fields aside by path: top level kept, nested dropped', () => {
    const read = readTolerantly(MessagesRequestSchema, {
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', brand_new: 1 }] }],
      tools: [{ name: 't', input_schema: { type: 'object' }, eager_input_streaming: true }],
      new_option: { a: 1 },
    });
    expect(read.body.tools?.[0]).not.toHaveProperty('eager_input_streaming');
    expect(read.unknown.topLevel).toEqual({ new_option: { a: 1 } });
    expect(read.unknown.nested.sort()).toEqual(['messages.0.content.0.brand_new', 'tools.0.eager_input_streaming']);
    // Their values are kept with the identifying fields of the object that held them.
    expect(read.unknown.nestedFields?.find((field) => field.name === 'tools.0.eager_input_streaming')).toMatchObject({
      path: ['tools', 0, 'eager_input_streaming'],
      value: true,
      match: { name: 't' },
      applied: false,
    });
  });

  it('still refuses known fields of the wrong type and features refused by name', () => {
    expect(() => readTolerantly(ChatRequestSchema, chat({ temperature: 'hot', new_option: 1 }))).toThrow(/temperature/);
    expect(() => readTolerantly(ChatRequestSchema, chat({ audio: { voice: 'alloy' } }))).toThrow(/audio output is not supported/);
    expect(() => readTolerantly(MessagesRequestSchema, { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }], mcp_servers: [] })).toThrow(/mcp_servers/);
  });

  it('keeps a field named __proto__ a field', () => {
    const body = JSON.parse('{"model":"m","messages":[{"role":"user","content":"hi"}],"__proto__":{"polluted":true}}') as unknown;
    const read = readTolerantly(ChatRequestSchema, body);
    expect(Object.keys(read.unknown.topLevel ?? {})).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('carrying and naming unknown fields', () => {
  const unknown = { topLevel: { prompt_cache_retention: '24h' }, nested: ['messages.1.extra'] };

  it('carries top-level fields in the front-end format providerOptions, under the known ones', () => {
    const request = { messages: [], providerOptions: { openai: { store: true } } };
    carryUnknownFields(request, 'openai', { topLevel: { store: false, prompt_cache_retention: '24h' }, nested: [] });
    expect(request.providerOptions).toEqual({ openai: { store: true, prompt_cache_retention: '24h' } });
    const gemini = { messages: [] };
    carryUnknownFields(gemini, 'gemini', unknown);
    expect(gemini).toEqual({ messages: [], providerOptions: { google: { prompt_cache_retention: '24h' } } });
  });

  it('names what the served provider did not get', () => {
    expect(droppedParamsHeaders('openai', 'openai-compatible', unknown)).toEqual({ 'x-junction-dropped-params': 'messages.1.extra' });
    expect(droppedParamsHeaders('openai', 'anthropic', unknown)).toEqual({ 'x-junction-dropped-params': 'prompt_cache_retention, messages.1.extra' });
    expect(droppedParamsHeaders('gemini', undefined, { topLevel: { a: 1 }, nested: [] })).toEqual({ 'x-junction-dropped-params': 'a' });
    expect(droppedParamsHeaders('anthropic', 'anthropic', { topLevel: { a: 1 }, nested: [] })).toEqual({});
    // A nested field an adapter of the same format put in place is not named; one it could not place is.
    const placed = { name: 'tools.0.x', path: ['tools', 0, 'x'], value: 1, match: {}, applied: true };
    const unplaced = { ...placed, name: 'messages.0.y', path: ['messages', 0, 'y'], applied: false };
    const nested = { topLevel: undefined, nested: ['tools.0.x', 'messages.0.y'], nestedFields: [placed, unplaced] };
    expect(droppedParamsHeaders('anthropic', 'anthropic', nested)).toEqual({ 'x-junction-dropped-params': 'messages.0.y' });
    expect(droppedParamsHeaders('anthropic', 'openai', nested)).toEqual({ 'x-junction-dropped-params': 'tools.0.x, messages.0.y' });
  });

  it('keeps the header a valid, bounded value whatever the names', () => {
    const nested = Array.from({ length: 40 }, (_, index) => `tools.${index}.é\r\nx`);
    const header = droppedParamsHeaders('openai', 'openai', { topLevel: undefined, nested })['x-junction-dropped-params'] ?? '';
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(header.startsWith('tools.0.%C3%A9%0D%0Ax, ')).toBe(true);
    expect(header.endsWith('(8 more)')).toBe(true);
    const lone = droppedParamsHeaders('openai', 'openai', { topLevel: undefined, nested: ['a.\ud800'] });
    expect(lone['x-junction-dropped-params']).toBe('a.%EF%BF%BD');
  });
});

describe('tool messages with a name (LangChain ChatOpenAI)', () => {
  const toolTurn = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', name: 'f', content: 'r' },
  ];

  it('are accepted on /v1/chat/completions and /agents/v1/chat/completions', () => {
    expect(parseInput(ChatRequestSchema, { model: 'm', messages: toolTurn }).messages[2]).toMatchObject({ name: 'f' });
    expect(parseInput(AgentChatRequestSchema, { model: 'agent', messages: toolTurn }).messages[2]).toMatchObject({ name: 'f' });
  });

  it('an unknown field is named by its whole path', () => {
    expect(() => parseInput(ChatRequestSchema, { model: 'm', messages: [{ role: 'user', content: 'x', bogus: 1 }] })).toThrow("Unknown field 'messages.0.bogus' in request body.");
  });
});
