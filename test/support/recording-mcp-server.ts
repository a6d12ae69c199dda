import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * An MCP server (the official SDK's, Streamable HTTP, stateless) on 127.0.0.1 that
 * records the headers of every request it receives, for the tenant-boundary tests:
 * `big_report` answers with `bigChars` characters, `ping` with "pong".
 */
export async function startRecordingMcpServer(options: { bigChars?: number } = {}) {
  const requests: Array<{ method: string; headers: Record<string, string> }> = [];
  const build = () => {
    const server = new McpServer({ name: 'recorder', version: '1.0.0' });
    server.registerTool('big_report', { description: 'A very long report.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'r'.repeat(options.bigChars ?? 1_000_000) }] }));
    server.registerTool('ping', { description: 'Answers pong.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
    return server;
  };
  const http = createServer(async (request, response) => {
    requests.push({ method: request.method ?? '', headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])) });
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
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
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
