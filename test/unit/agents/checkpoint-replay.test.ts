import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { replayedEvents } from '../../../src/agents/durable/checkpoint-replay.ts';
import { ResponseEventEncoder } from '../../../src/agents/responses/response-event-encoder.ts';

/**
 * A run taken over streams again what its checkpoint holds beyond what its response
 * shows. Through the Responses encoder those events must give the items the live run
 * would have: each answer a message, each server tool call one item carrying its result,
 * a client tool call a `function_call`, and each step's usage counted once.
 */
const answer = (fields: { text: string; calls?: Array<{ id: string; name: string; arguments: string }>; input: number; output: number; cost: number }) =>
  new AIMessage({
    content: fields.text,
    tool_calls: (fields.calls ?? []).map((call) => ({ id: call.id, name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown>, type: 'tool_call' as const })),
    additional_kwargs: fields.calls ? { rawArguments: Object.fromEntries(fields.calls.map((call) => [call.id, call.arguments])) } : {},
    usage_metadata: { input_tokens: fields.input, output_tokens: fields.output, total_tokens: fields.input + fields.output },
    response_metadata: { model: 'openai/gpt-test', generationId: 'gen-1', costMicros: fields.cost },
  });

const encoderFor = (clientTools: string[] = []) => new ResponseEventEncoder({ isClientTool: (name) => clientTools.includes(name), snapshot: (status, output) => ({ status, output }) });

const turn = [
  new HumanMessage('make it loud'),
  answer({ text: 'Let me check.', calls: [{ id: 'call_1', name: 'echo_upper', arguments: '{"text":"hi"}' }], input: 10, output: 4, cost: 30 }),
  new ToolMessage({ content: 'HI', tool_call_id: 'call_1', name: 'echo_upper', status: 'success' }),
  answer({ text: 'It says HI.', input: 20, output: 3, cost: 50 }),
];

describe('the events a checkpoint is streamed again as', () => {
  it('give the items and usage of the steps after what the response shows', () => {
    const encoder = encoderFor();
    for (const event of replayedEvents({ messages: turn, steps: 2, finish: { unified: 'stop', raw: 'stop' } }, 1)) encoder.encode(event);
    encoder.closeAll();
    expect(encoder.output).toMatchObject([
      { type: 'message', phase: 'commentary', status: 'completed', content: [{ type: 'output_text', text: 'Let me check.' }] },
      { type: 'junction:tool_call', call_id: 'call_1', name: 'echo_upper', arguments: '{"text":"hi"}', output: 'HI', status: 'completed' },
      { type: 'message', phase: 'final_answer', status: 'completed', content: [{ type: 'output_text', text: 'It says HI.' }] },
    ]);
    expect(encoder.totals).toMatchObject({ usage: { inputTokens: 30, outputTokens: 7 }, modelCostMicros: 80 });
  });

  it('start after the messages already shown, and nothing is sent when all are', () => {
    const encoder = encoderFor();
    for (const event of replayedEvents({ messages: turn, steps: 2, finish: { unified: 'stop', raw: 'stop' } }, 3)) encoder.encode(event);
    encoder.closeAll();
    expect(encoder.output).toMatchObject([{ type: 'message', content: [{ text: 'It says HI.' }] }]);
    expect(encoder.totals.modelCostMicros).toBe(50);
    expect(replayedEvents({ messages: turn, steps: 2, finish: undefined }, turn.length)).toEqual([]);
  });

  it('show a client tool call as the function call the client answers, and a step cut short as incomplete', () => {
    const encoder = encoderFor(['lookup']);
    const messages = [new HumanMessage('look it up'), answer({ text: '', calls: [{ id: 'call_9', name: 'lookup', arguments: '{"q":"x"}' }], input: 5, output: 2, cost: 10 })];
    for (const event of replayedEvents({ messages, steps: 1, finish: { unified: 'tool-calls', raw: 'tool_calls' } }, 1)) encoder.encode(event);
    encoder.closeAll();
    expect(encoder.output).toMatchObject([{ type: 'function_call', call_id: 'call_9', name: 'lookup', arguments: '{"q":"x"}', status: 'completed' }]);

    const cut = encoderFor();
    const long = [new HumanMessage('go on'), answer({ text: 'and then', input: 5, output: 2, cost: 10 })];
    for (const event of replayedEvents({ messages: long, steps: 1, finish: { unified: 'length', raw: 'length' } }, 1)) cut.encode(event);
    cut.closeAll();
    expect(cut.output).toMatchObject([{ type: 'message', status: 'incomplete', content: [{ text: 'and then' }] }]);
  });
});
