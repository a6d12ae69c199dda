import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import type { AgentFile } from '../../src/agents/agent-config-schema.ts';
import { type ConsoleSession, signIn } from '../support/console-session.ts';
import { type GatewayHarness, startGateway, UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { startRecordingMcpServer } from '../support/recording-mcp-server.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { engineName } from '../support/test-database.ts';

/**
 * Issue 63: what an admin of a second account B may make a console agent do. File
 * agents `plain` and `helper` belong to the default account A. B's console agents may
 * not start commands, read the server's environment, reach private addresses, or run
 * A's agents, whether the definition came through the console or sits in the store
 * from before these rules.
 */

const A_AGENTS = {
  plain: 'name: Plain\nmodel: openai/test-echo\ninstructions: A-ONLY plain instructions.\n',
  helper: 'name: Helper\nmodel: openai/test-echo\ninstructions: A-ONLY helper instructions.\n',
};
const PASSWORD = 'tenant b password 1';

type Tenant = { gateway: GatewayHarness; admin: ConsoleSession; accountId: string; userId: string; key: string; close(): Promise<void> };

async function startTenant(env: Record<string, string>): Promise<Tenant> {
  const folders = runtimeFolders(A_AGENTS);
  const gateway = await startGateway({ ...folders.env, ...env });
  const account = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'tenant-b' })) as { data: { id: string } };
  await runAdminCommand(gateway.services, { command: 'credits.grant', account: account.data.id, amount: '100', currency: 'USD' });
  const user = (await runAdminCommand(gateway.services, { command: 'users.create', email: 'admin@tenant-b.example', password: PASSWORD, account: account.data.id, role: 'owner' })) as {
    data: { id: string };
  };
  const admin = await signIn(gateway.app, 'admin@tenant-b.example', PASSWORD);
  const key = await gateway.key('agent', {}, account.data.id);
  return {
    gateway,
    admin,
    accountId: account.data.id,
    userId: user.data.id,
    key,
    close: async () => {
      await gateway.close();
      folders.remove();
    },
  };
}

type Resource = { status: string };
type SaveError = { error: { code: string; param: string; message: string }; issues: Array<{ path: string; message: string }> };

