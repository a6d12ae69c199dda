import { JunctionError } from '../../core/errors.ts';
import type { ModelRequest, ToolDefinition, Usage } from '../../core/model-types.ts';
import { microsToUsd } from '../../core/money.ts';
import type { LoadedAgent } from '../agent-registry.ts';
import type { AgentRunRequest } from '../agent-runner.ts';
import type { OutputItem } from './response-items.ts';
import type { CreateResponseRequest, FunctionToolParam, McpToolParam, TextFormatParam, ToolChoiceParam } from './response-request-schema.ts';

/**
 * The `ResponseResource` (all 31 keys the spec requires). Settings are the effective
 * ones: what the request asked for, else the agent's own, else the spec's default, so
 * a client reading a response knows what the run really used.
 */

type EchoedTool =
  | { type: 'function'; name: string; description: string | null; parameters: Record<string, unknown> | null; strict: boolean | null }
  // Headers are never echoed: they carry the caller's credentials for the server.
  | { type: 'mcp'; server_label: string; server_url: string; allowed_tools: string[] | null; require_approval: 'always' | 'never' };
type EchoedFormat = { type: 'text' } | { type: 'json_schema'; name: string; description: string | null; schema: null; strict: boolean };

export type ResponseSettings = {
  model: string;
  /** The agent version that produced this response (a Junction extension field). */
  agent_version: string;
  previous_response_id: string | null;
  /** The conversation the response joined, when the request named one (OpenAI's field). */
  conversation?: { id: string };
  instructions: string | null;
  tools: EchoedTool[];
  tool_choice: 'none' | 'auto' | 'required' | { type: 'function'; name: string };
  truncation: 'disabled';
  parallel_tool_calls: true;
  text: { format: EchoedFormat };
  top_p: 1;
  presence_penalty: 0;
  frequency_penalty: 0;
  top_logprobs: 0;
  temperature: number;
  reasoning: { effort: 'none' | 'low' | 'medium' | 'high' | null; summary: 'auto' | null } | null;
  max_output_tokens: number | null;
  max_tool_calls: null;
  store: boolean;
  background: boolean;
  service_tier: string;
  metadata: Record<string, string>;
  safety_identifier: string | null;
  prompt_cache_key: string | null;
};

/** Spec usage plus Junction's cost (USD, model tokens + tools): the Usage schema allows extra keys. */
export type WireUsage = {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens_details: { reasoning_tokens: number };
  cost: number;
  cost_details: { model_cost: number; tool_cost: number };
};

export type ResponseState = {
  id: string;
  createdAt: number;
  status: 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';
  completedAt: number | null;
  output: OutputItem[];
  usage: WireUsage | null;
  error: { code: string; message: string } | null;
  incompleteReason: string | null;
};

export type ResponseResource = ResponseSettings & {
  id: string;
  object: 'response';
  created_at: number;
  completed_at: number | null;
  status: ResponseState['status'];
  incomplete_details: { reason: string } | null;
  output: ResponseState['output'];
  error: ResponseState['error'];
  usage: WireUsage | null;
};

export function responseResource(settings: ResponseSettings, state: ResponseState): ResponseResource {
  return {
    id: state.id,
    object: 'response',
    created_at: state.createdAt,
    completed_at: state.completedAt,
    status: state.status,
    incomplete_details: state.incompleteReason === null ? null : { reason: state.incompleteReason },
    error: state.error,
    usage: state.usage,
    ...settings,
    output: state.output,
  };
}

export function wireUsage(usage: Usage, costs: { modelCostMicros: number; toolCostMicros: number }): WireUsage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    cost: microsToUsd(costs.modelCostMicros + costs.toolCostMicros),
    cost_details: { model_cost: microsToUsd(costs.modelCostMicros), tool_cost: microsToUsd(costs.toolCostMicros) },
  };
}

const ECHOED_EFFORTS = new Set(['none', 'low', 'medium', 'high'] as const);

export function effectiveSettings(body: CreateResponseRequest, agent: LoadedAgent): ResponseSettings {
  const agentEffort = agent.config.reasoning?.effort;
  let reasoning = null;
  if (body.reasoning) reasoning = { effort: body.reasoning.effort ?? null, summary: body.reasoning.summary ?? null };
  // The spec's effort enum has no 'minimal': shown as null rather than as a level the run did not use.
  else if (agentEffort) reasoning = { effort: agentEffort === 'minimal' ? null : agentEffort, summary: null };
  return {
    model: agent.id,
    agent_version: agent.version,
    previous_response_id: body.previous_response_id ?? null,
    ...(body.conversation != null && { conversation: { id: typeof body.conversation === 'string' ? body.conversation : body.conversation.id } }),
    instructions: body.instructions ?? null,
    tools: (body.tools ?? []).map(echoTool),
    tool_choice: body.tool_choice ?? 'auto',
    truncation: 'disabled',
    parallel_tool_calls: true,
    text: { format: echoFormat(body.text?.format ?? null) },
    top_p: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: body.temperature ?? agent.config.temperature ?? 1,
    reasoning: reasoning && { ...reasoning, effort: reasoning.effort && ECHOED_EFFORTS.has(reasoning.effort) ? reasoning.effort : null },
    max_output_tokens: body.max_output_tokens ?? agent.config.maxOutputTokens ?? null,
    max_tool_calls: null,
    store: body.store ?? true,
    background: body.background ?? false,
    service_tier: 'default',
    metadata: body.metadata ?? {},
    safety_identifier: body.safety_identifier ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
  };
}

