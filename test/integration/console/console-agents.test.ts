import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';

/** Agents made in the console: versioned saves validated like files, rollback, export, duplicate, and the playground session. */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let agentKey: string;

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  agentKey = await gateway.key('agent');
});
afterAll(async () => gateway?.close());

const lastSystemPrompt = (): string => {
  const body = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
  return body.messages.find((message) => message.role === 'system')?.content ?? '';
};
const chat = (model: string, content: string) =>
  gateway.app.inject({ method: 'POST', url: '/agents/v1/chat/completions', headers: bearer(agentKey), payload: { model, messages: [{ role: 'user', content }] } });

describe('console agents', () => {
  it('refuses an invalid definition with every problem by field, and saves nothing', async () => {
    const refused = await owner.request('PUT', '/console/api/agents/helpdesk', { definition: { name: '', model: 'openai/nope', instructions: 'x', tools: ['no_such_tool'] } });
    expect(refused.statusCode).toBe(400);
    const body = refused.json<{ issues: Array<{ path: string }> }>();
    // The empty name and the bad references together, not the shape first and the rest on the next try.
    expect(body.issues.map((issue) => issue.path)).toEqual(['name', 'model', 'tools[0]']);
    expect((await owner.request('GET', '/console/api/agents/helpdesk')).statusCode).toBe(404);
    const unknownModel = await owner.request('PUT', '/console/api/agents/helpdesk', { definition: { name: 'Helpdesk', model: 'openai/nope', instructions: 'x' } });
    expect(unknownModel.json<{ issues: Array<{ path: string }> }>().issues.map((issue) => issue.path)).toEqual(['model']);
  });

  it('saves and publishes versions that serve on the next call, reports them, and rolls back', async () => {
    const first = await owner.request('PUT', '/console/api/agents/helpdesk', {
      definition: { name: 'Helpdesk', model: 'openai/test-echo', instructions: 'Version one instructions.' },
      change_note: 'first',
    });
    expect(first.statusCode).toBe(201);
    expect((await chat('helpdesk', 'hi')).json()).toMatchObject({ agent_version: 'v1' });
    expect(lastSystemPrompt()).toContain('Version one instructions.');

    const second = await owner.request('PUT', '/console/api/agents/helpdesk', {
      definition: { name: 'Helpdesk', model: 'openai/test-echo', instructions: 'Version two instructions.' },
      change_note: 'sharper',
      publish: true,
    });
    expect(second.json()).toEqual({ id: 'helpdesk', version: 2, published: true });
    expect((await chat('helpdesk', 'hi')).json()).toMatchObject({ agent_version: 'v2' });
    expect(lastSystemPrompt()).toContain('Version two instructions.');
    expect((await gateway.app.inject({ url: '/agents/v1/models/helpdesk', headers: bearer(agentKey) })).json()).toMatchObject({ version: 'v2', source: 'console' });

    const detail = (await owner.request('GET', '/console/api/agents/helpdesk')).json<{ versions: Array<{ version: number; change_note: string; created_by: string }>; published_version: number }>();
    expect(detail.published_version).toBe(2);
    expect(detail.versions.map((version) => [version.version, version.change_note, version.created_by])).toEqual([
      [2, 'sharper', 'owner@example.com'],
      [1, 'first', 'owner@example.com'],
    ]);

    expect((await owner.request('POST', '/console/api/agents/helpdesk/rollback', { version: 1 })).statusCode).toBe(200);
    expect((await chat('helpdesk', 'hi')).json()).toMatchObject({ agent_version: 'v1' });
    expect(lastSystemPrompt()).toContain('Version one instructions.');
    await gateway.settle();
    const versions = await gateway.services.db.query<{ agent_version: string }>("SELECT DISTINCT agent_version FROM usage_log WHERE agent_id = 'helpdesk' ORDER BY 1");
    expect(versions.rows.map((row) => row.agent_version)).toEqual(['v1', 'v2']);
  });

  it('keeps file agents read-only, duplicates one into a console agent, and exports YAML', async () => {
    const file = (await owner.request('GET', '/console/api/agents/echo')).json<{ source: string; path: string; definition: Record<string, unknown> }>();
    expect(file.source).toBe('file');
    expect(file.path).toContain('echo.yaml');
    expect((await owner.request('PUT', '/console/api/agents/echo', { definition: file.definition })).statusCode).toBe(409);
    expect((await owner.request('PUT', '/console/api/agents/echo-copy', { definition: file.definition, change_note: 'duplicated from echo' })).statusCode).toBe(201);
    expect((await chat('echo-copy', 'copy works')).statusCode).toBe(200);
    const exported = await owner.request('GET', '/console/api/agents/echo-copy/export');
    expect(exported.headers['content-type']).toMatch(/yaml/);
    expect(parse(exported.body)).toMatchObject({ name: 'Echo', model: 'openai/test-echo' });
  });

  it('creates only with If-None-Match: *: a taken id (console or file agent) is a 409 and the agent is unchanged', async () => {
    const create = (id: string, instructions: string) =>
      owner.request('PUT', `/console/api/agents/${id}`, { definition: { name: 'Taken', model: 'openai/test-echo', instructions } }, { 'if-none-match': '*' });
    expect((await create('taken-id', 'The first agent.')).statusCode).toBe(201);
    const again = await create('taken-id', 'The intruder.');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: 'conflict', param: 'id' } });
    expect(again.json<{ error: { message: string } }>().error.message).toContain('taken');
    const detail = (await owner.request('GET', '/console/api/agents/taken-id')).json<{ definition: { instructions: string }; published_version: number }>();
    expect(detail).toMatchObject({ definition: { instructions: 'The first agent.' }, published_version: 1 });
    expect((await create('echo', 'Over a file agent.')).statusCode).toBe(409);
  });

  it('runs the playground with the session (no key), billed under the person’s playground key', async () => {
    const response = await owner.request('POST', '/agents/v1/responses', { model: 'helpdesk', input: 'from the playground' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'completed', agent_version: 'v1' });
    const noCsrf = await owner.request('POST', '/agents/v1/responses', { model: 'helpdesk', input: 'x' }, { 'x-csrf-token': 'wrong' });
    expect(noCsrf.statusCode).toBe(403);
    const keys = (await owner.request('GET', '/console/api/keys?kind=agent')).json<{ data: Array<{ name: string }> }>().data;
    expect(keys.map((key) => key.name)).toContain('Console playground (owner@example.com)');
  });

  it('lets members read but not edit', async () => {
    await runAdminCommand(gateway.services, { command: 'users.create', email: 'member@example.com', password: 'member password 1', role: 'member' });
    const member = await signIn(gateway.app, 'member@example.com', 'member password 1');
    expect((await member.request('GET', '/console/api/agents')).statusCode).toBe(200);
    expect((await member.request('PUT', '/console/api/agents/helpdesk', { definition: { name: 'x', model: 'openai/test-echo', instructions: 'x' } })).statusCode).toBe(403);
    expect((await member.request('POST', '/agents/v1/responses', { model: 'helpdesk', input: 'members use the playground' })).statusCode).toBe(200);
  });
});
