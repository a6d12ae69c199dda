import { Agent, hostedMcpTool, OpenAIProvider, Runner, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { startMcpTestServer } from '../support/mcp-test-server.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { clientCalls } from './support/client-call.ts';

/**
 * The OpenAI Agents SDK in Responses mode against /agents/v1: each SDK agent's model is a
 * Junction agent. The SDK runs what the model asks of the client (function tools,
 * handoffs) and must leave alone what the server already ran (Junction's own tools, MCP).
 */
const call = clientCalls('@openai/agents');
let mcp: Awaited<ReturnType<typeof startMcpTestServer>>;
let folders: ReturnType<typeof runtimeFolders>;
let gateway: GatewayHarness;
let runner: Runner;
let openAIClient: OpenAI;

beforeAll(async () => {
  mcp = await startMcpTestServer('orders-secret');
  folders = runtimeFolders({
    shouter: 'name: Shouter\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\n',
    asker: 'name: Asker\nmodel: openai/test-tool\ninstructions: Use the tools you are given.\n',
    echo: 'name: Echo\nmodel: openai/test-echo\ninstructions: Repeat.\n',
    desk: 'name: Desk\nmodel: openai/test-tool\ninstructions: Ask the orders agent.\nagents: [orders]\n',
    orders: `name: Orders\nmodel: openai/test-tool\ninstructions: Look orders up.\nmcp_servers:\n  - label: orders\n    url: ${mcp.url}\n    headers: { Authorization: "Bearer orders-secret" }\n    allowed_tools: [lookup_order]\n`,
  });
  gateway = await startGateway({ ...folders.env, JUNCTION_MCP_ALLOWLIST: '127.0.0.1', JUNCTION_MCP_ALLOW_PRIVATE: 'true' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  openAIClient = new OpenAI({ apiKey: await gateway.key('agent'), baseURL: `${gateway.baseUrl}/agents/v1`, maxRetries: 0 });
  runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient, useResponses: true }), tracingDisabled: true });
});
afterAll(async () => {
  await gateway.close();
  await mcp.close();
  folders.remove();
});

const ordersMcp = (requireApproval: 'always' | 'never') => {
  const server = { serverLabel: 'orders', serverUrl: mcp.url, headers: { Authorization: 'Bearer orders-secret' }, allowedTools: ['lookup_order'] };
  return requireApproval === 'always' ? hostedMcpTool({ ...server, requireApproval: 'always' }) : hostedMcpTool({ ...server, requireApproval: 'never' });
};

describe('@openai/agents in Responses mode', () => {
  it('runs a function tool of its own and answers from its result', async () => {
    const weather = tool({ name: 'get_weather', description: 'Weather now', parameters: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` });
    const agent = new Agent({ name: 'Asker', model: 'asker', tools: [weather] });
    const result = await call('run (function tool)', () => runner.run(agent, 'weather?'));
    expect(result.finalOutput).toBe('Tool get_weather returned: sunny in fake');
  });

  it('leaves the steps Junction ran itself alone: no "tool not found", the answer is final', async () => {
    const agent = new Agent({ name: 'Shouter', model: 'shouter' });
    const result = await call('run (server tool)', () => runner.run(agent, 'shout it'));
    expect(result.finalOutput).toBe('Tool echo_upper returned: FAKE');
    const raw = result.rawResponses.flatMap((response) => response.output.map((item) => item.type));
    expect(raw).toEqual(['unknown', 'message']);
    expect(result.rawResponses).toHaveLength(1);
  });

  it('sees a hosted MCP call as run by the server', async () => {
    const agent = new Agent({ name: 'Ops', model: 'asker', tools: [ordersMcp('never')] });
    const before = mcp.calls.length;
    const result = await call('run (hosted MCP)', () => runner.run(agent, 'where is my order?'));
    expect(result.finalOutput).toBe('Tool mcp_orders__lookup_order returned: order fake: shipped');
    expect(mcp.calls.length).toBe(before + 1);
    const hosted = result.newItems.map((item) => item.rawItem).filter((item) => item.type === 'hosted_tool_call');
    expect(hosted.map((item) => item.name)).toEqual(['mcp_list_tools', 'mcp_call']);
    expect(hosted[1]).toMatchObject({ name: 'mcp_call', output: 'order fake: shipped', providerData: { server_label: 'orders', name: 'lookup_order' } });
  });

  it("leaves a Junction sub-agent's MCP steps alone: mcp_list_tools and mcp_call are hosted, the answer is final", async () => {
    const agent = new Agent({ name: 'Desk', model: 'desk' });
    const before = mcp.calls.length;
    const result = await call('run (sub-agent with MCP)', () => runner.run(agent, 'where is my order?'));
    expect(result.finalOutput).toBe('Tool ask_orders returned: Tool mcp_orders__lookup_order returned: order fake: shipped');
    expect(mcp.calls.length).toBe(before + 1);
    expect(result.rawResponses).toHaveLength(1);
    const hosted = result.newItems.map((item) => item.rawItem).filter((item) => item.type === 'hosted_tool_call');
    expect(hosted.map((item) => item.name)).toEqual(['mcp_list_tools', 'mcp_call']);
    expect(hosted[1]).toMatchObject({ output: 'order fake: shipped', providerData: { server_label: 'orders', name: 'lookup_order', agent: 'orders' } });
  });

  it('stops at an MCP approval, and runs the tool once after it is approved', async () => {
    const agent = new Agent({ name: 'Ops', model: 'asker', tools: [ordersMcp('always')] });
    const before = mcp.calls.length;
    const first = await call('run (hosted MCP, approval always)', () => runner.run(agent, 'where is my order?', { maxTurns: 3 }));
    expect(first.interruptions).toHaveLength(1);
    expect(mcp.calls.length).toBe(before);
    const [approval] = first.interruptions;
    if (!approval) throw new Error('no interruption');
    first.state.approve(approval);
    const resumed = await call('run (resume after approve)', () => runner.run(agent, first.state, { maxTurns: 3 }));
    expect(resumed.finalOutput).toBe('Tool mcp_orders__lookup_order returned: order fake: shipped');
    expect(mcp.calls.length).toBe(before + 1);
  });

  it('keeps its history on the server in a conversation (conversationId)', async () => {
    const conversation = await call('conversations.create (openai client)', () => openAIClient.conversations.create({}));
    const agent = new Agent({ name: 'Echo', model: 'echo' });
    await call('run (conversationId)', () => runner.run(agent, 'remember the number 7', { conversationId: conversation.id }));
    const second = await call('run (conversationId, second turn)', () => runner.run(agent, 'what was it?', { conversationId: conversation.id }));
    expect(second.finalOutput).toBe('what was it?');
    const sent = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string }> };
    expect(sent.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const tree = await fetch(`${gateway.baseUrl}/agents/v1/conversations/${conversation.id}`, { headers: { authorization: `Bearer ${openAIClient.apiKey}` } });
    expect(((await tree.json()) as { agent: string; messages: unknown[] }).messages).toHaveLength(4);
  });

  it('hands off between SDK agents, each backed by a Junction agent', async () => {
    const billing = new Agent({ name: 'Billing', model: 'echo', handoffDescription: 'Refunds and invoices' });
    const triage = new Agent({ name: 'Triage', model: 'asker', handoffs: [billing] });
    const result = await call('run (handoff)', () => runner.run(triage, 'I need a refund'));
    expect(result.lastAgent?.name).toBe('Billing');
    expect(result.finalOutput).toBe('I need a refund');
  });
});
