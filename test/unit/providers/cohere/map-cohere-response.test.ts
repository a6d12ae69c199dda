import { describe, expect, it } from 'vitest';
import { mapCohereResponse } from '../../../../src/providers/cohere/map-cohere-response.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';

describe('mapCohereResponse', () => {
  it('reads thinking, text, the tool plan and tool calls, skipping content it cannot carry', () => {
    const response = mapCohereResponse(
      {
        id: 'a1b2',
        finish_reason: 'TOOL_CALL',
        message: {
          role: 'assistant',
          tool_plan: 'I will check the time.',
          content: [
            { type: 'thinking', thinking: 'The user wants the time.' },
            { type: 'text', text: 'Checking.' },
            { type: 'document', document: { id: 'd1' } },
          ],
          tool_calls: [{ id: 'now_x1', type: 'function', function: { name: 'now', arguments: '' } }],
          citations: [{ start: 0, end: 3 }],
        },
        usage: { billed_units: { input_tokens: 9, output_tokens: 4 }, tokens: { input_tokens: 60, output_tokens: 4 }, cached_tokens: 0 },
        logprobs: null,
      },
      'command-a-03-2025',
    );
    expect(response).toEqual({
      id: 'a1b2',
      model: 'command-a-03-2025',
      content: [
        { type: 'reasoning', text: 'The user wants the time.' },
        { type: 'reasoning', text: 'I will check the time.' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool-call', id: 'now_x1', name: 'now', arguments: '{}' },
      ],
      usage: { inputTokens: 9, outputTokens: 4 },
      finishReason: { unified: 'tool-calls', raw: 'TOOL_CALL' },
    });
  });

  it('falls back to `tokens` without billed units, and refuses a body without a message', () => {
    expect(mapCohereResponse({ message: { content: [{ type: 'text', text: 'x' }] }, finish_reason: 'COMPLETE', usage: { tokens: { input_tokens: 3, output_tokens: 1 } } }, 'm').usage).toEqual({
      inputTokens: 3,
      outputTokens: 1,
    });
    expect(() => mapCohereResponse({ id: 'x' }, 'm')).toThrow(UpstreamError);
  });
});
