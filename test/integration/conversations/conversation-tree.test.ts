import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../../src/core/model-types.ts';
import type { ConversationOwner, NewMessage } from '../../../src/conversations/conversation-repository.ts';
import { findPath } from '../../../src/conversations/conversation-repository.ts';
import { getConversationTree, recordTurn, resolveContinuation, toTreeView } from '../../../src/conversations/conversation-service.ts';
import { createKey } from '../../../src/keys/key-service.ts';
import { recordStatements } from '../../support/statement-recorder.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

let t: TestApp;
let owner: ConversationOwner;

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const texts = (messages: readonly ModelMessage[]) =>
  messages.map((message) => (typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : '')).join('')));

/** One chat turn: resolve where it attaches, then record the user and assistant messages. */
async function turn(where: { conversationId?: string; parentMessageId?: string }, messages: NewMessage[]) {
  const continuation = await resolveContinuation(t.services.db, { ...owner, agentId: 'helper', ...where });
  const recorded = await recordTurn(t.services.db, { continuation, messages });
  return { continuation, recorded };
}

beforeAll(async () => {
  t = await startTestApp();
  const key = await createKey(t.services.db, t.services.hasher, {
    accountId: t.services.defaultAccount.id,
    kind: 'agent',
    settings: { name: 'tree' },
  });
  owner = { accountId: key.record.accountId, keyId: key.record.id };
});
afterAll(async () => t.close());

