import { z } from 'zod';

/**
 * `POST /agents/v1/responses` body: the Open Responses `CreateResponseBody`
 * (2026-04-24), strict. Every field the spec defines is listed; the ones an agent run
 * cannot honour are accepted only at their no-op value (so clients that send the
 * defaults keep working) and otherwise refused with a 400 naming the field, never
 * ignored. Fields outside the spec (`conversation`, `prompt`, `user`…) are unknown
 * fields: 400 as well.
 */

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TEXT_LIMIT = 10 * 1024 * 1024;

/** Accepted only at the value that changes nothing; anything else names why it is refused. */
const onlyNoOp = <Value extends string | number | boolean>(value: Value, why: string) => z.literal(value, { error: `${why}; only ${JSON.stringify(value)} is accepted` }).nullish();

const InputTextSchema = z.strictObject({ type: z.literal('input_text'), text: z.string().max(TEXT_LIMIT) });
const InputImageSchema = z.strictObject({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  detail: z.enum(['low', 'high', 'auto']).nullish(),
});
const InputFileSchema = z.strictObject({
  type: z.literal('input_file'),
  filename: z.string().nullish(),
  file_data: z.string().nullish(),
  file_url: z.string().nullish(),
});
const UserContentSchema = z.union([z.string().max(TEXT_LIMIT), z.array(z.discriminatedUnion('type', [InputTextSchema, InputImageSchema, InputFileSchema]))]);
const InstructionContentSchema = z.union([z.string().max(TEXT_LIMIT), z.array(InputTextSchema)]);
const AssistantContentSchema = z.union([
  z.string().max(TEXT_LIMIT),
  z.array(
    z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('output_text'), text: z.string().max(TEXT_LIMIT), annotations: z.array(z.unknown()).optional() }),
      z.strictObject({ type: z.literal('refusal'), refusal: z.string().max(TEXT_LIMIT) }),
    ]),
  ),
]);

