import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/account-repository.ts';
import type { ModelMessage } from '../../../src/core/model-types.ts';
import type { ConversationOwner } from '../../../src/conversations/conversation-repository.ts';
import { type Continuation, recordTurn, removeConversation, resolveResponseContinuation } from '../../../src/conversations/conversation-service.ts';
import {
  deleteResponse,
  findResponse,
  findResponseForContinuation,
  getResponse,
  newResponseId,
  type ResponseToSave,
  saveResponse,
  type StoredResponse,
} from '../../../src/conversations/response-repository.ts';
import { createKey } from '../../../src/keys/key-service.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

let t: TestApp;
let owner: ConversationOwner;
let sameAccountOtherKey: ConversationOwner;
let otherAccount: ConversationOwner;

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const texts = (messages: readonly ModelMessage[]) =>
  messages.map((message) => (typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : '')).join('')));

async function agentKey(accountId: string): Promise<ConversationOwner> {
  const key = await createKey(t.services.db, t.services.hasher, { accountId, kind: 'agent', settings: { name: 'agent' } });
  return { accountId, keyId: key.record.id };
}

const baseResponse = (who: ConversationOwner, overrides: Partial<ResponseToSave> = {}): ResponseToSave => ({
  id: newResponseId(),
  owner: who,
  agentId: 'helper',
  conversationId: null,
  previousResponseId: null,
  lastMessageId: null,
  status: 'completed',
  model: 'helper',
  request: { input: [], instructions: null },
  output: [],
  usage: null,
  costMicros: 0,
  error: null,
  completedAt: new Date(),
  ...overrides,
});

/** What the Responses runtime does: resolve, run (here: a canned answer), record the turn and the response together. */
async function respond(who: ConversationOwner, input: string, previousResponseId: string | null = null, store = true) {
  const continuation: Continuation & { previousResponse: StoredResponse | null } = await resolveResponseContinuation(t.services.db, {
    ...who,
    agentId: 'helper',
    previousResponseId,
  });
  const id = newResponseId();
  const answer = `answer to ${input}`;
  if (!store) return { id, continuation };
  const turn = await recordTurn(t.services.db, {
    continuation,
    messages: [
      { message: user(input), responseId: id },
      { message: assistant(answer), responseId: id, model: 'openai/gpt-4o-mini', usage: { inputTokens: 5, outputTokens: 2 }, costMicros: 7 },
    ],
    withinTransaction: async (tx, recorded) => {
      await saveResponse(
        tx,
        baseResponse(who, {
          id,
          conversationId: recorded.conversation.id,
          previousResponseId,
          lastMessageId: recorded.lastMessageId,
          request: { input: [{ type: 'message', role: 'user', content: input }], instructions: 'Be brief.' },
          output: [{ type: 'message', id: 'msg_out', role: 'assistant', content: [{ type: 'output_text', text: answer }] }],
          usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
          costMicros: 7,
        }),
      );
    },
  });
  return { id, continuation, turn };
}

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
});
afterAll(async () => t.close());