const put = (tenant: Tenant, id: string, definition: Record<string, unknown>) => tenant.admin.request('PUT', `/console/api/agents/${id}`, { definition });
const respond = (tenant: Tenant, body: Record<string, unknown>) =>
  fetch(`${tenant.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const run = async (tenant: Tenant, model: string, input = 'go') => {
  const response = await respond(tenant, { model, input });
  expect(response.status).toBe(200);
  return (await response.json()) as Resource;
};
/** A definition stored as a save long ago would have stored it, past today's checks. */
const storeDirectly = (tenant: Tenant, id: string, definition: Record<string, unknown>) =>
  tenant.gateway.services.agentDirectory?.consoleAgents.save(tenant.accountId, id, definition as AgentFile, { userId: tenant.userId, email: 'admin@tenant-b.example' }, null);
/** The last tool result the model was sent (whatever output item shape the response gives it). */
const lastToolResult = (tenant: Tenant): string | undefined => {
  const body = tenant.gateway.openai.requests.at(-1)?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
  const content = body?.messages?.findLast((message) => message.role === 'tool')?.content;
  return typeof content === 'string' ? content : undefined;
};
const offeredTools = (tenant: Tenant): string[] => {
  const body = tenant.gateway.openai.requests.at(-1)?.body as { tools?: Array<{ function: { name: string } }> } | undefined;
  return (body?.tools ?? []).map((tool) => tool.function.name);
};

describe(`agents' tenant boundary, private addresses refused, on ${engineName()}`, () => {
  let tenant: Tenant;
  let listener: Awaited<ReturnType<typeof startRecordingMcpServer>>;
  let scratch: string;

  beforeAll(async () => {
    listener = await startRecordingMcpServer();
    scratch = mkdtempSync(join(tmpdir(), 'junction-boundary-'));
    // Every host the tests name is on the allowlist: what refuses them is the address rule.
    tenant = await startTenant({ JUNCTION_MCP_ALLOWLIST: '127.0.0.1,localhost,10.0.0.5,[::1],169.254.169.254' });
    // B's own agent, which B's agents may name.
    expect((await put(tenant, 'b-plain', { name: 'B plain', model: 'openai/test-tool', instructions: 'x' })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await tenant?.close();
    await listener?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses an MCP server that is a command, naming the field', async () => {
    const marker = join(scratch, 'pwned');
    const response = await put(tenant, 'pwn', { name: 'Pwn', model: 'openai/test-tool', instructions: 'x', mcp_servers: [{ label: 'sh', command: 'sh', args: ['-c', `id > ${marker}`] }] });
    expect(response.statusCode).toBe(400);
    const body = response.json<SaveError>();
    expect(body.error).toMatchObject({ code: 'invalid_agent', param: 'mcp_servers[0].command' });
    expect(body.issues.map((issue) => issue.path)).toEqual(['mcp_servers[0].command', 'mcp_servers[0].args', 'mcp_servers[0].url']);
    expect((await tenant.admin.request('GET', '/console/api/agents/pwn')).statusCode).toBe(404);
    expect(existsSync(marker)).toBe(false);
  });

  it('does not run a command server stored before the rule: the agent answers 503, nothing is started', async () => {
    const marker = join(scratch, 'legacy-pwned');
    await storeDirectly(tenant, 'legacy', { name: 'Legacy', model: 'openai/test-tool', instructions: 'x', mcp_servers: [{ label: 'sh', command: 'sh', args: ['-c', `touch ${marker}`] }] });
    const response = await respond(tenant, { model: 'legacy', input: 'go' });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { code: 'agent_unavailable', message: expect.stringContaining('mcp_servers[0].command') } });
    // The account's lists still answer; the refused agent is not among what runs.
    const models = await fetch(`${tenant.gateway.baseUrl}/agents/v1/models`, { headers: { authorization: `Bearer ${tenant.key}` } });
    expect(models.status).toBe(200);
    expect((await tenant.admin.request('GET', '/console/api/agents')).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(marker)).toBe(false);
    // The console shows it as stored, with why, so it can be corrected.
    const detail = await tenant.admin.request('GET', '/console/api/agents/legacy');
    expect(detail.statusCode).toBe(200);
    expect(detail.json()).toMatchObject({
      version: 'v1',
      definition: { mcp_servers: [{ command: 'sh' }] },
      issues: [{ path: 'mcp_servers[0].command' }, { path: 'mcp_servers[0].args' }, { path: 'mcp_servers[0].url' }],
    });
    const corrected = await put(tenant, 'legacy', { name: 'Legacy', model: 'openai/test-tool', instructions: 'x' });
    expect(corrected.json()).toEqual({ id: 'legacy', version: 2, published: true });
    expect(corrected.statusCode).toBe(200);
    expect((await run(tenant, 'legacy')).status).toBe('completed');
  });

  it.each([
    ['loopback', 'http://127.0.0.1:9/mcp'],
    ['a private network', 'http://10.0.0.5/mcp'],
    ['IPv6 loopback', 'http://[::1]:9/mcp'],
    ['loopback written in hex', 'http://0x7f000001:9/mcp'],
    ['the metadata address', 'http://169.254.169.254/latest/'],
    ['a host off the allowlist', 'https://mcp.example.com/mcp'],
  ])('refuses an MCP url on %s at save, naming the field', async (_what, url) => {
    const response = await put(tenant, 'reach', { name: 'Reach', model: 'openai/test-tool', instructions: 'x', mcp_servers: [{ label: 'inside', url }] });
    expect(response.statusCode).toBe(400);
    expect(response.json<SaveError>().error.param).toBe('mcp_servers[0].url');
  });

  it('refuses more than 10 MCP servers in one console agent or one request', async () => {
    const servers = Array.from({ length: 11 }, (_, index) => ({ label: `s${index}`, url: `http://localhost:${listener.port}/mcp` }));
    const saved = await put(tenant, 'crowd', { name: 'Crowd', model: 'openai/test-tool', instructions: 'x', mcp_servers: servers });
    expect(saved.statusCode).toBe(400);
    expect(saved.json<SaveError>().issues).toContainEqual({ path: 'mcp_servers', message: 'at most 10 MCP servers' });
    const tools = servers.map((server) => ({ type: 'mcp', server_label: server.label, server_url: server.url }));
    const requested = await respond(tenant, { model: 'b-plain', input: 'x', tools });
    expect(requested.status).toBe(400);
    expect(await requested.json()).toMatchObject({ error: { param: 'tools' } });
    expect(listener.requests).toEqual([]);
  });

  it('saves a name that resolves to loopback, but a run never connects to it: no tool, no traffic', async () => {
    const url = `http://localhost:${listener.port}/mcp`;
    expect((await put(tenant, 'by-name', { name: 'By name', model: 'openai/test-tool', instructions: 'x', mcp_servers: [{ label: 'inside', url }] })).statusCode).toBe(201);
    const result = await run(tenant, 'by-name');
    expect(result.status).toBe('completed');
    expect(offeredTools(tenant)).toEqual([]);
    expect(listener.requests).toEqual([]);
  });

  it('refuses request-level MCP tools on private addresses, and never connects to a name resolving inside', async () => {
    const literal = await respond(tenant, { model: 'b-plain', input: 'x', tools: [{ type: 'mcp', server_label: 'inside', server_url: listener.url }] });
    expect(literal.status).toBe(400);
    expect(await literal.json()).toMatchObject({ error: { param: 'tools.0.server_url', message: expect.stringContaining('private or reserved') } });
    const byName = await respond(tenant, { model: 'b-plain', input: 'x', tools: [{ type: 'mcp', server_label: 'inside', server_url: `http://localhost:${listener.port}/mcp` }] });
    expect(byName.status).toBe(200);
    expect(offeredTools(tenant)).toEqual([]);
    expect(listener.requests).toEqual([]);
  });

  it("refuses agents and handoffs naming another account's agents, or none, at save, naming the id", async () => {
    const handoff = await put(tenant, 'router', { name: 'Router', model: 'openai/test-tool', instructions: 'x', handoffs: ['plain'] });
    expect(handoff.statusCode).toBe(400);
    expect(handoff.json<SaveError>().error).toMatchObject({ param: 'handoffs[0]', message: expect.stringContaining('"plain"') });
    const asks = await put(tenant, 'router', { name: 'Router', model: 'openai/test-tool', instructions: 'x', agents: ['b-plain', 'helper'], handoffs: ['ghost', 'router'] });
    expect(asks.statusCode).toBe(400);
    expect(asks.json<SaveError>().issues).toEqual([
      { path: 'agents[1]', message: 'no agent "helper" in this account' },
      { path: 'handoffs[0]', message: 'no agent "ghost" in this account' },
    ]);
    // The account's own agents are fine, the agent itself included.
    expect((await put(tenant, 'router', { name: 'Router', model: 'openai/test-tool', instructions: 'x', agents: ['b-plain'], handoffs: ['b-plain'] })).statusCode).toBe(201);
  });

  it("never runs another account's agent named by a stored definition: its tools are not offered, nothing is billed to it", async () => {
    await storeDirectly(tenant, 'smuggler', { name: 'Smuggler', model: 'openai/test-tool', instructions: 'x', agents: ['helper'], handoffs: ['plain'] });
    const result = await run(tenant, 'smuggler', 'hand me over');
    expect(result.status).toBe('completed');
    expect(offeredTools(tenant)).toEqual([]);
    const prompts = tenant.gateway.openai.requests.map((request) => JSON.stringify(request.body));
    expect(prompts.filter((prompt) => prompt.includes('A-ONLY'))).toEqual([]);
    await tenant.gateway.settle();
    const rows = await tenant.gateway.services.db.query<{ agent_id: string }>('SELECT DISTINCT agent_id FROM usage_log WHERE account_id = $1 AND agent_id IS NOT NULL ORDER BY 1', [tenant.accountId]);
    expect(rows.rows.map((row) => row.agent_id)).not.toContain('plain');
    expect(rows.rows.map((row) => row.agent_id)).not.toContain('helper');
  });
});

