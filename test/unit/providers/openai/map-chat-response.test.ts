import { describe, expect, it } from 'vitest';
import { mapChatResponse, mapFinishReason } from '../../../../src/providers/openai/map-chat-response.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';
import { fixtureJson } from './load-fixture.ts';

describe('mapChatResponse', () => {
  it('maps a plain completion with its usage', () => {
    expect(mapChatResponse(fixtureJson('chat-completion.json'), 'gpt-4.1')).toEqual({
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      model: 'gpt-4.1-2025-04-14',
      content: [{ type: 'text', text: 'Hello! How can I assist you today?' }],
      usage: { inputTokens: 19, outputTokens: 10, cachedInputTokens: 0, reasoningTokens: 0 },
      finishReason: { unified: 'stop', raw: 'stop' },
    });
  });

  it('maps tool calls, keeping the arguments text verbatim, and cached tokens', () => {
    expect(mapChatResponse(fixtureJson('chat-completion-tool-calls.json'), 'gpt-4o-mini')).toEqual({
      id: 'chatcmpl-abc123',
      model: 'gpt-4o-mini-2024-07-18',
      content: [{ type: 'tool-call', id: 'call_abc123', name: 'get_current_weather', arguments: '{\n"location": "Boston, MA"\n}' }],
      usage: { inputTokens: 82, outputTokens: 17, cachedInputTokens: 64, reasoningTokens: 0 },
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    });
  });

  it('maps DeepSeek reasoning_content to a reasoning part before the text', () => {
    expect(mapChatResponse(fixtureJson('chat-completion-deepseek-reasoning.json'), 'deepseek-reasoner')).toEqual({
      id: '3f5c1e9a-7b2d-4c8e-9f01-2a3b4c5d6e7f',
      model: 'deepseek-reasoner',
      content: [
        { type: 'reasoning', text: 'Compare the tenths: 1 < 8, so 9.11 < 9.8.' },
        { type: 'text', text: '9.11 is smaller than 9.8.' },
      ],
      usage: { inputTokens: 18, outputTokens: 120, cachedInputTokens: 0, reasoningTokens: 105 },
      finishReason: { unified: 'stop', raw: 'stop' },
    });
  });

  it('fills what a minimal compatible server leaves out', () => {
    const response = mapChatResponse(
      {
        choices: [
          {
            message: {
              content: 'ok',
              reasoning: 'thought',
              tool_calls: [{ function: { name: 'f', arguments: '{}' } }],
            },
            finish_reason: null,
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 1, prompt_cache_hit_tokens: 2 },
      },
      'local-model',
    );
    expect(response.model).toBe('local-model');
    expect(response.id).toMatch(/^chatcmpl-/);
    expect(response.content[0]).toEqual({ type: 'reasoning', text: 'thought' });
    expect(response.content[1]).toEqual({ type: 'text', text: 'ok' });
    expect(response.content[2]).toMatchObject({ type: 'tool-call', name: 'f', arguments: '{}' });
    expect(response.content[2]).toHaveProperty('id', expect.stringMatching(/^call_[0-9a-f]{24}$/));
    expect(response.usage).toEqual({ inputTokens: 3, outputTokens: 1, cachedInputTokens: 2 });
    expect(response.finishReason).toEqual({ unified: 'other', raw: undefined });
  });

  it('rejects a body without choices as a non-retryable 502', () => {
    const error: unknown = (() => {
      try {
        mapChatResponse({ object: 'list' }, 'm');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 502, retryable: false });
  });

  it('maps every documented finish reason', () => {
    expect(['stop', 'length', 'tool_calls', 'function_call', 'content_filter', 'weird'].map((raw) => mapFinishReason(raw).unified)).toEqual([
      'stop',
      'length',
      'tool-calls',
      'tool-calls',
      'content-filter',
      'other',
    ]);
  });
});
