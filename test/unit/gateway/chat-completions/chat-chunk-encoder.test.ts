import { describe, expect, it } from 'vitest';
import { ChatChunkEncoder } from '../../../../src/gateway/chat-completions/chat-chunk-encoder.ts';
import { chatUsageJson, toChatUsage } from '../../../../src/gateway/chat-completions/render-chat-response.ts';

const meta = { id: 'gen-1', model: 'openai/gpt-x', created: 1700000000, provider: 'openai' };
const base = { id: 'gen-1', object: 'chat.completion.chunk', created: 1700000000, model: 'openai/gpt-x', provider: 'openai' };

describe('ChatChunkEncoder', () => {
  it('writes OpenAI chunks: role on the first delta, text with quotes and newlines intact, tool calls, finish, usage', () => {
    const encoder = new ChatChunkEncoder(meta, { conversation_id: 'conv_1' });
    const texts = [
      ...encoder.encode({ type: 'text-delta', delta: 'He said "hi"\n' }),
      ...encoder.encode({ type: 'reasoning-delta', delta: 'why' }),
      ...encoder.encode({ type: 'tool-call-start', index: 0, id: 'call_1', name: 'lookup' }),
      ...encoder.encode({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"q":1}' }),
      ...encoder.encode({ type: 'usage', usage: { inputTokens: 3, outputTokens: 5 } }),
      ...encoder.encode({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' } }),
      ...encoder.finish(1_500, true),
    ];
    const chunks = texts.map((text) => JSON.parse(text) as Record<string, unknown>);
    const withIds = { ...base, conversation_id: 'conv_1' };
    const delta = (value: object) => ({ ...withIds, choices: [{ index: 0, delta: value, logprobs: null, finish_reason: null }] });
    expect(chunks).toEqual([
      delta({ role: 'assistant', content: 'He said "hi"\n' }),
      delta({ reasoning: 'why' }),
      delta({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"q":1}' } }] }),
      { ...withIds, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }] },
      {
        ...withIds,
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 }, cost: 0.0015 },
      },
    ]);
  });

  it('sends the role with an empty content when nothing was produced, and no usage chunk unless asked', () => {
    const encoder = new ChatChunkEncoder(meta);
    const chunks = encoder.finish(0, false, { inputTokens: 1, outputTokens: 0 }).map((text) => JSON.parse(text) as unknown);
    expect(chunks).toEqual([
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] },
    ]);
  });
});

describe('the chunk opening and usage written by hand', () => {
  it('match JSON.stringify of the objects they stand for', () => {
    const cases: Array<Record<string, unknown> | undefined> = [
      undefined,
      {},
      { conversation_id: 'conv_1', message_id: 'msg "2"', skipped: undefined, 'ключ ☕': [1, { a: null }] },
      // A field that replaces one of the opening's keeps its place.
      { model: 'agent:support', conversation_id: 'conv_1' },
    ];
    for (const extra of cases) {
      const encoder = new ChatChunkEncoder({ ...meta, id: 'gen-"quoted"\n' }, extra);
      const [chunk] = encoder.finish(0, false, undefined);
      const expected = { ...base, id: 'gen-"quoted"\n', ...extra, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] };
      expect(chunk).toBe(JSON.stringify(expected));
    }
  });

  it('write usage as toChatUsage serializes, odd numbers included', () => {
    const usages = [
      { inputTokens: 3, outputTokens: 5 },
      { inputTokens: 0, outputTokens: 0, cachedInputTokens: 2, reasoningTokens: 9 },
      { inputTokens: 1e21, outputTokens: Number.NaN },
    ];
    for (const usage of usages) for (const cost of [0, 1, 1_234_567, 0.5]) expect(chatUsageJson(usage, cost)).toBe(JSON.stringify(toChatUsage(usage, cost)));
  });
});
