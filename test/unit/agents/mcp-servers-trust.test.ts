import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../../src/agents/mcp/mcp-server-config.ts';
import { McpServers } from '../../../src/agents/mcp/mcp-servers.ts';
import { systemLookup } from '../../../src/net/address-guard.ts';
import { startRecordingMcpServer } from '../../support/recording-mcp-server.ts';

/**
 * Defence in depth: whatever a tenant's server config says (it should never have got
 * past the console schema), McpServers itself starts no command for it, puts none of
 * the environment in its headers and reaches no private address unless allowed.
 */
let listener: Awaited<ReturnType<typeof startRecordingMcpServer>>;
let scratch: string;
beforeAll(async () => {
  listener = await startRecordingMcpServer({ bigChars: 250_000 });
  scratch = mkdtempSync(join(tmpdir(), 'junction-mcp-trust-'));
});
afterAll(async () => {
  await listener.close();
  rmSync(scratch, { recursive: true, force: true });
});

const ENV = { SECRET_TOKEN: 's3cret-from-env', PATH: process.env['PATH'] };
const servers = (allowPrivate: boolean, errors: string[] = []) =>
  new McpServers({ env: ENV, tenantPolicy: { allowlist: ['127.0.0.1'], allowPrivate, lookup: systemLookup }, onError: (error) => errors.push((error as Error).message) });
const server = (overrides: Partial<McpServerConfig>): McpServerConfig => ({ label: 'rec', headers: {}, args: [], requireApproval: false, costMicros: 0, trust: 'tenant', ...overrides });

describe('MCP servers by trust', () => {
  it("never starts a tenant's command", async () => {
    const marker = join(scratch, 'started');
    const errors: string[] = [];
    const mcp = servers(true, errors);
    expect(await mcp.tools([server({ command: 'sh', args: ['-c', `touch ${marker}`] })])).toEqual([]);
    await mcp.close();
    expect(errors).toEqual(['the MCP server "rec" is a command, which only agent files on the server may start']);
    expect(existsSync(marker)).toBe(false);
  });

  it("sends a tenant's header values as written, and substitutes ${NAME} for the operator's", async () => {
    const mcp = servers(true);
    const headers = { 'x-token': 'Bearer ${SECRET_TOKEN}' };
    expect((await mcp.tools([server({ url: listener.url, headers })])).map((tool) => tool.tool)).toEqual(['big_report', 'ping']);
    expect(listener.requests.map((request) => request.headers['x-token'])).toContain('Bearer ${SECRET_TOKEN}');
    expect(JSON.stringify(listener.requests)).not.toContain('s3cret-from-env');
    listener.requests.length = 0;
    await mcp.tools([server({ url: listener.url, headers, trust: 'operator' })]);
    expect(listener.requests.map((request) => request.headers['x-token'])).toContain('Bearer s3cret-from-env');
    await mcp.close();
    listener.requests.length = 0;
  });

  it("refuses a tenant's server on a private address unless the operator allows it, before any request", async () => {
    const errors: string[] = [];
    const mcp = servers(false, errors);
    expect(await mcp.tools([server({ url: listener.url })])).toEqual([]);
    expect(errors).toEqual(['127.0.0.1 is a private or reserved address, which MCP refuses']);
    expect(listener.requests).toEqual([]);
    await mcp.close();
  });

  it('cuts a long result to the bound of local tools, saying so', async () => {
    const mcp = servers(true);
    const [big] = (await mcp.tools([server({ url: listener.url })])).filter((tool) => tool.tool === 'big_report');
    if (!big) throw new Error('big_report was not listed');
    const result = await mcp.call(big, {}, new AbortController().signal);
    expect(result.ok).toBe(true);
    expect(result.content).toBe(`${'r'.repeat(100_000)}\n…[truncated 150000 characters]`);
    await mcp.close();
  });
});
