import { randomHex } from '../../core/random-hex.ts';

/**
 * Output items and streaming events in the Open Responses wire shape (snake_case on
 * purpose: these objects are the wire). Only what an agent run produces is typed.
 * `function_call` is reserved for calls the client must run: a step the server ran is
 * an item clients know not to execute — OpenAI's `mcp_call` for an MCP tool, else the
 * spec's provider-prefixed extension item `junction:tool_call` (call and result in one).
 */

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export type OutputTextPart = { type: 'output_text'; text: string; annotations: [] };
export type ReasoningTextPart = { type: 'reasoning_text'; text: string };

/** `phase`: text the model wrote before calling tools is `commentary`; the answer is `final_answer`. */
export type MessageItem = { type: 'message'; id: string; status: ItemStatus; role: 'assistant'; content: OutputTextPart[]; phase?: 'commentary' | 'final_answer' };
export type ReasoningItem = { type: 'reasoning'; id: string; summary: []; content: ReasoningTextPart[] };
/** `agent`: set on the tool steps a sub-agent took (its id, or a path for nested agents). */
export type FunctionCallItem = { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: ItemStatus; agent?: string };
/** A tool the server ran (built-in, file, knowledge, handoff, sub-agent): `output` is null until it returns. */
export type ServerToolCallItem = { type: 'junction:tool_call'; id: string; call_id: string; name: string; arguments: string; output: string | null; status: ItemStatus; agent?: string };
/** An MCP tool the server called, in OpenAI's shape (`name` is the server's tool name). */
export type McpCallItem = {
  type: 'mcp_call';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: string | null;
  status: ItemStatus;
  agent?: string;
};

/** The tools of an MCP server, listed once per server (and agent) before its first call, in OpenAI's shape. */
export type McpListToolsItem = {
  type: 'mcp_list_tools';
  id: string;
  server_label: string;
  tools: Array<{ name: string; description: string | null; input_schema: Record<string, unknown>; annotations: null }>;
  error: null;
  agent?: string;
};

/**
 * A server tool call waiting for a person (Open Responses extension item: provider prefix).
 * The response completes with it last; the caller answers with a `junction:approval_response`.
 */
/** `agent`: set when a sub-agent raised the request (its path, as on its steps). */
export type ApprovalRequestItem = { type: 'junction:approval_request'; id: string; status: 'completed'; call_id: string; name: string; arguments: string; agent?: string };
/** The same wait for an MCP tool, in OpenAI's shape; answered with an `mcp_approval_response`. */
export type McpApprovalRequestItem = { type: 'mcp_approval_request'; id: string; status: 'completed'; server_label: string; name: string; arguments: string; call_id: string; agent?: string };

export type OutputItem = MessageItem | ReasoningItem | FunctionCallItem | ServerToolCallItem | McpCallItem | McpListToolsItem | ApprovalRequestItem | McpApprovalRequestItem;

export type StreamEvent = { type: string; sequence_number: number } & Record<string, unknown>;

const randomId = (prefix: string) => `${prefix}_${randomHex(16)}`;
export const newItemId = {
  message: () => randomId('msg'),
  reasoning: () => randomId('rs'),
  functionCall: () => randomId('fc'),
  serverToolCall: () => randomId('tc'),
  mcpCall: () => randomId('mcp'),
  mcpListTools: () => randomId('mcpl'),
  approvalRequest: () => randomId('apr'),
  mcpApprovalRequest: () => randomId('mcpr'),
};
