import { HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { toCanonicalMessage, toLangChainMessage } from '../../../src/agents/langchain-messages.ts';
import { PipelineChatModel } from '../../../src/agents/pipeline-chat-model.ts';
import type { ModelStreamEvent } from '../../../src/core/model-types.ts';
import type { CallContext } from '../../../src/pipeline/call-context.ts';
import type { ChatPipeline } from '../../../src/pipeline/chat-pipeline.ts';

/** A pipeline that streams the given events and reports a fixed outcome. */
function replaying(events: ModelStreamEvent[]): ChatPipeline {
  const outcome = { usage: { inputTokens: 3, outputTokens: 5 }, costMicros: 7, model: { id: 'anthropic/test' }, generationId: 'gen_1' };
  const stream = async () => ({
    events: (async function* () {
      yield* events;
    })(),
    outcome: () => outcome,
  });
  return { stream } as unknown as ChatPipeline;
}

const answerOf = (events: ModelStreamEvent[]) =>
  new PipelineChatModel({ pipeline: replaying(events), context: {} as CallContext, model: 'anthropic/test', tools: [], settings: {} }).invoke([new HumanMessage('hi')]);

describe('PipelineChatModel', () => {
  it('keeps every reasoning block with its own signature, redacted blocks included, and the exact argument text', async () => {
    const answer = await answerOf([
      { type: 'reasoning-delta', delta: 'first ' },
      { type: 'reasoning-delta', delta: 'thought' },
      { type: 'reasoning-signature', signature: 'sig-1' },
      { type: 'reasoning-redacted', data: 'opaque' },
      { type: 'reasoning-delta', delta: 'second thought' },
      { type: 'reasoning-signature', signature: 'sig-2' },
      { type: 'text-delta', delta: 'Calling.' },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'lookup' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"amount": ' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '2.50}' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
    ]);
    const canonical = toCanonicalMessage(answer);
    expect(canonical).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'first thought', signature: 'sig-1' },
        { type: 'reasoning', text: '', redactedData: 'opaque' },
        { type: 'reasoning', text: 'second thought', signature: 'sig-2' },
        { type: 'text', text: 'Calling.' },
        { type: 'tool-call', id: 'call_a', name: 'lookup', arguments: '{"amount": 2.50}' },
      ],
    });
    // Through the graph's LangChain form and back, as the next step sends it.
    expect(toCanonicalMessage(toLangChainMessage(canonical))).toEqual(canonical);
  });
});
