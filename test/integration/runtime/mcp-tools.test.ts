import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { startMcpTestServer } from '../../support/mcp-test-server.ts';
import { runtimeFolders } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** `mcp_servers:` in an agent file: an MCP server started here (the SDK's own server), listed, called, then down. */
let mcp: Awaited<ReturnType<typeof startMcpTestServer>>;
let folders: ReturnType<typeof runtimeFolders>;
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  mcp = await startMcpTestServer('orders-secret');
  folders = runtimeFolders({
    plain: 'name: Plain\nmodel: openai/test-tool\ninstructions: Use what you are given.\n',
    front: 'name: Front\nmodel: openai/test-tool\ninstructions: Ask the desk.\nagents: [ops]\n',
    guarded: 'name: Guarded\nmodel: openai/test-tool\ninstructions: Ask the careful desk.\nagents: [careful]\n',
    careful: `name: Careful\nmodel: openai/test-tool\ninstructions: Look orders up.\nmcp_servers:\n  - label: vault\n    url: ${mcp.url}\n    headers: { Authorization: "Bearer orders-secret" }\n    allowed_tools: [lookup_order]\n    require_approval: always\n`,
    ops: `name: Ops\nmodel: openai/test-tool\ninstructions: Look orders up.\nmcp_servers:\n  - label: orders\n    url: ${mcp.url}\n    headers: { Authorization: "Bearer \${ORDERS_TOKEN}" }\n    allowed_tools: [lookup_order]\n    cost_usd: 0.001\n`,
  });
  gateway = await startGateway({ ...folders.env, ORDERS_TOKEN: 'orders-secret', JUNCTION_MCP_ALLOWLIST: '127.0.0.1', JUNCTION_MCP_ALLOW_PRIVATE: 'true' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await gateway.key('agent');
});
afterAll(async () => {
  await gateway.close();
  await mcp.close();
  folders.remove();
});

type Item = {
  type: string;
  id?: string;
  name?: string;
  agent?: string;
  tools?: unknown[];
  server_label?: string;
  output?: string | null;
  error?: string | null;
  arguments?: string;
  content?: Array<{ text: string }>;
};
type Resource = { status: string; output: Item[]; usage: { cost_details: { tool_cost: number } } };
const send = (body: Record<string, unknown>) =>
  fetch(`${gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const post = async (input: string, body: Record<string, unknown> = { model: 'ops' }) => {
  const response = await send({ ...body, input });
  expect(response.status).toBe(200);
  return (await response.json()) as Resource;
};

describe(`MCP tools on ${engineName()}`, () => {
  it('lists the allowed tools under the server label, calls them with the substituted header, bills their cost', async () => {
    const response = await post('where is my order?');
    expect(response.status).toBe('completed');
    const offered = gateway.openai.requests.at(-2)?.body as { tools?: Array<{ function: { name: string } }> };
    expect(offered.tools?.map((tool) => tool.function.name)).toEqual(['mcp_orders__lookup_order']);
    expect(response.output.map((item) => [item.type, item.server_label, item.name, item.output])).toEqual([
      ['mcp_list_tools', 'orders', undefined, undefined],
      ['mcp_call', 'orders', 'lookup_order', 'order fake: shipped'],
      ['message', undefined, undefined, undefined],
    ]);
    // The listing shows what the model was offered, in the server's own names.
    expect(response.output[0]?.tools).toEqual([
      { name: 'lookup_order', description: 'Status of an order.', input_schema: expect.objectContaining({ properties: { order_id: { type: 'string' } } }), annotations: null },
    ]);
    expect(mcp.calls).toEqual([{ tool: 'lookup_order', args: { order_id: 'fake' } }]);
    expect(response.usage.cost_details.tool_cost).toBe(0.001);
    await gateway.settle();
    const rows = await gateway.services.db.query<{ cost_micros: number }>(`SELECT cost_micros FROM usage_log WHERE requested_model = 'tool:mcp_orders__lookup_order'`);
    expect(rows.rows.map((row) => row.cost_micros)).toEqual([1000]);
  });

  it('takes {type: "mcp"} tools from a request for allowed hosts only; their headers are not env-substituted', async () => {
    const tool = { type: 'mcp', server_label: 'orders', server_url: mcp.url, headers: { Authorization: 'Bearer orders-secret' }, allowed_tools: ['lookup_order'] };
    const before = mcp.calls.length;
    const response = await post('look it up', { model: 'plain', tools: [tool] });
    expect(response.output.find((item) => item.type === 'mcp_call')?.output).toBe('order fake: shipped');
    expect(mcp.calls.length).toBe(before + 1);
    expect((response as unknown as { tools: Array<Record<string, unknown>> }).tools).toEqual([
      { type: 'mcp', server_label: 'orders', server_url: mcp.url, allowed_tools: ['lookup_order'], require_approval: 'never' },
    ]);
    const refused = await send({ model: 'plain', input: 'x', tools: [{ ...tool, server_url: mcp.url.replace('127.0.0.1', 'localhost') }] });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { param: 'tools.0.server_url' } });
    // ${ORDERS_TOKEN} stays literal in a request: the server refuses it, so its tools are not offered.
    const literal = await post('x', { model: 'plain', tools: [{ ...tool, headers: { Authorization: 'Bearer ${ORDERS_TOKEN}' } }] });
    expect(literal.output.map((item) => item.type)).toEqual(['message']);
    expect(mcp.calls.length).toBe(before + 1);
  });

  it("a sub-agent's MCP calls show as mcp_call after one mcp_list_tools, in the stream and the response alike", async () => {
    const response = await send({ model: 'front', input: 'where is my order?', stream: true });
    expect(response.status).toBe(200);
    const events = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
      .map((line) => JSON.parse(line.slice(6)) as { type: string; sequence_number: number; output_index?: number; item?: Item; response?: Resource });
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const completed = events.at(-1)?.response;
    expect(completed?.output.map((item) => [item.type, item.name ?? item.server_label, item.agent ?? null])).toEqual([
      ['junction:tool_call', 'ask_ops', null],
      ['mcp_list_tools', 'orders', 'ops'],
      ['mcp_call', 'lookup_order', 'ops'],
      ['message', undefined, null],
    ]);
    expect(completed?.output[2]).toMatchObject({ server_label: 'orders', output: 'order fake: shipped', error: null, status: 'completed' });
    // OpenAI's MCP events, in its order, for the listing and the call.
    const listing = events.filter((event) => event.output_index === 1).map((event) => event.type);
    expect(listing).toEqual(['response.output_item.added', 'response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed', 'response.output_item.done']);
    const call = events.filter((event) => event.output_index === 2).map((event) => event.type);
    expect(call).toEqual([
      'response.output_item.added',
      'response.mcp_call.in_progress',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.completed',
      'response.output_item.done',
    ]);
    // Each item as its last event left it is the item the response holds.
    const done = events
      .filter((event) => event.type === 'response.output_item.done')
      .sort((a, b) => (a.output_index ?? 0) - (b.output_index ?? 0))
      .map((event) => event.item);
    expect(done).toEqual(completed?.output);

    // Sent back as history (a client keeping its own), the sub-agent's steps stay its own: the caller sees its ask and answer only.
    const again = await send({ model: 'front', input: [{ role: 'user', content: 'where is my order?' }, ...(completed?.output ?? []), { role: 'user', content: 'thanks' }] });
    expect(again.status).toBe(200);
    const history = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string; tool_calls?: Array<{ function: { name: string } }> }> };
    expect(history.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(history.messages.flatMap((message) => message.tool_calls ?? []).map((call) => call.function.name)).toEqual(['ask_ops']);
  });

  it("a sub-agent's MCP call that waits for approval is OpenAI's mcp_approval_request, and runs once approved", async () => {
    const before = mcp.calls.length;
    const paused = (await post('look it up', { model: 'guarded' })) as Resource & { id: string; output: Array<Item & { id: string }> };
    const asked = paused.output.at(-1);
    expect(asked).toMatchObject({ type: 'mcp_approval_request', server_label: 'vault', name: 'lookup_order', agent: 'careful' });
    expect(mcp.calls.length).toBe(before);
    const resumed = await send({ model: 'guarded', previous_response_id: paused.id, input: [{ type: 'mcp_approval_response', approval_request_id: asked?.id, approve: true }] });
    expect(resumed.status).toBe(200);
    const json = (await resumed.json()) as Resource;
    expect(json.output.filter((item) => item.agent === 'careful').map((item) => [item.type, item.server_label, item.output ?? null])).toEqual([
      ['mcp_list_tools', 'vault', null],
      ['mcp_call', 'vault', 'order fake: shipped'],
    ]);
    expect(mcp.calls.length).toBe(before + 1);
  });

  it("require_approval always: an mcp_approval_request, answered with OpenAI's mcp_approval_response", async () => {
    const tool = { type: 'mcp', server_label: 'orders', server_url: mcp.url, headers: { Authorization: 'Bearer orders-secret' }, allowed_tools: ['lookup_order'], require_approval: 'always' };
    const before = mcp.calls.length;
    const paused = (await post('look it up', { model: 'plain', tools: [tool] })) as Resource & { id: string; output: Array<Item & { id: string }> };
    expect(paused.output.map((item) => [item.type, item.server_label, item.name, item.arguments])).toEqual([['mcp_approval_request', 'orders', 'lookup_order', '{"order_id":"fake"}']]);
    expect(mcp.calls.length).toBe(before);
    const answer = { type: 'mcp_approval_response', approval_request_id: paused.output[0]?.id, approve: true };
    const resumed = await send({ model: 'plain', tools: [tool], previous_response_id: paused.id, input: [answer] });
    expect(resumed.status).toBe(200);
    const json = (await resumed.json()) as Resource;
    expect(json.output.map((item) => [item.type, item.output ?? null])).toEqual([
      ['mcp_list_tools', null],
      ['mcp_call', 'order fake: shipped'],
      ['message', null],
    ]);
    expect(mcp.calls.length).toBe(before + 1);
    // Answered once: the same answer inside a resent history is history, not a second run.
    const replayed = await send({ model: 'plain', tools: [tool], input: [{ role: 'user', content: 'look it up' }, { ...paused.output[0] }, answer, { role: 'user', content: 'thanks' }] });
    expect(replayed.status).toBe(200);
    const asked = ((await replayed.json()) as Resource & { output: Array<Item & { id: string }> }).output.at(-1);
    expect(asked?.type).toBe('mcp_approval_request'); // a new turn, whose call waits for its own approval
    expect(asked?.id).not.toBe(paused.output[0]?.id);
    expect(mcp.calls.length).toBe(before + 1);
  });

  it('a server that went down makes its tool fail as a tool error (not billed); the run completes', async () => {
    await mcp.close();
    const response = await post('and now?');
    expect(response.status).toBe('completed');
    const call = response.output.find((item) => item.type === 'mcp_call');
    expect(call?.output ?? '').toContain('could not run lookup_order');
    expect(call?.error).toBe(call?.output);
    expect(response.usage.cost_details.tool_cost).toBe(0);
    // Next run: the server is still down, so its tools are left out and the model answers without them.
    const later = await post('anyone?');
    expect(later.status).toBe('completed');
    expect(later.output.map((item) => item.type)).toEqual(['message']);
  });
});