describe(`agents' tenant boundary, MCP servers on 127.0.0.1 allowed by the operator, on ${engineName()}`, () => {
  let tenant: Tenant;
  let listener: Awaited<ReturnType<typeof startRecordingMcpServer>>;

  beforeAll(async () => {
    listener = await startRecordingMcpServer();
    tenant = await startTenant({ JUNCTION_MCP_ALLOWLIST: '127.0.0.1', JUNCTION_MCP_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await tenant?.close();
    await listener?.close();
  });

  it('sends header values as written: ${OPENAI_API_KEY} never becomes the provider key', async () => {
    const saved = await put(tenant, 'leaky', {
      name: 'Leaky',
      model: 'openai/test-tool',
      instructions: 'x',
      mcp_servers: [{ label: 'rec', url: listener.url, headers: { 'x-leak': '${OPENAI_API_KEY}' }, allowed_tools: ['ping'] }],
    });
    expect(saved.statusCode).toBe(201);
    expect((await run(tenant, 'leaky')).status).toBe('completed');
    expect(lastToolResult(tenant)).toBe('pong');
    expect(listener.requests.length).toBeGreaterThan(0);
    for (const request of listener.requests) {
      expect(request.headers['x-leak']).toBe('${OPENAI_API_KEY}');
      expect(JSON.stringify(request.headers)).not.toContain(UPSTREAM_KEYS.openai);
    }
  });

  it('cuts an MCP tool result of 1 MB to the bound local tools have, saying so', async () => {
    expect(
      (await put(tenant, 'reader', { name: 'Reader', model: 'openai/test-tool', instructions: 'x', mcp_servers: [{ label: 'rec', url: listener.url, allowed_tools: ['big_report'] }] })).statusCode,
    ).toBe(201);
    expect((await run(tenant, 'reader')).status).toBe('completed');
    const output = lastToolResult(tenant) ?? '';
    expect(output.length).toBeLessThan(100_100);
    expect(output.startsWith('r'.repeat(100_000))).toBe(true);
    expect(output.endsWith('…[truncated 900000 characters]')).toBe(true);
  });

  it("cuts a sub-agent's answer to the same bound before the caller's model reads it", async () => {
    expect((await put(tenant, 'asker', { name: 'Asker', model: 'openai/test-tool', instructions: 'x', agents: ['reader'] })).statusCode).toBe(201);
    expect((await run(tenant, 'asker')).status).toBe('completed');
    // The reader answered with its (already cut) tool result and a preamble: longer than the bound, so cut again.
    const output = lastToolResult(tenant) ?? '';
    expect(output.startsWith(`Tool mcp_rec__big_report returned: ${'r'.repeat(1_000)}`)).toBe(true);
    expect(output).toMatch(/^[^…]{100000}\n…\[truncated \d{2} characters\]$/);
  });
});
