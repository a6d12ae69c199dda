import { describe, expect, it } from 'vitest';
import type { ModelResponse } from '../../../../src/core/model-types.ts';
import { renderChatCompletion } from '../../../../src/gateway/chat-completions/render-chat-response.ts';

describe('renderChatCompletion', () => {
  it("writes OpenAI's completion: texts and reasoning joined in order, tool calls, usage with cost", () => {
    const response: ModelResponse = {
      id: 'x',
      model: 'm',
      content: [
        { type: 'reasoning', text: 'think ' },
        { type: 'text', text: 'Hel' },
        { type: 'tool-call', id: 'call_1', name: 'lookup', arguments: '{"q":1}' },
        { type: 'reasoning', text: 'again' },
        { type: 'text', text: 'lo' },
      ],
      usage: { inputTokens: 3, outputTokens: 2, cachedInputTokens: 1 },
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    };
    expect(renderChatCompletion(response, { id: 'gen-1', model: 'openai/m', created: 7, costMicros: 1_500, provider: 'openai' })).toEqual({
      id: 'gen-1',
      object: 'chat.completion',
      created: 7,
      model: 'openai/m',
      provider: 'openai',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hello',
            refusal: null,
            reasoning: 'think again',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, prompt_tokens_details: { cached_tokens: 1 }, completion_tokens_details: { reasoning_tokens: 0 }, cost: 0.0015 },
    });
  });
});
