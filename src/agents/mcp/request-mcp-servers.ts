import { JunctionError } from '../../core/errors.ts';
import type { CreateResponseRequest } from '../responses/response-request-schema.ts';
import { mcpAllowedTools } from '../responses/response-resource.ts';
import { MAX_TENANT_MCP_SERVERS, type McpServerConfig } from './mcp-server-config.ts';
import { type TenantMcpPolicy, tenantMcpUrlRefusal } from './tenant-mcp-policy.ts';

/**
 * `{type: "mcp"}` tools of a Responses request → servers for this run. A request is
 * tenant input: its servers must pass the tenant policy (tenant-mcp-policy.ts: the
 * operator's JUNCTION_MCP_ALLOWLIST, public addresses only) because the server makes
 * those calls from inside its network, and header values are sent as given — never
 * `${ENV}`-substituted, which would hand the server's secrets to whoever wrote the request.
 */
export function requestMcpServers(body: CreateResponseRequest, policy: Pick<TenantMcpPolicy, 'allowlist' | 'allowPrivate'>): McpServerConfig[] {
  if ((body.tools ?? []).filter((tool) => tool.type === 'mcp').length > MAX_TENANT_MCP_SERVERS) {
    throw new JunctionError('invalid_request', `At most ${MAX_TENANT_MCP_SERVERS} MCP tools per request.`, { param: 'tools' });
  }
  return (body.tools ?? []).flatMap((tool, index) => {
    if (tool.type !== 'mcp') return [];
    const refusal = tenantMcpUrlRefusal(new URL(tool.server_url), policy);
    if (refusal) throw new JunctionError('invalid_request', `${refusal}.`, { param: `tools.${index}.server_url` });
    if (body.background && tool.headers && Object.keys(tool.headers).length > 0) {
      throw new JunctionError('invalid_request', 'MCP tools with headers cannot run in the background: their credentials would have to be stored.', { param: `tools.${index}.headers` });
    }
    const allowed = mcpAllowedTools(tool);
    return [
      {
        label: tool.server_label,
        url: tool.server_url,
        headers: tool.headers ?? {},
        args: [],
        ...(allowed && { allowedTools: allowed }),
        requireApproval: tool.require_approval === 'always',
        costMicros: 0,
        trust: 'tenant' as const,
      },
    ];
  });
}
