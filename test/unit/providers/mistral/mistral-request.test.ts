import { describe, expect, it } from 'vitest';
import { convertMistralRequest, mistralToolCallId } from '../../../../src/providers/mistral/mistral-request.ts';
import { readMistralErrorMessage } from '../../../../src/providers/mistral/mistral-error.ts';

describe('convertMistralRequest', () => {
  it("renames seed and required, leaves out OpenAI-only fields, and keeps Mistral's own", () => {
    const body = convertMistralRequest(
      {
        model: 'mistral-small-latest',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
        tools: [{ name: 'now', parameters: { type: 'object' } }],
        toolChoice: 'required',
        seed: 5,
        user: 'u',
        maxOutputTokens: 10,
        reasoning: { effort: 'low' },
        providerOptions: { openai: { safe_prompt: true } },
      },
      true,
      'mistral',
    );
    expect(JSON.parse(JSON.stringify(body))).toEqual({
      model: 'mistral-small-latest',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'now', parameters: { type: 'object' } } }],
      tool_choice: 'any',
      random_seed: 5,
      max_tokens: 10,
      safe_prompt: true,
      stream: true,
    });
  });

  it('maps foreign tool-call ids to nine letters and digits, the same on the call and its result', () => {
    const body = convertMistralRequest(
      {
        model: 'm',
        messages: [
          { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_01ABC', name: 'now', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'toolu_01ABC', content: 'noon' },
          { role: 'assistant', content: [{ type: 'tool-call', id: 'D681PevKs', name: 'now', arguments: '{}' }] },
        ],
      },
      false,
      'mistral',
    );
    const messages = body['messages'] as Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    const mapped = messages[0]?.tool_calls?.[0]?.id;
    expect(mapped).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(messages[1]?.tool_call_id).toBe(mapped);
    expect(messages[2]?.tool_calls?.[0]?.id).toBe('D681PevKs');
    expect(mistralToolCallId('call_other')).not.toBe(mapped);
  });

  it("reads Mistral's validation errors as field and message", () => {
    expect(readMistralErrorMessage({ object: 'error', message: { detail: [{ loc: ['body', 'seed'], msg: 'Extra inputs are not permitted' }] } })).toBe('body.seed: Extra inputs are not permitted');
    expect(readMistralErrorMessage({ object: 'error', message: 'Invalid model: x' })).toBe('Invalid model: x');
  });
});