const itemBase = { id: z.string().nullish(), status: z.string().nullish() };
const MessageItemSchema = z.discriminatedUnion('role', [
  z.strictObject({ type: z.literal('message'), role: z.literal('user'), content: UserContentSchema, ...itemBase }),
  z.strictObject({ type: z.literal('message'), role: z.literal('system'), content: InstructionContentSchema, ...itemBase }),
  z.strictObject({ type: z.literal('message'), role: z.literal('developer'), content: InstructionContentSchema, ...itemBase }),
  z.strictObject({
    type: z.literal('message'),
    role: z.literal('assistant'),
    content: AssistantContentSchema,
    phase: z.enum(['commentary', 'final_answer']).optional(),
    ...itemBase,
  }),
]);
const CALL_ID = z.string().min(1).max(64);
const FunctionCallItemSchema = z.strictObject({
  type: z.literal('function_call'),
  call_id: CALL_ID,
  name: z.string().regex(NAME, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
  arguments: z.string(),
  ...itemBase,
});
const FunctionCallOutputItemSchema = z.strictObject({
  type: z.literal('function_call_output'),
  call_id: CALL_ID,
  output: z.union([z.string().max(TEXT_LIMIT), z.array(z.discriminatedUnion('type', [InputTextSchema, InputImageSchema, InputFileSchema]))]),
  ...itemBase,
});
const ReasoningItemSchema = z.strictObject({
  type: z.literal('reasoning'),
  id: z.string().nullish(),
  summary: z.array(z.strictObject({ type: z.literal('summary_text'), text: z.string() })),
  content: z.null().optional(),
  // Junction never hands out encrypted reasoning, so one sent back is not ours to read.
  encrypted_content: z.null({ error: 'encrypted reasoning is not supported (it is never issued by this server)' }).optional(),
});
const ItemReferenceSchema = z.strictObject({ type: z.literal('item_reference'), id: z.string().min(1) });
/** A person's answer to a `junction:approval_request` of the previous response (extension item). */
export const ApprovalResponseItemSchema = z.strictObject({
  type: z.literal('junction:approval_response'),
  approval_request_id: z.string().min(1).max(100),
  approve: z.boolean(),
  reason: z.string().max(10_000).nullish(),
  id: z.string().nullish(),
});
export type ApprovalResponseItem = z.infer<typeof ApprovalResponseItemSchema>;
/** OpenAI's answer to an `mcp_approval_request` (what the openai SDKs and @openai/agents send). */
export const McpApprovalResponseItemSchema = z.strictObject({
  type: z.literal('mcp_approval_response'),
  approval_request_id: z.string().min(1).max(100),
  approve: z.boolean(),
  reason: z.string().max(10_000).nullish(),
  id: z.string().nullish(),
});

/*
 * Steps the server ran, as a client that keeps its own history (the Agents SDK without
 * previous_response_id) sends them back: read as the calls and results they were.
 * Loose: clients add fields of their own (`caller`, `providerData` leftovers).
 */
const McpCallInputSchema = z.looseObject({
  type: z.literal('mcp_call'),
  id: z.string().nullish(),
  server_label: z.string().min(1).max(64),
  name: z.string().min(1).max(128),
  arguments: z.string().max(TEXT_LIMIT),
  output: z.string().max(TEXT_LIMIT).nullish(),
  error: z.unknown().optional(),
});
const ServerToolCallInputSchema = z.looseObject({
  type: z.literal('junction:tool_call'),
  id: z.string().nullish(),
  call_id: CALL_ID,
  name: z.string().regex(NAME, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
  arguments: z.string().max(TEXT_LIMIT),
  output: z.string().max(TEXT_LIMIT).nullish(),
});
/** Listing and approval-request items say nothing the model needs: accepted and skipped. */
const McpListToolsInputSchema = z.looseObject({ type: z.literal('mcp_list_tools'), id: z.string().nullish() });
const McpApprovalRequestInputSchema = z.looseObject({ type: z.literal('mcp_approval_request'), id: z.string().min(1) });

/** A `compaction` item as POST /responses/compact returned it, passed back as is. */
const CompactionItemSchema = z.strictObject({
  type: z.literal('compaction'),
  id: z.string().nullish(),
  encrypted_content: z.string().min(1).max(TEXT_LIMIT),
  created_by: z.string().optional(),
});

const KNOWN_ITEM_TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'item_reference',
  'compaction',
  'junction:approval_response',
  'junction:tool_call',
  'mcp_approval_response',
  'mcp_approval_request',
  'mcp_call',
  'mcp_list_tools',
];

/**
 * One input item. The type may be left out on a message (`{role, content}`, as the
 * OpenAI SDKs send it) and on an item reference (`{id}`), as the spec allows.
 */
export const InputItemSchema = z.preprocess(
  (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || 'type' in value) return value;
    return { ...value, type: 'role' in value ? 'message' : 'item_reference' };
  },
  z.discriminatedUnion(
    'type',
    [
      MessageItemSchema,
      FunctionCallItemSchema,
      FunctionCallOutputItemSchema,
      ReasoningItemSchema,
      ItemReferenceSchema,
      CompactionItemSchema,
      ApprovalResponseItemSchema,
      McpApprovalResponseItemSchema,
      McpCallInputSchema,
      ServerToolCallInputSchema,
      McpListToolsInputSchema,
      McpApprovalRequestInputSchema,
    ],
    {
      error: (issue) => (issue.code === 'invalid_union' ? `unsupported item type (supported: ${KNOWN_ITEM_TYPES.join(', ')})` : undefined),
    },
  ),
);
export type InputItem = z.infer<typeof InputItemSchema>;

export const FunctionToolSchema = z.strictObject({
  type: z.literal('function', { error: 'only function tools are supported (the agent brings its own server-side tools)' }),
  name: z.string().regex(NAME, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
export type FunctionToolParam = z.infer<typeof FunctionToolSchema>;

/**
 * OpenAI's remote MCP tool. Allowed only for servers whose host is listed in
 * JUNCTION_MCP_ALLOWLIST (checked when the request is prepared: 400 otherwise).
 */
export const McpToolParamSchema = z.strictObject({
  type: z.literal('mcp'),
  server_label: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,31}$/, 'must be 1-32 letters, digits, _ or -'),
  server_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  server_description: z.string().max(2_000).nullish(),
  allowed_tools: z.union([z.array(z.string().min(1)), z.strictObject({ tool_names: z.array(z.string().min(1)) })]).nullish(),
  require_approval: z.enum(['always', 'never'], { error: `must be 'always' or 'never'` }).nullish(),
  headers: z.record(z.string(), z.string()).nullish(),
});
export type McpToolParam = z.infer<typeof McpToolParamSchema>;
const ToolParamSchema = z.discriminatedUnion('type', [FunctionToolSchema, McpToolParamSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? `only function and mcp tools are supported (the agent brings its own server-side tools)` : undefined),
});

export const ToolChoiceSchema = z.union([z.enum(['none', 'auto', 'required']), z.strictObject({ type: z.literal('function'), name: z.string().min(1) })], {
  error: `must be 'none', 'auto', 'required' or {"type":"function","name":…} (allowed_tools is not supported)`,
});
export type ToolChoiceParam = z.infer<typeof ToolChoiceSchema>;

