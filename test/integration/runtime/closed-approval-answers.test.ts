import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { startMcpTestServer } from '../../support/mcp-test-server.ts';
import { runtimeFolders } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * An answer to a pause that was closed before it was answered (cancelled, or moved on
 * from) is a 409 `approval_closed`, however it comes: with `previous_response_id`, or
 * inside a resent history. The tool never runs and nothing is billed for it.
 */
let mcp: Awaited<ReturnType<typeof startMcpTestServer>>;
let folders: ReturnType<typeof runtimeFolders>;
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  mcp = await startMcpTestServer('orders-secret');
  folders = runtimeFolders({
    plain: 'name: Plain\nmodel: openai/test-tool\ninstructions: Use what you are given.\n',
    approver: 'name: Approver\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [{ name: echo_upper, require_approval: true }]\n',
  });
  gateway = await startGateway({ ...folders.env, JUNCTION_MCP_ALLOWLIST: '127.0.0.1', JUNCTION_MCP_ALLOW_PRIVATE: 'true' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await gateway.key('agent');
});
afterAll(async () => {
  await gateway.close();
  await mcp.close();
  folders.remove();
});

type Item = { type: string; id: string };
type Reply = { status: number; json: { id: string; status: string; output: Item[]; error?: { code: string; param: string | null; message: string } } };
const call = async (path: string, body?: Record<string, unknown>): Promise<Reply> => {
  const response = await fetch(`${gateway.baseUrl}/agents/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, ...(body && { 'content-type': 'application/json' }) },
    ...(body && { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Reply['json'] };
};
const toolRows = async () => {
  await gateway.settle();
  const rows = await gateway.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE requested_model LIKE 'tool:%'`);
  return rows.rows[0]?.n ?? 0;
};
const ordersTool = () => ({
  type: 'mcp',
  server_label: 'orders',
  server_url: mcp.url,
  headers: { Authorization: 'Bearer orders-secret' },
  allowed_tools: ['lookup_order'],
  require_approval: 'always',
});

function expectClosed(reply: Reply, param: string) {
  expect(reply.status, JSON.stringify(reply.json)).toBe(409);
  expect(reply.json.error).toMatchObject({ code: 'approval_closed', param });
}

describe(`answers to closed approvals on ${engineName()}`, () => {
  it('cancelled: an mcp_approval_response in the resent history, or naming the response, is a 409 and the MCP tool never runs', async () => {
    const tools = [ordersTool()];
    const paused = await call('/responses', { model: 'plain', input: 'look it up', tools });
    const request = paused.json.output.find((item) => item.type === 'mcp_approval_request');
    expect(request, JSON.stringify(paused.json)).toBeDefined();
    expect((await call(`/responses/${paused.json.id}/cancel`)).json.status).toBe('cancelled');
    const calls = mcp.calls.length;
    const billed = await toolRows();

    const answer = { type: 'mcp_approval_response', approval_request_id: request?.id, approve: true };
    // The Agents SDK's way: the whole history again, the answer after the request it answers.
    const history = await call('/responses', { model: 'plain', tools, input: [{ role: 'user', content: 'look it up' }, { ...request }, answer] });
    expectClosed(history, 'input.2.approval_request_id');
    expect(history.json.error?.message).toContain('cancelled');
    expectClosed(await call('/responses', { model: 'plain', tools, previous_response_id: paused.json.id, input: [answer] }), 'input.0.approval_request_id');
    expect(mcp.calls.length).toBe(calls);
    expect(await toolRows()).toBe(billed);
  });

  it('moved on from: a junction:approval_response, with previous_response_id or inside a resent history, is a 409 and the tool never runs', async () => {
    const paused = await call('/responses', { model: 'approver', input: 'shout fake' });
    const request = paused.json.output.find((item) => item.type === 'junction:approval_request');
    expect(request, JSON.stringify(paused.json)).toBeDefined();
    const next = await call('/responses', { model: 'approver', previous_response_id: paused.json.id, input: 'never mind', tools: [] });
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    const billed = await toolRows();

    const answer = { type: 'junction:approval_response', approval_request_id: request?.id, approve: true };
    const named = await call('/responses', { model: 'approver', previous_response_id: paused.json.id, input: [answer] });
    expectClosed(named, 'input.0.approval_request_id');
    expect(named.json.error?.message).toContain('moved on');
    expectClosed(await call('/responses', { model: 'approver', input: [{ role: 'user', content: 'shout fake' }, answer, { role: 'user', content: 'go' }] }), 'input.1.approval_request_id');
    expectClosed(
      await call('/responses', {
        model: 'approver',
        input: [
          { role: 'user', content: 'shout fake' },
          { type: 'mcp_approval_response', approval_request_id: request?.id, approve: true },
        ],
      }),
      'input.1.approval_request_id',
    );
    expect(await toolRows()).toBe(billed);
  });

  it('an answer already taken is history; one naming no pause at all is still a 400', async () => {
    const paused = await call('/responses', { model: 'approver', input: 'shout fake' });
    const request = paused.json.output.find((item) => item.type === 'junction:approval_request');
    const answer = { type: 'junction:approval_response', approval_request_id: request?.id, approve: true };
    expect((await call('/responses', { model: 'approver', previous_response_id: paused.json.id, input: [answer] })).status).toBe(200);
    const again = await call('/responses', { model: 'approver', previous_response_id: paused.json.id, input: [answer] });
    expect(again.status).toBe(400);
    expect(again.json.error?.code).toBe('invalid_request');
  });
});
