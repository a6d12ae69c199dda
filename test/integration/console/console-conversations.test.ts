import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import type { ConversationDetail, ConversationPage } from '../../../src/console/contract/conversations.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { type GatewayHarness, startGateway } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';

/**
 * Conversations in the console: those made through the Agents API (chat completions with
 * conversation_id, Responses with conversation) and the playground, listed per agent and
 * opened as trees with each run's usage, only for the signed-in account, and for a member
 * only their own playground's.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let member: ConsoleSession;
let stranger: ConsoleSession;
let agentKey: string;
let agentKeyId: string;
let otherKey: string;

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'member@example.com', password: 'member password 1', role: 'member' });
  const other = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'Other team' })) as { data: { id: string } };
  await runAdminCommand(gateway.services, { command: 'credits.grant', account: other.data.id, amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', account: other.data.id, email: 'stranger@example.com', password: 'stranger password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  member = await signIn(gateway.app, 'member@example.com', 'member password 1');
  stranger = await signIn(gateway.app, 'stranger@example.com', 'stranger password 1');
  // The other account has an agent of the same id: ids are per account, conversations too.
  const saved = await stranger.request('PUT', '/console/api/agents/echo', { definition: { name: 'Their echo', model: 'openai/test-echo', instructions: 'Repeat.' } });
  expect(saved.statusCode, saved.body).toBe(201);
  agentKey = await gateway.key('agent', { name: 'support app' });
  otherKey = await gateway.key('agent', { name: 'other app' }, other.data.id);
  const keys = await gateway.services.db.query<{ id: string }>("SELECT id FROM api_keys WHERE name = 'support app'");
  agentKeyId = keys.rows[0]?.id ?? '';
});
afterAll(async () => gateway?.close());

const chat = async (payload: Record<string, unknown>, key = agentKey) => {
  const response = await gateway.app.inject({ method: 'POST', url: '/agents/v1/chat/completions', headers: bearer(key), payload });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ conversation_id: string; message_id: string }>();
};
const list = async (session: ConsoleSession, agentId: string, query = '') => {
  const response = await session.request('GET', `/console/api/agents/${agentId}/conversations${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<ConversationPage>();
};
const open = async (session: ConsoleSession, id: string) => {
  const response = await session.request('GET', `/console/api/conversations/${id}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<ConversationDetail>();
};

/** What the usage log holds for a run, summed: what the console must show for it. */
async function usageOfRun(runId: string) {
  await gateway.settle();
  const result = await gateway.services.db.query<{ calls: string; input_tokens: string; output_tokens: string; cost_micros: string }>(
    'SELECT count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_micros) AS cost_micros FROM usage_log WHERE agent_run_id = $1',
    [runId],
  );
  const row = result.rows[0];
  return { calls: Number(row?.calls), input_tokens: Number(row?.input_tokens), output_tokens: Number(row?.output_tokens), cost_usd: Number(row?.cost_micros) / 1_000_000 };
}