const echoTool = (tool: FunctionToolParam | McpToolParam): EchoedTool =>
  tool.type === 'mcp'
    ? { type: 'mcp', server_label: tool.server_label, server_url: tool.server_url, allowed_tools: mcpAllowedTools(tool) ?? null, require_approval: tool.require_approval ?? 'never' }
    : echoFunctionTool(tool);

export const mcpAllowedTools = (tool: McpToolParam): string[] | undefined => (Array.isArray(tool.allowed_tools) ? tool.allowed_tools : tool.allowed_tools?.tool_names);

const echoFunctionTool = (tool: FunctionToolParam): EchoedTool => ({
  type: 'function',
  name: tool.name,
  description: tool.description ?? null,
  parameters: tool.parameters ?? null,
  strict: tool.strict ?? null,
});

// The spec's response-side JsonSchemaResponseFormat types `schema` as null: the
// schema itself is not echoed (the caller has it), only its name and settings.
const echoFormat = (format: TextFormatParam | null): EchoedFormat =>
  format?.type === 'json_schema' ? { type: 'json_schema', name: format.name, description: format.description ?? null, schema: null, strict: format.strict ?? false } : { type: 'text' };

/**
 * The run's per-request settings. Client tools must not shadow the agent's own tools
 * (the runtime would run the server one), and a forced tool must exist.
 */
export function runOverrides(body: CreateResponseRequest, agent: LoadedAgent, extraInstructions: readonly string[]): NonNullable<AgentRunRequest['overrides']> {
  const declared = (body.tools ?? []).flatMap((tool, index) => (tool.type === 'function' ? [{ tool: toToolDefinition(tool), index }] : []));
  const clientTools = declared.map((entry) => entry.tool);
  const seen = new Set<string>();
  declared.forEach(({ tool, index }) => {
    if (seen.has(tool.name)) throw new JunctionError('invalid_request', `Tool '${tool.name}' is declared twice.`, { param: `tools.${index}.name` });
    if (agent.config.tools.includes(tool.name)) {
      throw new JunctionError('invalid_request', `Tool '${tool.name}' is one of the agent's own tools; give the client tool another name.`, { param: `tools.${index}.name` });
    }
    seen.add(tool.name);
  });
  const choice = body.tool_choice;
  if (typeof choice === 'object' && choice !== null && !seen.has(choice.name) && !agent.config.tools.includes(choice.name)) {
    throw new JunctionError('invalid_request', `tool_choice names '${choice.name}', which is neither a declared tool nor one of the agent's.`, { param: 'tool_choice.name' });
  }
  const instructions = [body.instructions, ...extraInstructions].filter((text): text is string => Boolean(text)).join('\n\n');
  const reasoning = toReasoning(body.reasoning?.effort);
  const format = body.text?.format;
  return {
    ...(instructions && { instructions }),
    ...(body.temperature != null && { temperature: body.temperature }),
    ...(body.max_output_tokens != null && { maxOutputTokens: body.max_output_tokens }),
    ...(reasoning && { reasoning }),
    ...(format?.type === 'json_schema' && {
      responseFormat: {
        type: 'json_schema' as const,
        name: format.name,
        schema: format.schema,
        ...(format.strict != null && { strict: format.strict }),
        ...(format.description && { description: format.description }),
      },
    }),
    ...(clientTools.length > 0 && { clientTools }),
    ...(choice != null && { toolChoice: toToolChoice(choice) }),
  };
}

const toToolDefinition = (tool: FunctionToolParam): ToolDefinition => ({
  name: tool.name,
  parameters: tool.parameters ?? { type: 'object', properties: {} },
  ...(tool.description && { description: tool.description }),
  ...(tool.strict != null && { strict: tool.strict }),
});

const toToolChoice = (choice: ToolChoiceParam): NonNullable<ModelRequest['toolChoice']> => (typeof choice === 'string' ? choice : { type: 'tool', name: choice.name });

function toReasoning(effort: 'none' | 'low' | 'medium' | 'high' | null | undefined): ModelRequest['reasoning'] {
  if (effort == null) return undefined;
  return effort === 'none' ? { enabled: false } : { effort };
}