const JsonSchemaFormatSchema = z.strictObject({
  type: z.literal('json_schema'),
  name: z.string().regex(NAME, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
  description: z.string().optional(),
  schema: z.record(z.string(), z.unknown()),
  strict: z.boolean().nullish(),
});
const TextFormatSchema = z.discriminatedUnion('type', [z.strictObject({ type: z.literal('text') }), JsonSchemaFormatSchema], {
  error: `must be {"type":"text"} or {"type":"json_schema",…}`,
});
export type TextFormatParam = z.infer<typeof TextFormatSchema>;

export const CreateResponseSchema = z.strictObject({
  /** The agent id. */
  model: z.string().min(1),
  // A bare string is one user message; as items, errors name the item (`input.3.content`).
  input: z.preprocess(
    (value) => (typeof value === 'string' ? [{ type: 'message', role: 'user', content: value }] : value),
    z.array(InputItemSchema).min(1).max(4_096, 'at most 4096 input items per request; previous_response_id keeps the history'),
  ),
  instructions: z.string().nullish(),
  tools: z.array(ToolParamSchema).nullish(),
  tool_choice: ToolChoiceSchema.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  max_output_tokens: z.number().int().min(16).nullish(),
  previous_response_id: z.string().min(1).nullish(),
  // OpenAI's conversation state: the response joins this conversation (Junction's tree) after its latest message.
  conversation: z.union([z.string().min(1), z.strictObject({ id: z.string().min(1) })]).nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  // false: a warm-up that records the input (and history) without running the model; a later request chains from it.
  generate: z.boolean().nullish(),
  metadata: z
    .record(z.string().max(64), z.string().max(512))
    .refine((entries) => Object.keys(entries).length <= 16, 'at most 16 keys')
    .nullish(),
  reasoning: z
    .strictObject({
      effort: z.enum(['none', 'low', 'medium', 'high'], { error: `must be 'none', 'low', 'medium' or 'high' (xhigh is not supported)` }).nullish(),
      // No reasoning summaries are produced; 'auto' leaves that decision to the server.
      summary: onlyNoOp('auto', 'reasoning summaries are not generated (raw reasoning streams as reasoning_text)'),
    })
    .nullish(),
  text: z
    .strictObject({
      format: TextFormatSchema.nullish(),
      verbosity: onlyNoOp('medium', 'verbosity is not supported'),
    })
    .nullish(),
  include: z.array(z.string()).max(0, 'no include values are supported (no encrypted reasoning, no logprobs)').nullish(),
  parallel_tool_calls: onlyNoOp(true, 'parallel_tool_calls cannot be turned off for agent runs'),
  top_p: onlyNoOp(1, 'top_p is not supported by the agent runtime'),
  presence_penalty: onlyNoOp(0, 'presence_penalty is not supported by the agent runtime'),
  frequency_penalty: onlyNoOp(0, 'frequency_penalty is not supported by the agent runtime'),
  top_logprobs: onlyNoOp(0, 'logprobs are not supported'),
  max_tool_calls: z.null({ error: "not supported: the agent's max_steps bounds its tool loop" }).optional(),
  // Runs on after the reply; GET /responses/{id} follows it, POST /responses/{id}/cancel stops it.
  background: z.boolean().nullish(),
  truncation: onlyNoOp('disabled', 'context is never truncated (an over-long context fails instead)'),
  service_tier: z.enum(['auto', 'default'], { error: `only 'auto' or 'default' is supported` }).nullish(),
  stream_options: z.strictObject({ include_obfuscation: onlyNoOp(false, 'stream obfuscation is not supported') }).nullish(),
  // Identifiers with no effect on the output: recorded and echoed.
  safety_identifier: z.string().max(64).nullish(),
  prompt_cache_key: z.string().max(64).nullish(),
});
export type CreateResponseRequest = z.infer<typeof CreateResponseSchema>;

/** `POST /responses/compact`: the context to compact (`model` is the agent id). */
export const CompactRequestSchema = z.strictObject({
  model: z.string().min(1),
  input: z.preprocess((value) => (typeof value === 'string' ? [{ type: 'message', role: 'user', content: value }] : value), z.array(InputItemSchema).max(4_096)).nullish(),
  previous_response_id: z.string().min(1).nullish(),
  instructions: z.string().nullish(),
  prompt_cache_key: z.string().max(64).nullish(),
});
export type CompactRequest = z.infer<typeof CompactRequestSchema>;
