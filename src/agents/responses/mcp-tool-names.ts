import type { LoadedAgent } from '../agent-registry.ts';
import { mcpToolName } from '../mcp/mcp-server-config.ts';
import type { CreateResponseRequest } from './response-request-schema.ts';

export type McpTool = { serverLabel: string; tool: string };
export type McpToolOf = (name: string) => McpTool | undefined;

/**
 * The MCP server behind a tool name the model used (`mcp_<label>__<tool>`), for the
 * servers this run knows; the longest label wins when one label prefixes another.
 */
export function mcpToolResolver(labels: readonly string[]): McpToolOf {
  const prefixes = labels.map((label) => ({ label, prefix: mcpToolName(label, '') })).sort((a, b) => b.prefix.length - a.prefix.length);
  return (name) => {
    const match = prefixes.find(({ prefix }) => name.length > prefix.length && name.startsWith(prefix));
    return match && { serverLabel: match.label, tool: name.slice(match.prefix.length) };
  };
}

/** The agent's own MCP servers and the request's `{type: "mcp"}` tools. */
export const runMcpLabels = (agent: LoadedAgent, body: CreateResponseRequest): string[] => [
  ...agent.config.mcpServers.map((server) => server.label),
  ...(body.tools ?? []).flatMap((tool) => (tool.type === 'mcp' ? [tool.server_label] : [])),
];
