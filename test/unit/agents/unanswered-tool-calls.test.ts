import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../../src/core/model-types.ts';
import { answerUnansweredToolCalls, MOVED_ON_RESULT } from '../../../src/agents/unanswered-tool-calls.ts';

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const calls = (...ids: string[]): ModelMessage => ({ role: 'assistant', content: ids.map((id) => ({ type: 'tool-call' as const, id, name: `tool_${id}`, arguments: '{}' })) });
const result = (id: string): ModelMessage => ({ role: 'tool', toolCallId: id, content: 'done' });
const movedOn = (id: string): ModelMessage => ({ role: 'tool', toolCallId: id, name: `tool_${id}`, content: MOVED_ON_RESULT, isError: true });

describe('answerUnansweredToolCalls', () => {
  it('answers the calls a user message passed over, after the results that came', () => {
    expect(answerUnansweredToolCalls([user('a'), calls('1', '2'), result('1'), user('b')])).toEqual([user('a'), calls('1', '2'), result('1'), movedOn('2'), user('b')]);
  });

  it('leaves a transcript whose calls all have results as it is', () => {
    const transcript = [user('a'), calls('1'), result('1'), { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } satisfies ModelMessage, user('b')];
    expect(answerUnansweredToolCalls(transcript)).toEqual(transcript);
  });

  it('leaves the calls at the very end open: their results are what the run waits for', () => {
    expect(answerUnansweredToolCalls([user('a'), calls('1')])).toEqual([user('a'), calls('1')]);
  });
});
