import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JunctionError } from '../../../../src/core/errors.ts';
import { convertCountTokensBody } from '../../../../src/gateway/messages/count-tokens.ts';
import { convertMessagesBody } from '../../../../src/gateway/messages/convert-messages-request.ts';
import { CountTokensRequestSchema, MessagesRequestSchema } from '../../../../src/gateway/messages/messages-request-schema.ts';
import { parseInput } from '../../../../src/http/parse-body.ts';
import { convertMessagesRequest } from '../../../../src/providers/anthropic/convert-messages-request.ts';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../fixtures/gateway/${name}`, import.meta.url), 'utf8'));
const parse = (body: unknown) => parseInput(MessagesRequestSchema, body);
const minimal = { model: 'openai/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };

function rejection(body: unknown): JunctionError {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof JunctionError) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('convertMessagesBody', () => {
  it('turns the body @anthropic-ai/sdk sends (thinking, tools round trip, images, documents, cache_control) into the exact canonical request', () => {
    const converted = convertMessagesBody(parse(fixture('anthropic-sdk-request-full.json')));
    expect(converted).toEqual(fixture('anthropic-sdk-request-full.canonical.json'));
  });

  it('loses nothing that matters when the model is an Anthropic one', () => {
    const body = parse(fixture('anthropic-sdk-request-full.json'));
    const { request } = convertMessagesBody(body);
    const upstream = convertMessagesRequest({ ...request, model: 'claude-sonnet-4-5' });
    expect(upstream.system).toEqual(body.system);
    expect(upstream.tools).toEqual(body.tools);
    expect(upstream.thinking).toEqual(body.thinking);
    expect(upstream.metadata).toEqual(body.metadata);
    expect(upstream['service_tier']).toBe('auto');
    expect(upstream.max_tokens).toBe(4096);
    expect(upstream.stop_sequences).toEqual(['END']);
    expect(upstream.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    // The assistant turn comes back block for block, thinking signature included.
    expect(upstream.messages[1]).toEqual(body.messages[1]);
    // Tool results keep id, error flag and cache hint; the image that was inside a
    // tool_result now follows the results in the same user turn.
    expect(upstream.messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01', content: '18°C\nsunny', cache_control: { type: 'ephemeral' } },
      { type: 'tool_result', tool_use_id: 'toolu_02', content: 'clock broken', is_error: true },
      { type: 'image', source: { type: 'url', url: 'https://example.com/radar.png' } },
      { type: 'text', text: 'And tomorrow?' },
    ]);
  });

  it('maps string system, in-conversation system messages, tool_choice and sampling fields', () => {
    const converted = convertMessagesBody(
      parse({
        ...minimal,
        system: 'Be terse.',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'system', content: [{ type: 'text', text: 'Switch to French.' }] },
          { role: 'assistant', content: 'Bonjour' },
        ],
        tools: [{ type: 'custom', name: 'f', input_schema: { type: 'object' }, strict: true }],
        tool_choice: { type: 'tool', name: 'f' },
        temperature: 0.5,
        top_p: 0.9,
        top_k: 5,
        stream: false,
      }),
    );
    expect(converted).toEqual({
      model: 'openai/gpt-4o-mini',
      stream: false,
      request: {
        messages: [
          { role: 'system', content: 'Be terse.' },
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          { role: 'system', content: 'Switch to French.' },
          { role: 'assistant', content: [{ type: 'text', text: 'Bonjour' }] },
        ],
        tools: [{ name: 'f', parameters: { type: 'object' }, strict: true }],
        toolChoice: { type: 'tool', name: 'f' },
        maxOutputTokens: 100,
        temperature: 0.5,
        topP: 0.9,
        topK: 5,
      },
    });
  });

  it('maps the thinking variants and output_config, keeping Anthropic-only forms verbatim', () => {
    const adaptive = convertMessagesBody(parse({ ...minimal, thinking: { type: 'adaptive' }, output_config: { effort: 'max', format: { type: 'json_schema', schema: { type: 'object' } } } })).request;
    expect(adaptive.reasoning).toEqual({ enabled: true, effort: 'high' });
    expect(adaptive.responseFormat).toEqual({ type: 'json_schema', name: 'output', schema: { type: 'object' } });
    expect(adaptive.providerOptions).toEqual({
      anthropic: {
        thinking: { type: 'adaptive' },
        output_config: { effort: 'max', format: { type: 'json_schema', schema: { type: 'object' } } },
      },
    });
    expect(convertMessagesBody(parse({ ...minimal, thinking: { type: 'disabled' } })).request.reasoning).toEqual({ enabled: false });
    expect(convertMessagesBody(parse({ ...minimal, tool_choice: { type: 'none' } })).request.toolChoice).toBe('none');
  });

  it('accepts response content echoed back as history (citations: null, tool_use caller)', () => {
    const body = {
      ...minimal,
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'from another provider', signature: '' },
            { type: 'text', text: 'Calling.', citations: null },
            { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 }, caller: { type: 'direct' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1' }] },
      ],
    };
    expect(convertMessagesBody(parse(body)).request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'from another provider' },
          { type: 'text', text: 'Calling.' },
          { type: 'tool-call', id: 't1', name: 'f', arguments: '{"a":1}' },
        ],
      },
      { role: 'tool', toolCallId: 't1', name: 'f', content: '' },
    ]);
  });

  it('rejects blocks in the wrong role with the block path', () => {
    const body = parse({ ...minimal, messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'y' }] }] });
    expect(() => convertMessagesBody(body)).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'messages.0.content.0' }));
  });
});

describe('MessagesRequestSchema', () => {
  it('requires max_tokens', () => {
    const { max_tokens: _dropped, ...body } = minimal;
    expect(rejection(body).param).toBe('max_tokens');
  });

  it('names an unknown top-level field', () => {
    const error = rejection({ ...minimal, frequency_penalty: 1 });
    expect(error.status).toBe(400);
    expect(error.param).toBe('frequency_penalty');
    expect(error.message).toContain("'frequency_penalty'");
  });

  it('refuses server tools with a message that says why', () => {
    const error = rejection({ ...minimal, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] });
    expect(error.param).toBe('tools.0.type');
    expect(error.message).toContain('server tools');
  });

  it('refuses documented fields it cannot honour, and unsupported block types', () => {
    expect(rejection({ ...minimal, mcp_servers: [] }).message).toContain('mcp_servers is not supported');
    expect(rejection({ ...minimal, container: 'c1' }).param).toBe('container');
    const block = rejection({ ...minimal, messages: [{ role: 'user', content: [{ type: 'search_result', source: 's', title: 't', content: [] }] }] });
    expect(block.param).toBe('messages.0.content.0.type');
    expect(block.message).toContain('content block type must be one of');
  });

  it('accepts the count_tokens body, which has no max_tokens, through the same converter', () => {
    const body = parseInput(CountTokensRequestSchema, { model: 'm', messages: [{ role: 'user', content: 'hi' }], system: 'S' });
    expect(convertCountTokensBody(body)).toEqual({
      model: 'm',
      request: {
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        ],
      },
    });
    expect(() => parseInput(CountTokensRequestSchema, { ...minimal })).toThrow(/max_tokens/);
  });
});
