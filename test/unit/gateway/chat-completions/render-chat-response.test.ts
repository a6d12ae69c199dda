import { describe, expect, it } from 'vitest';
import type { AssistantPart, FinishReason, ModelResponse } from '../../../../src/core/model-types.ts';
import { chatCompletionJson, renderChatCompletion } from '../../../../src/gateway/chat-completions/render-chat-response.ts';
import { seededRandom } from '../../../support/generated-requests.ts';

describe('chatCompletionJson', () => {
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
    expect(JSON.parse(chatCompletionJson(response, { id: 'gen-1', model: 'openai/m', created: 7, costMicros: 1_500, provider: 'openai' }))).toEqual({
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

  it('writes what JSON.stringify of renderChatCompletion writes, over generated answers', () => {
    const rng = seededRandom(19);
    const texts = ['', 'Hello from the benchmark upstream.', 'say "hi"\\\n\t', 'Café ☕ 😀', '\u0001 \u2028 </script>', '\ud800 lone'];
    const finishes: FinishReason[] = [
      { unified: 'stop', raw: 'stop' },
      { unified: 'length', raw: 'length' },
      { unified: 'tool-calls', raw: 'tool_calls' },
      { unified: 'content-filter', raw: 'content_filter' },
      { unified: 'other', raw: undefined },
    ];
    for (let index = 0; index < 3_000; index += 1) {
      const content: AssistantPart[] = Array.from(
        { length: Math.floor(rng.next() * 4) },
        (): AssistantPart =>
          rng.pick([
            { type: 'text', text: rng.pick(texts) },
            { type: 'reasoning', text: rng.pick(texts) },
            { type: 'tool-call', id: rng.pick(['call_1', 'c"2']), name: rng.pick(['lookup', 'f\\n']), arguments: rng.pick(['{}', '{"q":"x"}', '']) },
          ]),
      );
      const response: ModelResponse = {
        id: 'chatcmpl-1',
        model: 'm',
        content,
        usage: {
          inputTokens: rng.pick([0, 12, 1_000_000]),
          outputTokens: rng.pick([0, 7]),
          ...(rng.next() < 0.3 && { cachedInputTokens: 4 }),
          ...(rng.next() < 0.3 && { reasoningTokens: 2 }),
        },
        finishReason: rng.pick(finishes),
      };
      const meta = {
        id: rng.pick(['gen-abc', 'gen-"q"']),
        model: rng.pick(['openai/gpt-4o', 'a\\b ☕']),
        created: rng.pick([0, 1769092764]),
        costMicros: rng.pick([0, 1, 1_234_567, 0.5]),
        provider: rng.pick(['openai', 'p"q']),
      };
      expect(chatCompletionJson(response, meta)).toBe(JSON.stringify(renderChatCompletion(response, meta)));
    }
  });
});