describe('conversations in the console', () => {
  let chatConversation: string;

  it('lists a chat-completions conversation continued by conversation_id, and opens it with its tool step and run usage', async () => {
    const first = await chat({ model: 'helper', messages: [{ role: 'user', content: 'shout fake please' }] });
    await chat({ model: 'helper', conversation_id: first.conversation_id, messages: [{ role: 'user', content: 'and again' }] });
    chatConversation = first.conversation_id;

    const page = await list(owner, 'helper');
    const listed = page.data.find((conversation) => conversation.id === chatConversation);
    expect(listed).toMatchObject({ agent_id: 'helper', title: 'shout fake please', message_count: 6, key: { id: agentKeyId, name: 'support app', source: 'api', caller: 'support app' } });

    const detail = await open(owner, chatConversation);
    expect(detail.messages.map((node) => node.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    const call = detail.messages[1];
    expect(call?.tool_calls).toEqual([{ id: 'call_fake_0', name: 'echo_upper', arguments: '{"text":"fake"}' }]);
    expect(detail.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_fake_0', text: 'FAKE' });
    expect(detail.messages[3]?.text).toBe('Tool echo_upper returned: FAKE');
    expect(detail.latest_message_id).toBe(detail.messages[5]?.id);

    // Each turn names its run, and the run's usage is the sum of the usage rows with that run id.
    const firstRun = detail.messages[1]?.run_id;
    const secondRun = detail.messages[5]?.run_id;
    expect(firstRun).toMatch(/^run_/);
    expect(secondRun).toMatch(/^run_/);
    expect(secondRun).not.toBe(firstRun);
    expect(detail.messages[3]?.run_id).toBe(firstRun);
    expect(detail.messages[0]?.run_id).toBeNull();
    const firstUsage = detail.runs.find((run) => run.run_id === firstRun);
    // Two model calls and the priced tool call.
    expect(firstUsage).toEqual({ run_id: firstRun, ...(await usageOfRun(firstRun as string)) });
    expect(firstUsage?.calls).toBe(3);
    expect(firstUsage?.cost_usd).toBeGreaterThan(0.002);
    expect(detail.runs.find((run) => run.run_id === secondRun)).toEqual({ run_id: secondRun, ...(await usageOfRun(secondRun as string)) });
  });

  it('shows a branch made with parent_message_id as a second child of the same message', async () => {
    const detail = await open(owner, chatConversation);
    const firstAnswer = detail.messages[3]?.id;
    await chat({ model: 'helper', conversation_id: chatConversation, parent_message_id: firstAnswer, messages: [{ role: 'user', content: 'a different follow-up' }] });
    const branched = await open(owner, chatConversation);
    const children = branched.messages.filter((node) => node.parent_id === firstAnswer);
    expect(children.map((node) => node.text)).toEqual(['and again', 'a different follow-up']);
    expect(branched.latest_message_id).toBe(branched.messages.at(-1)?.id);
  });

  it('lists a Responses conversation joined with `conversation`, under the agent that spoke in it', async () => {
    const created = await gateway.app.inject({ method: 'POST', url: '/agents/v1/conversations', headers: bearer(agentKey), payload: {} });
    const conversationId = created.json<{ id: string }>().id;
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/agents/v1/responses',
      headers: bearer(agentKey),
      payload: { model: 'echo', input: 'hello by responses', conversation: conversationId },
    });
    expect(response.statusCode, response.body).toBe(200);
    const responseId = response.json<{ id: string }>().id;

    const listed = (await list(owner, 'echo')).data.find((conversation) => conversation.id === conversationId);
    expect(listed).toMatchObject({ agent_id: 'echo', title: 'hello by responses', message_count: 2 });
    expect((await list(owner, 'helper')).data.map((conversation) => conversation.id)).not.toContain(conversationId);
    const detail = await open(owner, conversationId);
    expect(detail.messages.map((node) => [node.role, node.text, node.response_id])).toEqual([
      ['user', 'hello by responses', responseId],
      ['assistant', 'hello by responses', responseId],
    ]);
    const runId = detail.messages[1]?.run_id as string;
    expect(detail.runs).toEqual([{ run_id: runId, ...(await usageOfRun(runId)) }]);
  });

  it('pages newest first by cursor and filters by key', async () => {
    const second = await chat({ model: 'echo', messages: [{ role: 'user', content: 'echo one' }] });
    const third = await chat({ model: 'echo', messages: [{ role: 'user', content: 'echo two' }] });
    const first = await list(owner, 'echo', '?limit=2');
    expect(first.data.map((conversation) => conversation.id)).toEqual([third.conversation_id, second.conversation_id]);
    expect(first.next_cursor).toBe(second.conversation_id);
    const next = await list(owner, 'echo', `?limit=2&cursor=${first.next_cursor}`);
    expect(next.data.map((conversation) => conversation.title)).toEqual(['hello by responses']);
    expect(next.next_cursor).toBeNull();

    const otherKeyId = (await gateway.services.db.query<{ id: string }>("SELECT id FROM api_keys WHERE name = 'other app'")).rows[0]?.id;
    expect((await list(owner, 'echo', `?key_id=${agentKeyId}`)).data).toHaveLength(3);
    expect((await list(owner, 'echo', `?key_id=${otherKeyId}`)).data).toEqual([]);
    expect((await owner.request('GET', '/console/api/agents/echo/conversations?limit=0')).statusCode).toBe(400);
  });

  it('never shows another account’s conversations: 404 by id, absent from lists, empty by its key', async () => {
    const theirs = await chat({ model: 'echo', messages: [{ role: 'user', content: 'the other team speaks' }] }, otherKey);
    const refused = await owner.request('GET', `/console/api/conversations/${theirs.conversation_id}`);
    expect(refused.statusCode).toBe(404);
    expect(refused.body).not.toContain('the other team speaks');
    expect((await list(owner, 'echo')).data.map((conversation) => conversation.id)).not.toContain(theirs.conversation_id);
    expect((await list(owner, 'echo', `?cursor=${theirs.conversation_id}`)).data).toEqual([]);

    expect((await stranger.request('GET', `/console/api/conversations/${chatConversation}`)).statusCode).toBe(404);
    expect((await list(stranger, 'helper')).data).toEqual([]);
    expect((await list(stranger, 'echo', `?key_id=${agentKeyId}`)).data).toEqual([]);
    expect((await list(stranger, 'echo')).data.map((conversation) => conversation.id)).toEqual([theirs.conversation_id]);
  });

  it('shows a member only their own playground conversations, named by their email', async () => {
    expect((await list(member, 'echo')).data).toEqual([]);
    const created = await member.request('POST', '/agents/v1/conversations', {});
    const conversationId = created.json<{ id: string }>().id;
    const ran = await member.request('POST', '/agents/v1/responses', { model: 'echo', input: 'from the playground', conversation: conversationId });
    expect(ran.statusCode, ran.body).toBe(200);

    expect((await list(member, 'echo')).data).toEqual([
      expect.objectContaining({ id: conversationId, title: 'from the playground', key: expect.objectContaining({ source: 'playground', caller: 'member@example.com (playground)' }) }),
    ]);
    expect((await open(member, conversationId)).messages).toHaveLength(2);
    expect((await member.request('GET', `/console/api/conversations/${chatConversation}`)).statusCode).toBe(404);
    // The owner sees it among every key's.
    expect((await list(owner, 'echo')).data.map((conversation) => conversation.id)).toContain(conversationId);
  });

  it('keeps an item deleted through the Conversations API in the tree, without its content', async () => {
    const made = await chat({ model: 'echo', messages: [{ role: 'user', content: 'forget what I said' }] });
    const before = await open(owner, made.conversation_id);
    const userNode = before.messages[0]?.id as string;
    const deleted = await gateway.app.inject({ method: 'DELETE', url: `/agents/v1/conversations/${made.conversation_id}/items/${userNode}`, headers: bearer(agentKey) });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const after = await open(owner, made.conversation_id);
    expect(after.messages.map((node) => [node.role, node.deleted, node.text])).toEqual([
      ['user', true, ''],
      ['assistant', false, 'forget what I said'],
    ]);
  });

  it('refuses ids that name nothing with a 400, not a scan', async () => {
    expect((await owner.request('GET', '/console/api/conversations/conv%20x')).statusCode).toBe(400);
    expect((await owner.request('GET', '/console/api/agents/echo/conversations?key_id=not-a-key')).statusCode).toBe(400);
    expect((await owner.request('GET', '/console/api/conversations/conv_missing')).statusCode).toBe(404);
  });
});
