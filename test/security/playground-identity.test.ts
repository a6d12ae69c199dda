import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { type ConsoleSession, signIn } from '../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';
import { engineName } from '../support/test-database.ts';

/**
 * Issue 63, item 8: the playground's agent key is bound to (account, user), never found
 * by its name. An admin who makes a key named like the owner's playground key before
 * the owner's first run gets just a key: none of the owner's runs land under it, and
 * none can be listed or read with it.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let admin: ConsoleSession;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '20', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: PASSWORD, role: 'owner' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'admin@example.com', password: PASSWORD, role: 'admin' });
  owner = await signIn(gateway.app, 'owner@example.com', PASSWORD);
  admin = await signIn(gateway.app, 'admin@example.com', PASSWORD);
});
afterAll(async () => gateway?.close());

describe(`playground identity (${engineName()})`, () => {
  it("an admin's key named like the owner's playground key receives none of the owner's runs", async () => {
    const squatted = await admin.request('POST', '/console/api/agent-keys', { name: 'Console playground (owner@example.com)' });
    expect(squatted.statusCode).toBe(201);
    const { key: adminKey, data: adminKeyRow } = squatted.json<{ key: string; data: { id: string } }>();

    const response = await owner.request('POST', '/agents/v1/responses', { model: 'echo', input: 'the owner’s secret plans' });
    expect(response.statusCode).toBe(200);
    const responseId = response.json<{ id: string }>().id;
    const chat = await owner.request('POST', '/agents/v1/chat/completions', { model: 'echo', messages: [{ role: 'user', content: 'more secret plans' }] });
    expect(chat.statusCode).toBe(200);
    await gateway.settle();

    // Nothing of the owner's is listable or readable with the admin's key.
    const listed = await gateway.app.inject({ url: '/agents/v1/conversations', headers: bearer(adminKey) });
    expect(listed.statusCode).toBe(200);
    expect(listed.json<{ data: unknown[] }>().data).toEqual([]);
    expect((await gateway.app.inject({ url: `/agents/v1/responses/${responseId}`, headers: bearer(adminKey) })).statusCode).toBe(404);
    const billed = await gateway.services.db.query('SELECT 1 FROM usage_log WHERE key_id = $1', [adminKeyRow.id]);
    expect(billed.rows).toHaveLength(0);

    // The owner's runs are under a key bound to the owner, and the owner still sees them.
    const bound = await gateway.services.db.query<{ key_id: string }>('SELECT p.key_id FROM playground_keys p JOIN users u ON u.id = p.user_id WHERE u.email = $1', ['owner@example.com']);
    expect(bound.rows).toHaveLength(1);
    expect(bound.rows[0]?.key_id).not.toBe(adminKeyRow.id);
    const ownerRuns = await gateway.services.db.query('SELECT 1 FROM usage_log WHERE key_id = $1', [bound.rows[0]?.key_id]);
    expect(ownerRuns.rows.length).toBeGreaterThan(0);
    expect((await owner.request('GET', `/agents/v1/responses/${responseId}`)).statusCode).toBe(200);
    expect((await owner.request('GET', '/agents/v1/conversations')).json<{ data: unknown[] }>().data).toHaveLength(2);
    // And the admin's own playground (a different person) sees none of it either.
    expect((await admin.request('GET', `/agents/v1/responses/${responseId}`)).statusCode).toBe(404);
    expect((await admin.request('GET', '/agents/v1/conversations')).json<{ data: unknown[] }>().data).toEqual([]);
  });

  it('keeps one bound key per person and account, and makes a fresh one after a revoke', async () => {
    const keyOf = async () =>
      (await gateway.services.db.query<{ key_id: string }>("SELECT p.key_id FROM playground_keys p JOIN users u ON u.id = p.user_id WHERE u.email = 'owner@example.com'")).rows[0]?.key_id;
    const first = await keyOf();
    await Promise.all([1, 2, 3].map(() => owner.request('GET', '/agents/v1/conversations')));
    expect(await keyOf()).toBe(first);
    expect((await admin.request('DELETE', `/console/api/agent-keys/${first}`)).statusCode).toBe(200);
    expect((await owner.request('GET', '/agents/v1/conversations')).json<{ data: unknown[] }>().data).toEqual([]);
    const second = await keyOf();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
  });

  it('makes one key for a person whose first playground requests arrive together', async () => {
    await runAdminCommand(gateway.services, { command: 'users.create', email: 'eager@example.com', password: PASSWORD, role: 'member' });
    const eager = await signIn(gateway.app, 'eager@example.com', PASSWORD);
    const answers = await Promise.all([1, 2, 3, 4].map(() => eager.request('GET', '/agents/v1/conversations')));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
    const live = await gateway.services.db.query<{ id: string }>("SELECT id FROM api_keys WHERE name = 'Console playground (eager@example.com)' AND deleted_at IS NULL");
    expect(live.rows).toHaveLength(1);
    const bound = await gateway.services.db.query<{ key_id: string }>("SELECT p.key_id FROM playground_keys p JOIN users u ON u.id = p.user_id WHERE u.email = 'eager@example.com'");
    expect(bound.rows).toEqual(live.rows.map((row) => ({ key_id: row.id })));
  });
});
