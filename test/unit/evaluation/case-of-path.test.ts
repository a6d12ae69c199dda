import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../../src/conversations/conversation-repository.ts';
import type { ModelMessage } from '../../../src/core/model-types.ts';
import { caseOfPath } from '../../../src/evaluation/case-from-run.ts';
import { formatCaseLine, parseCaseLines } from '../../../src/evaluation/case-lines.ts';

let counter = 0;
const node = (message: ModelMessage, extra: Partial<StoredMessage> = {}): StoredMessage => {
  counter += 1;
  return {
    id: `msg_${counter}`,
    conversationId: 'conv_1',
    parentId: null,
    message,
    model: null,
    agentId: null,
    responseId: null,
    usage: null,
    costMicros: null,
    metadata: {},
    createdAt: new Date(0),
    ...extra,
  };
};
const user = (text: string, extra?: Partial<StoredMessage>) => node({ role: 'user', content: [{ type: 'text', text }] }, extra);
const assistant = (text: string) => node({ role: 'assistant', content: [{ type: 'text', text }] });

/** A production turn as a case: the path up to its last user message is the input, the answer after it the reference. */
describe('caseOfPath', () => {
  it('takes a single user message as a string input and the last answer text as the reference', () => {
    const call = node({ role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'lookup', arguments: '{}' }] });
    const result = node({ role: 'tool', toolCallId: 'call_1', content: 'found it' });
    expect(caseOfPath([user('where is my parcel'), call, result, assistant('On its way.')])).toEqual({ input: 'where is my parcel', reference: 'On its way.' });
  });

  it('keeps the conversation so far as messages, without tool steps or reasoning', () => {
    const thinking = node({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'Which order?' },
      ],
    });
    const path = [node({ role: 'system', content: 'Be brief.' }), user('my order is late'), thinking, user('number 42'), assistant('It ships today.')];
    expect(caseOfPath(path)).toEqual({
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'my order is late' },
        { role: 'assistant', content: 'Which order?' },
        { role: 'user', content: 'number 42' },
      ],
      reference: 'It ships today.',
    });
  });

  it('gives no reference for a path ending at a user message, and skips deleted messages', () => {
    const path = [user('first, deleted', { deletedAt: new Date(0) }), user('second')];
    expect(caseOfPath(path)).toEqual({ input: 'second', reference: null });
  });

  it('makes no case of a path without a user message', () => {
    expect(caseOfPath([assistant('hello')])).toBeUndefined();
  });
});

describe('JSONL case lines', () => {
  it('formats only the fields an import reads, so a case reads back as itself', () => {
    const entry = {
      id: 'case_1',
      datasetId: 'ds_1',
      input: [{ role: 'user' as const, content: 'hi' }],
      reference: null,
      expect: { must_contain: ['hello'] },
      tags: [],
      source: { run_id: 'run_1' },
      createdAt: new Date(0),
      updatedAt: new Date(0),
    };
    const line = formatCaseLine(entry);
    expect(JSON.parse(line)).toEqual({ input: [{ role: 'user', content: 'hi' }], expect: { must_contain: ['hello'] } });
    const parsed = parseCaseLines(`${line}\r\n\n`);
    expect(parsed).toEqual({ ok: true, cases: [{ input: entry.input, reference: null, expect: entry.expect, tags: [], source: null }] });
  });

  it('refuses at the first bad line with its number, whatever follows', () => {
    const text = ['{"input": "a"}', '{"input": ""}', 'not json'].join('\n');
    expect(parseCaseLines(text)).toMatchObject({ ok: false, line: 2, param: 'input' });
    expect(parseCaseLines('{"input": "a"}\n[1, 2]')).toMatchObject({ ok: false, line: 2, param: null });
    expect(parseCaseLines(`{"input": "a", "expect": {"tool_calls": [{"name": "x", "arguments": {"regex": "("}}]}}`)).toMatchObject({
      ok: false,
      line: 1,
      param: 'expect.tool_calls.0.arguments.regex',
    });
  });
});