describe('stored responses', () => {
  it('stores a response with its request, output, usage and cost, and loads it for its owner only', async () => {
    const first = await respond(owner, 'hi');
    const stored = await getResponse(t.services.db, owner, first.id);
    expect(stored).toMatchObject({
      id: first.id,
      accountId: owner.accountId,
      keyId: owner.keyId,
      agentId: 'helper',
      conversationId: first.turn?.conversation.id,
      lastMessageId: first.turn?.assistantMessageId,
      status: 'completed',
      request: { instructions: 'Be brief.' },
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'answer to hi' }] }],
      usage: { total_tokens: 7 },
      costMicros: 7,
      error: null,
      store: true,
    });
    expect(stored.id).toMatch(/^resp_[0-9a-f]{48}$/);
    for (const stranger of [sameAccountOtherKey, otherAccount]) {
      expect(await findResponse(t.services.db, stranger, first.id)).toBeUndefined();
      expect(await refusal(getResponse(t.services.db, stranger, first.id))).toMatchObject({ code: 'not_found', status: 404 });
      expect(await refusal(resolveResponseContinuation(t.services.db, { ...stranger, agentId: 'helper', previousResponseId: first.id }))).toEqual({
        code: 'previous_response_not_found',
        status: 404,
        param: 'previous_response_id',
      });
      expect(await deleteResponse(t.services.db, stranger, first.id)).toBe(false);
    }
  });

  it('continues previous_response_id with the earlier input and output, on the shared tree', async () => {
    const first = await respond(owner, 'q1');
    const second = await respond(owner, 'q2', first.id);
    expect(second.continuation.previousResponse?.id).toBe(first.id);
    expect(texts(second.continuation.history)).toEqual(['q1', 'answer to q1']);
    expect(second.turn?.conversation.id).toBe(first.turn?.conversation.id);

    // Chaining again from the first response branches: the second exchange is not in the context.
    const branch = await respond(owner, 'q2-alt', first.id);
    expect(texts(branch.continuation.history)).toEqual(['q1', 'answer to q1']);
    const third = await respond(owner, 'q3', second.id);
    expect(texts(third.continuation.history)).toEqual(['q1', 'answer to q1', 'q2', 'answer to q2']);
    expect((await getResponse(t.services.db, owner, third.id)).previousResponseId).toBe(second.id);
  });

  it('does not keep store:false responses: they 404 and cannot be continued', async () => {
    const first = await respond(owner, 'stored');
    const unstored = await respond(owner, 'ephemeral', first.id, false);
    expect(texts(unstored.continuation.history)).toEqual(['stored', 'answer to stored']);
    expect(await findResponse(t.services.db, owner, unstored.id)).toBeUndefined();
    expect(await refusal(findResponseForContinuation(t.services.db, owner, unstored.id))).toEqual({
      code: 'previous_response_not_found',
      status: 404,
      param: 'previous_response_id',
    });

    // Even a row someone saved with store:false stays invisible.
    const hidden = await saveResponse(t.services.db, { ...baseResponse(owner), store: false });
    expect(hidden?.store).toBe(false);
    expect(await findResponse(t.services.db, owner, hidden?.id ?? '')).toBeUndefined();
    expect(await refusal(findResponseForContinuation(t.services.db, owner, hidden?.id ?? ''))).toMatchObject({
      code: 'previous_response_not_found',
    });
    expect(await refusal(findResponseForContinuation(t.services.db, owner, 'resp_unknown'))).toMatchObject({ status: 404 });
  });

  it('updates a response in place for its owner only', async () => {
    const queued = baseResponse(owner, { status: 'queued', completedAt: null });
    await saveResponse(t.services.db, queued);
    expect(await saveResponse(t.services.db, { ...queued, owner: sameAccountOtherKey, status: 'failed' })).toBeUndefined();
    expect((await getResponse(t.services.db, owner, queued.id)).status).toBe('queued');
    const failed = await saveResponse(t.services.db, {
      ...queued,
      status: 'failed',
      error: { code: 'upstream_error', message: 'boom' },
      completedAt: new Date(),
    });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'upstream_error', message: 'boom' } });
    expect(failed?.completedAt).toBeInstanceOf(Date);
    // Nothing was produced, so there is nothing to continue from.
    expect(await refusal(resolveResponseContinuation(t.services.db, { ...owner, agentId: 'helper', previousResponseId: queued.id }))).toEqual({
      code: 'invalid_request',
      status: 400,
      param: 'previous_response_id',
    });
  });

  it('deletes a response record, and a deleted conversation takes its responses with it', async () => {
    const kept = await respond(owner, 'keep');
    const next = await respond(owner, 'next', kept.id);
    expect(await deleteResponse(t.services.db, owner, next.id)).toBe(true);
    expect(await findResponse(t.services.db, owner, next.id)).toBeUndefined();
    expect(await findResponse(t.services.db, owner, kept.id)).toBeDefined();

    await removeConversation(t.services.db, owner, kept.turn?.conversation.id ?? '');
    expect(await refusal(getResponse(t.services.db, owner, kept.id))).toMatchObject({ status: 404 });
    expect(await refusal(resolveResponseContinuation(t.services.db, { ...owner, agentId: 'helper', previousResponseId: kept.id }))).toMatchObject({
      code: 'previous_response_not_found',
    });
  });
});
