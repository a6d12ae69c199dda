import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../../src/agents/mcp/mcp-server-config.ts';
import { McpServers } from '../../../src/agents/mcp/mcp-servers.ts';
import { systemLookup } from '../../../src/net/address-guard.ts';

/**
 * An MCP server (official SDK, Streamable HTTP) whose tools/call answers break: `crash`
 * starts its event stream and then the socket dies, `hang_up` ends the stream without a
 * result, `ok` answers. A call whose answer broke is an immediate tool error, not a wait
 * for the 60 s call timeout.
 */
let url = '';
let close: () => Promise<void>;
beforeAll(async () => {
  const http = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const body = await new Promise<unknown>((resolve) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => resolve(text ? JSON.parse(text) : undefined));
    });
    const call = body as { method?: string; params?: { name?: string } } | undefined;
    if (call?.method === 'tools/call' && call.params?.name !== 'ok') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': working\n\n');
      setTimeout(() => (call.params?.name === 'crash' ? response.socket?.destroy() : response.end()), 100);
      return;
    }
    const server = new McpServer({ name: 'fragile', version: '1.0.0' });
    for (const name of ['crash', 'hang_up', 'ok']) server.registerTool(name, { description: name, inputSchema: {} }, async () => ({ content: [{ type: 'text', text: `${name} done` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  close = () => new Promise((resolve) => http.close(() => resolve()));
});
afterAll(() => close());

const config: () => McpServerConfig = () => ({ label: 'fragile', url, headers: {}, args: [], requireApproval: false, costMicros: 0, trust: 'operator' });

describe('an MCP server that breaks off a call', () => {
  it.each(['crash', 'hang_up'])(
    '%s: the call fails at once as a tool error; the next call works',
    async (name) => {
      const mcp = new McpServers({ env: {}, tenantPolicy: { allowlist: [], allowPrivate: false, lookup: systemLookup } });
      const tools = await mcp.tools([config()]);
      const tool = tools.find((entry) => entry.tool === name);
      expect(tool).toBeDefined();
      const outcome = await mcp.call(tool as NonNullable<typeof tool>, {}, new AbortController().signal);
      expect(outcome.ok).toBe(false);
      // Never answered, so never charged.
      expect(outcome.answered).toBe(false);
      // Failed by the end of its answer, not by the 60 s call timeout (whose error reads "Request timed out").
      expect(outcome.content).toContain(`Error: the MCP server "fragile" could not run ${name}: the server ended its answer without a result`);
      const ok = (await mcp.tools([config()])).find((entry) => entry.tool === 'ok');
      expect(await mcp.call(ok as NonNullable<typeof ok>, {}, new AbortController().signal)).toEqual({ ok: true, content: 'ok done', answered: true });
      await mcp.close();
    },
    70_000,
  );
});
