import { JunctionError } from '../../core/errors.ts';
import type { CreateResponseRequest } from '../responses/response-request-schema.ts';
import { mcpAllowedTools } from '../responses/response-resource.ts';
import type { McpServerConfig } from './mcp-server-config.ts';

/**
 * `{type: "mcp"}` tools of a Responses request → servers for this run. A request may
 * only reach hosts the operator listed in JUNCTION_MCP_ALLOWLIST (comma-separated host
 * names, or host:port): the server makes those calls from inside its network. Header
 * values are sent as given — never `${ENV}`-substituted, which would hand the server's
 * secrets to whoever wrote the request.
 */
export function requestMcpServers(body: CreateResponseRequest, allowlist: readonly string[]): McpServerConfig[] {
  return (body.tools ?? []).flatMap((tool, index) => {
    if (tool.type !== 'mcp') return [];
    const url = new URL(tool.server_url);
    if (!allowlist.includes(url.hostname) && !allowlist.includes(url.host)) {
      throw new JunctionError('invalid_request', `MCP server host '${url.host}' is not allowed on this server (JUNCTION_MCP_ALLOWLIST).`, { param: `tools.${index}.server_url` });
    }
    if (body.background && tool.headers && Object.keys(tool.headers).length > 0) {
      throw new JunctionError('invalid_request', 'MCP tools with headers cannot run in the background: their credentials would have to be stored.', { param: `tools.${index}.headers` });
    }
    const allowed = mcpAllowedTools(tool);
    return [{ label: tool.server_label, url: tool.server_url, headers: tool.headers ?? {}, args: [], ...(allowed && { allowedTools: allowed }), requireApproval: tool.require_approval === 'always', costMicros: 0, fromRequest: true }];
  });
}

/** JUNCTION_MCP_ALLOWLIST → host names (lower case). */
export const parseMcpAllowlist = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);