describe('conversation trees', () => {
  it('starts a conversation without a conversation id, titled by the first user text', async () => {
    const { continuation, recorded } = await turn({}, [
      { message: user('  What is   the capital of France? '.repeat(5)) },
      { message: assistant('Paris.'), model: 'openai/gpt-4o-mini', usage: { inputTokens: 12, outputTokens: 3 }, costMicros: 42 },
    ]);
    expect(continuation).toMatchObject({ isNew: true, parentMessageId: null, history: [] });
    expect(recorded.conversation.id).toBe(continuation.conversation.id);
    expect(recorded.conversation.id).toMatch(/^conv_[0-9a-f]{48}$/);
    expect(recorded.conversation.title).toHaveLength(80);
    expect(recorded.conversation.title?.startsWith('What is the capital of France? What')).toBe(true);
    expect(recorded.messages.map((node) => node.parentId)).toEqual([null, recorded.userMessageId]);
    expect(recorded.assistantMessageId).toBe(recorded.lastMessageId);
    expect(recorded.messages[1]).toMatchObject({ model: 'openai/gpt-4o-mini', usage: { inputTokens: 12, outputTokens: 3 }, costMicros: 42 });
  });

  it('continues from the latest message, branches from an earlier one, and regenerates', async () => {
    const first = await turn({}, [{ message: user('u1') }, { message: assistant('a1') }]);
    const conversationId = first.recorded.conversation.id;

    const second = await turn({ conversationId }, [{ message: user('u2') }, { message: assistant('a2') }]);
    expect(second.continuation.parentMessageId).toBe(first.recorded.assistantMessageId);
    expect(texts(second.continuation.history)).toEqual(['u1', 'a1']);

    // Edit: a new user message under a1 is a sibling of u2; the model never sees u2/a2.
    const edit = await turn({ conversationId, parentMessageId: first.recorded.assistantMessageId ?? '' }, [{ message: user('u2-edited') }, { message: assistant('a2-edited') }]);
    expect(texts(edit.continuation.history)).toEqual(['u1', 'a1']);

    // Latest = the last message appended, which is on the edited branch.
    const afterEdit = await resolveContinuation(t.services.db, { ...owner, agentId: 'helper', conversationId });
    expect(afterEdit.parentMessageId).toBe(edit.recorded.assistantMessageId);
    expect(texts(afterEdit.history)).toEqual(['u1', 'a1', 'u2-edited', 'a2-edited']);

    // Regenerate: a second assistant child of u2.
    const regenerated = await turn({ conversationId, parentMessageId: second.recorded.userMessageId ?? '' }, [{ message: assistant('a2-again') }]);
    expect(texts(regenerated.continuation.history)).toEqual(['u1', 'a1', 'u2']);
    expect(regenerated.recorded.userMessageId).toBeNull();
    const branchTip = await resolveContinuation(t.services.db, { ...owner, agentId: 'helper', conversationId });
    expect(texts(branchTip.history)).toEqual(['u1', 'a1', 'u2', 'a2-again']);

    const tree = await getConversationTree(t.services.db, owner, conversationId);
    const children = (id: string | null) => tree.messages.filter((node) => node.parentId === id).map((node) => texts([node.message])[0]);
    expect(children(null)).toEqual(['u1']);
    expect(children(first.recorded.assistantMessageId)).toEqual(['u2', 'u2-edited']);
    expect(children(second.recorded.userMessageId)).toEqual(['a2', 'a2-again']);
    expect(tree.messages).toHaveLength(7);
  });

  it('keeps tool calls, reasoning and tool results, and renders the tree with parent ids', async () => {
    const { recorded } = await turn({}, [
      { message: user('Weather in Oslo?') },
      {
        message: {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Need the tool.', signature: 'sig-1' },
            { type: 'tool-call', id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
          ],
        },
        model: 'anthropic/claude-sonnet-4-5',
        usage: { inputTokens: 20, outputTokens: 10 },
        costMicros: 1500,
      },
      { message: { role: 'tool', toolCallId: 'call_1', name: 'weather', content: '{"temp":3}', isError: false } },
      { message: assistant('It is 3 °C in Oslo.'), model: 'anthropic/claude-sonnet-4-5' },
    ]);
    const path = await findPath(t.services.db, recorded.conversation.id, recorded.lastMessageId);
    expect(path.map((node) => node.message)).toEqual([
      user('Weather in Oslo?'),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Need the tool.', signature: 'sig-1' },
          { type: 'tool-call', id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', name: 'weather', content: '{"temp":3}', isError: false },
      assistant('It is 3 °C in Oslo.'),
    ]);

    const tree = await getConversationTree(t.services.db, owner, recorded.conversation.id);
    const view = toTreeView(tree.conversation, tree.messages);
    const ids = recorded.messages.map((node) => node.id);
    expect(view).toMatchObject({
      id: recorded.conversation.id,
      object: 'conversation',
      agent: 'helper',
      title: 'Weather in Oslo?',
      latest_message_id: ids[3],
    });
    expect(typeof view.created_at).toBe('number');
    expect(view.messages).toEqual([
      expect.objectContaining({ id: ids[0], parent_id: null, role: 'user', content: 'Weather in Oslo?', usage: null }),
      expect.objectContaining({
        id: ids[1],
        parent_id: ids[0],
        role: 'assistant',
        content: null,
        reasoning: 'Need the tool.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
        model: 'anthropic/claude-sonnet-4-5',
        usage: { input_tokens: 20, output_tokens: 10, total_tokens: 30, cost: 0.0015 },
      }),
      expect.objectContaining({ id: ids[2], parent_id: ids[1], role: 'tool', tool_call_id: 'call_1', content: '{"temp":3}' }),
      expect.objectContaining({ id: ids[3], parent_id: ids[2], role: 'assistant', content: 'It is 3 °C in Oslo.' }),
    ]);
  });

  it('walks a 300-node chain root first', async () => {
    const nodes: NewMessage[] = Array.from({ length: 300 }, (_, index) => ({
      message: index % 2 === 0 ? user(`u${index}`) : assistant(`a${index}`),
    }));
    const { recorded } = await turn({}, nodes.slice(0, 150));
    const rest = await turn({ conversationId: recorded.conversation.id }, nodes.slice(150));
    expect(rest.continuation.history).toHaveLength(150);

    const recorder = recordStatements(t.services.db);
    const continuation = await resolveContinuation(t.services.db, {
      ...owner,
      agentId: 'helper',
      conversationId: recorded.conversation.id,
    }).finally(() => recorder.stop());
    expect(continuation.history).toEqual(nodes.map((node) => node.message));
    expect(continuation.path[0]?.parentId).toBeNull();
    // The chain is walked by the database in a few statements, not one round trip per node.
    expect(recorder.statements.length).toBeLessThanOrEqual(5);

    const middle = rest.recorded.messages[49];
    const partial = await findPath(t.services.db, recorded.conversation.id, middle?.id ?? '');
    expect(partial).toHaveLength(200);
    expect(partial.at(-1)?.id).toBe(middle?.id);
  });
});
