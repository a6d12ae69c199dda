import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';

/**
 * Agents belong to accounts: two accounts each own a `support` agent (files in
 * subfolders naming their `account:`), and every Agents API route answers one
 * account's key with its own agents, conversations and responses only (404 otherwise).
 */
let gateway: GatewayHarness;
let root: string;
const keys: Record<'acme' | 'beta', string> = { acme: '', beta: '' };

const agentFile = (account: string, instructions: string) => `account: ${account}\nname: Support for ${account}\nmodel: openai/test-echo\ninstructions: ${instructions}\n`;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'junction-ownership-'));
  const agentsDir = join(root, 'agents');
  for (const account of ['acme', 'beta']) {
    mkdirSync(join(agentsDir, account), { recursive: true });
    writeFileSync(join(agentsDir, account, 'support.yaml'), agentFile(account, `You support ${account}.`));
  }
  writeFileSync(join(agentsDir, 'acme', 'acme-only.yaml'), agentFile('acme', 'Only acme has me.'));
  // Refused (its model is not in the catalog): its owner is told why, nobody else.
  writeFileSync(join(agentsDir, 'acme', 'broken.yaml'), 'account: acme\nname: Broken\nmodel: openai/no-such-model\ninstructions: x\n');
  writeFileSync(join(agentsDir, 'house.yaml'), 'name: House\nmodel: openai/test-echo\ninstructions: The default account owns me.\n');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: agentsDir, JUNCTION_TOOLS_DIR: join(root, 'tools'), JUNCTION_KNOWLEDGE_DIR: join(root, 'knowledge') });
  for (const name of ['acme', 'beta'] as const) {
    const account = (await runAdminCommand(gateway.services, { command: 'accounts.create', name })) as { data: { id: string } };
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.data.id, amount: '5', currency: 'USD' });
    keys[name] = await gateway.key('agent', {}, account.data.id);
  }
});
afterAll(async () => {
  await gateway?.close();
  rmSync(root, { recursive: true, force: true });
});

const call = (key: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  gateway.app.inject({ method, url: `/agents/v1${url}`, headers: bearer(key), ...(payload && { payload }) });

describe('two accounts × every Agents API route', () => {
  it('lists and describes only the account’s own agents', async () => {
    const acme = (await call(keys.acme, 'GET', '/models')).json<{ data: Array<{ id: string }> }>().data.map((agent) => agent.id);
    const beta = (await call(keys.beta, 'GET', '/models')).json<{ data: Array<{ id: string }> }>().data.map((agent) => agent.id);
    expect(acme).toEqual(['acme-only', 'support']);
    expect(beta).toEqual(['support']);
    expect((await call(keys.acme, 'GET', '/models/support')).json()).toMatchObject({ name: 'Support for acme', source: 'file' });
    expect((await call(keys.beta, 'GET', '/models/support')).json()).toMatchObject({ name: 'Support for beta' });
    expect((await call(keys.beta, 'GET', '/models/acme-only')).statusCode).toBe(404);
    expect((await call(keys.beta, 'GET', '/models/house')).statusCode).toBe(404);
    const broken = await call(keys.acme, 'GET', '/models/broken');
    expect(broken.statusCode).toBe(503);
    expect(broken.json()).toMatchObject({ error: { code: 'agent_unavailable', message: expect.stringContaining('model: unknown model "openai/no-such-model"') } });
    const foreignBroken = await call(keys.beta, 'GET', '/models/broken');
    expect(foreignBroken.statusCode).toBe(404);
    expect(foreignBroken.body).not.toContain('no-such-model');
  });

  it('chat: another account’s agent, conversation_id and parent_message_id are 404', async () => {
    const mine = await call(keys.acme, 'POST', '/chat/completions', { model: 'support', messages: [{ role: 'user', content: 'hello acme' }] });
    expect(mine.statusCode).toBe(200);
    const ids = mine.json<{ conversation_id: string; message_id: string; agent_version: string }>();
    expect(ids.agent_version).toMatch(/^[0-9a-f]{16}$/);
    expect((await call(keys.beta, 'POST', '/chat/completions', { model: 'acme-only', messages: [{ role: 'user', content: 'x' }] })).statusCode).toBe(404);
    const foreignConversation = await call(keys.beta, 'POST', '/chat/completions', { model: 'support', conversation_id: ids.conversation_id, messages: [{ role: 'user', content: 'x' }] });
    expect(foreignConversation.statusCode).toBe(404);
    // Beta's own conversation, continued from a message of acme's: not found either.
    const own = (await call(keys.beta, 'POST', '/chat/completions', { model: 'support', messages: [{ role: 'user', content: 'hello beta' }] })).json<{ conversation_id: string }>();
    const foreignParent = await call(keys.beta, 'POST', '/chat/completions', {
      model: 'support',
      conversation_id: own.conversation_id,
      parent_message_id: ids.message_id,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(foreignParent.statusCode).toBe(404);
    expect((await call(keys.beta, 'GET', `/conversations/${ids.conversation_id}`)).statusCode).toBe(404);
    expect((await call(keys.beta, 'DELETE', `/conversations/${ids.conversation_id}`)).statusCode).toBe(404);
    expect((await call(keys.beta, 'GET', '/conversations')).json<{ data: Array<{ id: string }> }>().data.map((entry) => entry.id)).toEqual([own.conversation_id]);
    expect((await call(keys.acme, 'GET', `/conversations/${ids.conversation_id}`)).statusCode).toBe(200);
  });

  it('responses: another account’s agent, previous_response_id and stored response are 404', async () => {
    const mine = await call(keys.acme, 'POST', '/responses', { model: 'support', input: 'hello responses' });
    expect(mine.statusCode).toBe(200);
    const response = mine.json<{ id: string; agent_version: string }>();
    expect(response.agent_version).toMatch(/^[0-9a-f]{16}$/);
    expect((await call(keys.beta, 'POST', '/responses', { model: 'acme-only', input: 'x' })).statusCode).toBe(404);
    expect((await call(keys.beta, 'POST', '/responses', { model: 'support', input: 'x', previous_response_id: response.id })).statusCode).toBe(404);
    expect((await call(keys.beta, 'GET', `/responses/${response.id}`)).statusCode).toBe(404);
    expect((await call(keys.beta, 'DELETE', `/responses/${response.id}`)).statusCode).toBe(404);
    expect((await call(keys.acme, 'GET', `/responses/${response.id}`)).statusCode).toBe(200);
  });

  it('bills each account for its own agent and logs the agent version', async () => {
    await gateway.settle();
    const rows = await gateway.services.db.query<{ name: string; agent_id: string; agent_version: string | null }>(
      "SELECT a.name, u.agent_id, u.agent_version FROM usage_log u JOIN accounts a ON a.id = u.account_id WHERE u.agent_id IS NOT NULL AND u.status = 'success' ORDER BY a.name",
    );
    expect(rows.rows.length).toBeGreaterThanOrEqual(2);
    expect(new Set(rows.rows.map((row) => row.name))).toEqual(new Set(['acme', 'beta']));
    expect(rows.rows.every((row) => row.agent_version && /^[0-9a-f]{16}$/.test(row.agent_version))).toBe(true);
  });
});
