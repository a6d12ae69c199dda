import type { McpTool } from './mcp-servers.ts';

/** A tool of an MCP server as the run listed it, in the server's own names. */
export type McpListedTool = { name: string; description?: string; inputSchema: Record<string, unknown> };

/**
 * What a tool step says when the tool is an MCP server's: the server, its own name for the
 * tool, and the tools the run listed from that server, so a front-end can show the listing
 * and the call as OpenAI's `mcp_list_tools` and `mcp_call` items at any depth of sub-agents.
 */
export type McpStep = { serverLabel: string; tool: string; listed: McpListedTool[] };

export function mcpStep(tool: McpTool, runTools: readonly McpTool[]): McpStep {
  const listed = runTools
    .filter((candidate) => candidate.server === tool.server && candidate.via === tool.via)
    .map((candidate) => ({
      name: candidate.tool,
      ...(candidate.definition.description && { description: candidate.definition.description }),
      inputSchema: candidate.definition.parameters,
    }));
  return { serverLabel: tool.server.label, tool: tool.tool, listed };
}
