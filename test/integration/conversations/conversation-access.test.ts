import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/account-repository.ts';
import type { ModelMessage } from '../../../src/core/model-types.ts';
import type { ConversationOwner } from '../../../src/conversations/conversation-repository.ts';
import {
  getConversation,
  getConversationTree,
  pageConversations,
  type RecordedTurn,
  recordTurn,
  removeConversation,
  resolveContinuation,
  toConversationView,
} from '../../../src/conversations/conversation-service.ts';
import { createKey } from '../../../src/keys/key-service.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

let t: TestApp;
let owner: ConversationOwner;
let sameAccountOtherKey: ConversationOwner;
let otherAccount: ConversationOwner;
let mine: RecordedTurn;

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

async function agentKey(accountId: string): Promise<ConversationOwner> {
  const key = await createKey(t.services.db, t.services.hasher, { accountId, kind: 'agent', settings: { name: 'agent' } });
  return { accountId, keyId: key.record.id };
}

async function startConversation(who: ConversationOwner, text: string): Promise<RecordedTurn> {
  const continuation = await resolveContinuation(t.services.db, { ...who, agentId: 'helper' });
  return recordTurn(t.services.db, { continuation, messages: [{ message: user(text) }, { message: assistant(`re: ${text}`) }] });
}

/** Resolves and returns the JunctionError fields a route would send. */
async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeDefined();
  const { code, status, param } = error as { code: string; status: number; param: string | null };
  return { code, status, param };
}

beforeAll(async () => {
  t = await startTestApp();
  owner = await agentKey(t.services.defaultAccount.id);
  sameAccountOtherKey = await agentKey(t.services.defaultAccount.id);
  otherAccount = await agentKey((await createAccount(t.services.db, 'other')).id);
  mine = await startConversation(owner, 'mine');
});
afterAll(async () => t.close());

describe('conversation ids and ownership', () => {
  it('404s unknown conversation and message ids', async () => {
    expect(await refusal(resolveContinuation(t.services.db, { ...owner, agentId: 'helper', conversationId: 'conv_nope' }))).toEqual({
      code: 'not_found',
      status: 404,
      param: 'conversation_id',
    });
    expect(
      await refusal(
        resolveContinuation(t.services.db, {
          ...owner,
          agentId: 'helper',
          conversationId: mine.conversation.id,
          parentMessageId: 'msg_nope',
        }),
      ),
    ).toEqual({ code: 'not_found', status: 404, param: 'parent_message_id' });
    expect(await refusal(getConversation(t.services.db, owner, 'not even a prefixed id'))).toMatchObject({ status: 404 });
  });

  it.each([
    ['another account', () => otherAccount],
    ['another key of the same account', () => sameAccountOtherKey],
  ])('hides conversations and messages from %s (404)', async (_, stranger) => {
    const who = stranger();
    const conversationId = mine.conversation.id;
    expect(await refusal(resolveContinuation(t.services.db, { ...who, agentId: 'helper', conversationId }))).toMatchObject({
      code: 'not_found',
      status: 404,
    });
    expect(await refusal(getConversation(t.services.db, who, conversationId))).toMatchObject({ status: 404 });
    expect(await refusal(getConversationTree(t.services.db, who, conversationId))).toMatchObject({ status: 404 });
    expect(await refusal(removeConversation(t.services.db, who, conversationId))).toMatchObject({ status: 404 });
    expect((await pageConversations(t.services.db, who)).conversations.map((c) => c.id)).not.toContain(conversationId);

    // Their own conversation plus my message id: my message is unknown to them, not "another conversation".
    const theirs = await startConversation(who, 'theirs');
    expect(
      await refusal(
        resolveContinuation(t.services.db, {
          ...who,
          agentId: 'helper',
          conversationId: theirs.conversation.id,
          parentMessageId: mine.lastMessageId,
        }),
      ),
    ).toEqual({ code: 'not_found', status: 404, param: 'parent_message_id' });
    // Still intact for the owner.
    expect((await getConversation(t.services.db, owner, conversationId)).id).toBe(conversationId);
  });

  it('400s a parent message of another conversation of the same owner', async () => {
    const other = await startConversation(owner, 'other');
    expect(
      await refusal(
        resolveContinuation(t.services.db, {
          ...owner,
          agentId: 'helper',
          conversationId: mine.conversation.id,
          parentMessageId: other.lastMessageId,
        }),
      ),
    ).toEqual({ code: 'invalid_request', status: 400, param: 'parent_message_id' });
  });

  it('400s a parent message without a conversation id', async () => {
    expect(await refusal(resolveContinuation(t.services.db, { ...owner, agentId: 'helper', parentMessageId: mine.lastMessageId }))).toEqual({
      code: 'invalid_request',
      status: 400,
      param: 'parent_message_id',
    });
  });

  it('deletes a conversation; afterwards its conversation and message ids are 404 everywhere', async () => {
    const doomed = await startConversation(owner, 'doomed');
    const continuation = await resolveContinuation(t.services.db, { ...owner, agentId: 'helper', conversationId: doomed.conversation.id });
    await removeConversation(t.services.db, owner, doomed.conversation.id);

    expect(await refusal(getConversation(t.services.db, owner, doomed.conversation.id))).toMatchObject({ status: 404 });
    expect(await refusal(getConversationTree(t.services.db, owner, doomed.conversation.id))).toMatchObject({ status: 404 });
    expect(await refusal(removeConversation(t.services.db, owner, doomed.conversation.id))).toMatchObject({ status: 404 });
    expect(await refusal(resolveContinuation(t.services.db, { ...owner, agentId: 'helper', conversationId: doomed.conversation.id }))).toMatchObject({ code: 'not_found', param: 'conversation_id' });
    const rows = await t.services.db.query('SELECT id FROM conversation_messages WHERE conversation_id = $1', [doomed.conversation.id]);
    expect(rows.rows).toEqual([]);
    // A turn resolved before the delete and recorded after it is refused, not resurrected.
    expect(await refusal(recordTurn(t.services.db, { continuation, messages: [{ message: user('late') }] }))).toMatchObject({
      code: 'not_found',
      status: 404,
    });
  });

  it('lists own conversations newest first, paged by cursor', async () => {
    const who = await agentKey(t.services.defaultAccount.id);
    const made: string[] = [];
    for (const text of ['one', 'two', 'three', 'four', 'five']) made.push((await startConversation(who, text)).conversation.id);
    const first = await pageConversations(t.services.db, who, { limit: 2 });
    expect(first.conversations.map((c) => c.title)).toEqual(['five', 'four']);
    expect(first.hasMore).toBe(true);
    const second = await pageConversations(t.services.db, who, { limit: 2, after: first.conversations[1]?.id ?? null });
    expect(second.conversations.map((c) => c.title)).toEqual(['three', 'two']);
    const last = await pageConversations(t.services.db, who, { limit: 2, after: second.conversations[1]?.id ?? null });
    expect(last).toMatchObject({ hasMore: false });
    expect(last.conversations.map((c) => c.id)).toEqual([made[0]]);
    expect(await refusal(pageConversations(t.services.db, who, { after: mine.conversation.id }))).toMatchObject({
      status: 400,
      param: 'after',
    });
    expect(toConversationView(first.conversations[0] ?? mine.conversation)).toEqual({
      id: made[4],
      object: 'conversation',
      agent: 'helper',
      title: 'five',
      metadata: {},
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
  });
});
