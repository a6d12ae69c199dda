import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/model-types.ts';
import { convertGenerateBody } from '../../../src/gateway/gemini/convert-generate-request.ts';
import { GenerateContentRequestSchema } from '../../../src/gateway/gemini/gemini-request-schemas.ts';
import { convertMessagesBody } from '../../../src/gateway/messages/convert-messages-request.ts';
import { MessagesRequestSchema } from '../../../src/gateway/messages/messages-request-schema.ts';
import { parseInput } from '../../../src/http/parse-body.ts';
import { convertChatRequest } from '../../../src/providers/openai/convert-chat-request.ts';

/**
 * Pins what a provider-native request loses when the model behind it is an OpenAI
 * one: the Messages / Gemini front-ends keep everything canonically, and the OpenAI
 * adapter's convertChatRequest drops what chat completions has no place for. If one
 * of these starts passing through, update the README's lossy-case list.
 */
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../fixtures/gateway/${name}`, import.meta.url), 'utf8'));
const toOpenAI = (request: Omit<ModelRequest, 'model'>) => convertChatRequest({ ...request, model: 'gpt-4o-mini' }, { stream: false, kind: 'openai' });

describe('Anthropic Messages request on an OpenAI model', () => {
  const { request } = convertMessagesBody(parseInput(MessagesRequestSchema, fixture('anthropic-sdk-request-full.json')));
  const body = toOpenAI(request);
  const json = JSON.stringify(body);

  it('keeps what chat completions can express', () => {
    expect(body).toMatchObject({
      max_completion_tokens: 4096,
      stop: ['END'],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      user: 'user-42', // metadata.user_id
    });
    expect(json).toContain('"tool_call_id":"toolu_01"');
    expect(json).toContain('https://example.com/radar.png'); // image from a tool_result, moved to a user turn
  });

  it('drops thinking (budget, earlier thinking blocks, redacted thinking and signatures)', () => {
    expect(request.reasoning).toEqual({ enabled: true, budgetTokens: 2048 });
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(json).not.toContain('I should call the weather tool.');
    expect(json).not.toContain('REDACTED==');
    expect(json).not.toContain('sig-abc');
  });

  it('drops cache_control everywhere, metadata and service_tier', () => {
    expect(json).not.toContain('cache_control');
    expect(json).not.toContain('ephemeral');
    expect(body).not.toHaveProperty('metadata');
    expect(body).not.toHaveProperty('service_tier');
  });

  it('drops tool_result is_error: the error text arrives as an ordinary tool result', () => {
    const messages = body['messages'] as Array<Record<string, unknown>>;
    expect(messages.find((message) => message['tool_call_id'] === 'toolu_02')).toEqual({
      role: 'tool',
      tool_call_id: 'toolu_02',
      content: 'clock broken',
    });
  });

  it('drops top_k, and refuses documents given by URL', () => {
    const withTopK = convertMessagesBody(parseInput(MessagesRequestSchema, { model: 'm', max_tokens: 5, top_k: 5, messages: [{ role: 'user', content: 'hi' }] })).request;
    expect(withTopK.topK).toBe(5);
    expect(toOpenAI(withTopK)).not.toHaveProperty('top_k');
    const urlDocument = convertMessagesBody(
      parseInput(MessagesRequestSchema, {
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] }],
      }),
    ).request;
    expect(() => toOpenAI(urlDocument)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});

describe('Gemini generateContent request on an OpenAI model', () => {
  const converted = convertGenerateBody(parseInput(GenerateContentRequestSchema, fixture('gemini-sdk-request-full.json')));
  const withoutFileUri = {
    ...converted.request,
    messages: converted.request.messages.map((message) => (message.role === 'user' ? { ...message, content: message.content.filter((part) => part.type !== 'file') } : message)),
  };
  const body = toOpenAI(withoutFileUri);
  const json = JSON.stringify(body);

  it('keeps sampling, seed, schema and the forced tool', () => {
    expect(body).toMatchObject({
      temperature: 0.3,
      top_p: 0.9,
      seed: 7,
      stop: ['END'],
      max_completion_tokens: 1000,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: { type: 'json_schema', json_schema: { name: 'response' } },
    });
  });

  it('drops topK, thinkingBudget, thoughts, safetySettings and other google-only options', () => {
    expect(body).not.toHaveProperty('top_k');
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(body).not.toHaveProperty('safetySettings');
    expect(json).not.toContain('Thinking about the tools.');
    expect(json).not.toContain('c2lnLTE=');
    expect(json).not.toContain('HARM_CATEGORY');
  });

  it('refuses fileData URIs of non-image files', () => {
    expect(() => toOpenAI(converted.request)).toThrow(/not by URL/);
  });
});
