import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * An MCP server built with the official SDK, over Streamable HTTP (stateless) on
 * 127.0.0.1, for the runtime tests: `lookup_order` answers with the order's status,
 * `drop_tables` exists to be filtered out by `allowed_tools`. Requests without
 * `Authorization: Bearer <token>` get a 401.
 */
export async function startMcpTestServer(token: string) {
  const calls: Array<{ tool: string; args: unknown }> = [];
  const build = () => {
    const server = new McpServer({ name: 'orders', version: '1.0.0' });
    server.registerTool('lookup_order', { description: 'Status of an order.', inputSchema: { order_id: z.string() } }, async ({ order_id }) => {
      calls.push({ tool: 'lookup_order', args: { order_id } });
      return { content: [{ type: 'text', text: `order ${order_id}: shipped` }] };
    });
    server.registerTool('drop_tables', { description: 'Never offered.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'dropped' }] }));
    return server;
  };
  const http = createServer(async (request, response) => {
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401).end();
      return;
    }
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.method === 'POST' ? await readJson(request) : undefined);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
