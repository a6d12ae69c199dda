import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * OpenAI's Conversations API over Junction's trees: `items` when a conversation is created,
 * and `DELETE /conversations/{id}/items/{item_id}` as a soft delete that lists, retrieval
 * and the history of later turns all honour.
 */
const runtime = useRuntimeGateway({ echo: 'name: Echo\nmodel: openai/test-echo\ninstructions: Repeat.\n' });

type Item = { id: string; type: string; role?: string; content?: Array<{ text?: string }> };
type SentMessage = { role: string; content: unknown; tool_calls?: unknown[] };

const initialItems = [
  { type: 'message', role: 'user', content: 'the code is 7' },
  { type: 'message', role: 'assistant', content: 'noted' },
  { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"code"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'seven' },
  { type: 'message', role: 'user', content: 'the colour is blue' },
];

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, key?: string) =>
  runtime.gateway.app.inject({
    method,
    url: `/agents/v1${url}`,
    headers: key ? { authorization: `Bearer ${key}`, 'content-type': 'application/json' } : runtime.headers(),
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
  });

async function listItems(conversationId: string): Promise<Item[]> {
  const listed = await call('GET', `/conversations/${conversationId}/items?order=asc`);
  expect(listed.statusCode).toBe(200);
  return listed.json<{ data: Item[] }>().data;
}

/** The messages the fake upstream received on the last model call. */
const lastSent = (): SentMessage[] => (runtime.gateway.openai.requests.at(-1)?.body as { messages: SentMessage[] }).messages;

describe(`conversation items on ${engineName()}`, () => {
  it('creates a conversation with its first items, which the first response continues from', async () => {
    const created = await call('POST', '/conversations', { items: initialItems, metadata: { topic: 'codes' } });
    expect(created.statusCode).toBe(200);
    const conversation = created.json<{ id: string; object: string; metadata: unknown }>();
    expect(conversation).toMatchObject({ object: 'conversation', metadata: { topic: 'codes' } });
    const items = await listItems(conversation.id);
    expect(items.map((item) => item.type)).toEqual(['message', 'message', 'function_call', 'function_call_output', 'message']);
    expect(items.map((item) => item.role ?? null)).toEqual(['user', 'assistant', null, null, 'user']);

    const answered = await call('POST', '/responses', { model: 'echo', input: 'what was the code?', conversation: conversation.id });
    expect(answered.statusCode).toBe(200);
    expect(lastSent().map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user', 'user']);
  });

  it('refuses more than 20 initial items and system messages, creating nothing', async () => {
    const before = await call('GET', '/conversations?limit=100');
    const count = before.json<{ data: unknown[] }>().data.length;
    const many = Array.from({ length: 21 }, (_, index) => ({ type: 'message', role: 'user', content: `item ${index}` }));
    expect((await call('POST', '/conversations', { items: many })).statusCode).toBe(400);
    const system = await call('POST', '/conversations', { items: [{ type: 'message', role: 'system', content: 'be terse' }] });
    expect(system.statusCode).toBe(400);
    expect(system.json()).toMatchObject({ error: { param: 'items' } });
    const after = await call('GET', '/conversations?limit=100');
    expect(after.json<{ data: unknown[] }>().data).toHaveLength(count);
  });

  it('deletes an item: it leaves the list, retrieval answers 404, and later turns do not see it', async () => {
    const conversation = (await call('POST', '/conversations', { items: initialItems })).json<{ id: string }>();
    const [first, answer, functionCall, output, last] = await listItems(conversation.id);
    if (!first || !answer || !functionCall || !output || !last) throw new Error('missing items');

    const deleted = await call('DELETE', `/conversations/${conversation.id}/items/${first.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toMatchObject({ id: conversation.id, object: 'conversation' });
    expect((await call('GET', `/conversations/${conversation.id}/items/${first.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/conversations/${conversation.id}/items/${first.id}`)).statusCode).toBe(404);
    expect((await listItems(conversation.id)).map((item) => item.id)).toEqual([answer.id, functionCall.id, output.id, last.id]);

    // Without its call, the tool result is no longer sent either: providers refuse a result that answers no call.
    expect((await call('DELETE', `/conversations/${conversation.id}/items/${functionCall.id}`)).statusCode).toBe(200);
    const answered = await call('POST', '/responses', { model: 'echo', input: 'and now?', conversation: conversation.id });
    expect(answered.statusCode).toBe(200);
    const sent = lastSent();
    expect(sent.map((message) => message.role)).toEqual(['system', 'assistant', 'user', 'user']);
    expect(sent[1]).toMatchObject({ content: 'noted' });
    expect(sent[1]?.tool_calls).toBeUndefined();
    expect(JSON.stringify(sent)).not.toContain('the code is 7');

    // The assistant's text was the node's last item: the node shows as deleted in the tree, its place kept.
    expect((await call('DELETE', `/conversations/${conversation.id}/items/${answer.id}`)).statusCode).toBe(200);
    const tree = (await call('GET', `/conversations/${conversation.id}`)).json<{
      title: string | null;
      messages: Array<{ id: string; parent_id: string | null; content: unknown; deleted?: boolean }>;
    }>();
    const node = tree.messages.find((message) => message.id === answer.id);
    expect(node).toMatchObject({ content: null, deleted: true });
    expect(tree.messages.find((message) => message.id === first.id)).toMatchObject({ content: null, deleted: true });
    expect(tree.messages.some((message) => message.parent_id === answer.id)).toBe(true);
    // The title was the deleted text: it is taken again from what is left.
    expect(tree).toMatchObject({ title: 'the colour is blue' });
    expect(JSON.stringify(tree)).not.toContain('the code is 7');
    const rows = await runtime.gateway.services.db.query<{ id: string; deleted: boolean }>('SELECT id, deleted_at IS NOT NULL AS deleted FROM conversation_messages WHERE conversation_id = $1', [
      conversation.id,
    ]);
    expect(
      rows.rows
        .filter((row) => row.deleted)
        .map((row) => row.id)
        .sort(),
    ).toEqual([first.id, answer.id].sort());

    await call('POST', '/responses', { model: 'echo', input: 'once more', conversation: conversation.id });
    expect(lastSent().map((message) => message.role)).toEqual(['system', 'user', 'user', 'assistant', 'user']);
  });

  it('another key of the account cannot delete an item: 404, and the item stays', async () => {
    const conversation = (await call('POST', '/conversations', { items: initialItems.slice(0, 2) })).json<{ id: string }>();
    const [first] = await listItems(conversation.id);
    if (!first) throw new Error('no item');
    const otherKey = await runtime.gateway.key('agent');
    expect((await call('DELETE', `/conversations/${conversation.id}/items/${first.id}`, undefined, otherKey)).statusCode).toBe(404);
    expect((await call('GET', `/conversations/${conversation.id}/items/${first.id}`)).statusCode).toBe(200);
    expect((await call('DELETE', `/conversations/${conversation.id}/items/msg_missing`)).statusCode).toBe(404);
  });
});
