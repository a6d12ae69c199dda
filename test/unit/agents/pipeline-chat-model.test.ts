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

const modelOver = (events: ModelStreamEvent[], onEvent?: (event: ModelStreamEvent) => void) =>
  new PipelineChatModel({ pipeline: replaying(events), context: {} as CallContext, model: 'anthropic/test', tools: [], settings: {}, ...(onEvent && { onEvent }) });
const answerOf = (events: ModelStreamEvent[]) => modelOver(events).invoke([new HumanMessage('hi')]);

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

  it("answers the runtime's own call (respond, no chunk per event) with the message LangChain's invoke merges", async () => {
    const events: ModelStreamEvent[] = [
      { type: 'reasoning-delta', delta: 'plan' },
      { type: 'reasoning-signature', signature: 'sig' },
      ...'Looking both up.'.split(' ').map((word): ModelStreamEvent => ({ type: 'text-delta', delta: `${word} ` })),
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'lookup' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'convert' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"from": "EUR", ' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"id": 7}' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '"to": "USD"}' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
    ];
    const seen: ModelStreamEvent[] = [];
    const responded = await modelOver(events, (event) => seen.push(event)).respond([new HumanMessage('hi')]);
    const invoked = await answerOf(events);
    expect(seen).toEqual(events);
    expect(toCanonicalMessage(responded)).toEqual(toCanonicalMessage(invoked));
    expect(responded.tool_calls).toEqual(invoked.tool_calls);
    expect(responded.tool_calls?.map((call) => call.args)).toEqual([{ id: 7 }, { from: 'EUR', to: 'USD' }]);
    expect(responded.usage_metadata).toEqual({ input_tokens: 3, output_tokens: 5, total_tokens: 8 });
    // (invoke's merge adds empty input/output_token_details; nothing reads them)
    expect(invoked.usage_metadata).toMatchObject(responded.usage_metadata ?? {});
    expect(responded.response_metadata).toEqual({ model: 'anthropic/test', generationId: 'gen_1', costMicros: 7 });
    expect(responded.additional_kwargs).toEqual(invoked.additional_kwargs);
  });
});
