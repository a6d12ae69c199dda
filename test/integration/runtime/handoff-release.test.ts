import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { releaseBucket } from '../../../src/agents/release-selection.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * A console agent handed a conversation serves the version its staged release gives that
 * conversation, exactly as a direct call in it would: in the turn of the handoff, in the
 * turns after it, and in the feedback on its answers.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let agentKey: string;

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(import.meta.dirname, '../../fixtures/agents-e2e/agents'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  agentKey = await gateway.key('agent');
  const save = (id: string, definition: Record<string, unknown>) => owner.request('PUT', `/console/api/agents/${id}`, { definition });
  expect((await save('billing', { name: 'Billing', description: 'Invoices.', model: 'openai/test-echo', instructions: 'Billing stable.' })).statusCode).toBe(201);
  expect((await save('billing', { name: 'Billing', description: 'Invoices.', model: 'openai/test-echo', instructions: 'Billing candidate.' })).statusCode).toBe(200);
  expect((await owner.request('POST', '/console/api/agents/billing/stage', { version: 2, share: 50 })).statusCode).toBe(200);
  expect((await save('triage', { name: 'Triage', model: 'openai/test-tool', instructions: 'Route the customer.', handoffs: ['billing'] })).statusCode).toBe(201);
});
afterAll(async () => gateway?.close());

type ChatAnswer = { conversation_id: string; message_id: string; agent_version: string; choices: Array<{ message: { content: string } }> };
const chat = async (content: string, conversationId?: string): Promise<ChatAnswer> => {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/agents/v1/chat/completions',
    headers: bearer(agentKey),
    payload: { model: 'triage', messages: [{ role: 'user', content }], ...(conversationId && { conversation_id: conversationId }) },
  });
  expect(response.statusCode).toBe(200);
  return response.json<ChatAnswer>();
};
/** The instructions of the agent the fake upstream was last asked by. */
const lastInstructions = (): string => {
  const body = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
  return body.messages.find((message) => message.role === 'system')?.content ?? '';
};
const expectedFor = (conversationId: string) =>
  releaseBucket('billing', conversationId) < 50 ? { version: 'v2', instructions: 'Billing candidate.' } : { version: 'v1', instructions: 'Billing stable.' };

describe(`a handed-off agent's staged release on ${engineName()}`, () => {
  it('serves the handed-to agent at the version the conversation’s bucket picks, sticky across turns', async () => {
    const conversations: Array<{ id: string; version: string }> = [];
    for (let index = 0; index < 16; index += 1) {
      const first = await chat(`refund ${index}`);
      const expected = expectedFor(first.conversation_id);
      // Billing (an echo) answered this turn after the handoff, with the instructions of its bucket's version.
      expect(first.choices[0]?.message.content).toBe(`refund ${index}`);
      expect(lastInstructions()).toContain(expected.instructions);
      conversations.push({ id: first.conversation_id, version: expected.version });

      // Feedback on the handed-off answer counts for billing's version, not triage's.
      const rated = await gateway.app.inject({ method: 'POST', url: `/agents/v1/chat/completions/${first.message_id}/feedback`, headers: bearer(agentKey), payload: { score: 'up' } });
      expect(rated.json()).toMatchObject({ agent_id: 'billing', agent_version: expected.version });

      // The next turn goes straight to billing, at the same version.
      const next = await chat(`and invoice ${index}`, first.conversation_id);
      expect(next.agent_version).toBe(expected.version);
      expect(lastInstructions()).toContain(expected.instructions);
    }
    // Both sides of the split were seen, so the test says something about each.
    expect(new Set(conversations.map((conversation) => conversation.version))).toEqual(new Set(['v1', 'v2']));

    await gateway.settle();
    const billed = await gateway.services.db.query<{ agent_version: string; calls: number }>(
      "SELECT agent_version, count(*)::int AS calls FROM usage_log WHERE agent_id = 'billing' GROUP BY agent_version ORDER BY 1",
    );
    const staged = conversations.filter((conversation) => conversation.version === 'v2').length;
    expect(billed.rows).toEqual([
      { agent_version: 'v1', calls: 2 * (conversations.length - staged) },
      { agent_version: 'v2', calls: 2 * staged },
    ]);
  });

  it('serves the published version of the handed-to agent once its stage is aborted', async () => {
    expect((await owner.request('POST', '/console/api/agents/billing/abort')).statusCode).toBe(200);
    const answer = await chat('after the abort');
    expect(lastInstructions()).toContain('Billing stable.');
    expect((await chat('again', answer.conversation_id)).agent_version).toBe('v1');
  });
});
