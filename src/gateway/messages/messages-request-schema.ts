import { z } from 'zod';

/**
 * POST /v1/messages (and /v1/messages/count_tokens) bodies, as the official
 * @anthropic-ai/sdk sends them. Written strict and read through the tolerant reader
 * (src/gateway/tolerant-reader.ts): an unknown field goes on to an Anthropic upstream or
 * is dropped and named in `x-junction-dropped-params`. Fields Anthropic documents that we
 * cannot honour (server tools, MCP servers, containers, context management) are refused
 * with a message that says so.
 *
 * Response-shaped blocks are accepted too (`citations: null` on text, `caller` on
 * tool_use) because clients commonly append `response.content` to the history as is.
 */

/**
 * A string is shorthand for one text block. Normalising before validation (instead of
 * a string|array union) makes a bad block fail with its own path and message rather
 * than a bare "invalid input" on the whole union.
 */
const textShorthand = <Schema extends z.ZodType>(blocks: Schema) =>
  z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    return value === '' ? [] : [{ type: 'text', text: value }];
  }, blocks);

/** Present → 400 with this message; absent → fine. */
const unsupported = (message: string) => z.never({ error: message }).optional();

export const CacheControlSchema = z.strictObject({
  type: z.literal('ephemeral'),
  ttl: z.enum(['5m', '1h']).optional(),
});
export type CacheControlInput = z.infer<typeof CacheControlSchema>;
const cacheControl = CacheControlSchema.nullish();

export const TextBlockSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControl,
  // Citations from an earlier response are accepted and dropped: no canonical home.
  citations: z.array(z.unknown()).nullish(),
});

const ImageBlockSchema = z.strictObject({
  type: z.literal('image'),
  source: z.discriminatedUnion(
    'type',
    [z.strictObject({ type: z.literal('base64'), media_type: z.string().regex(/^image\//), data: z.string() }), z.strictObject({ type: z.literal('url'), url: z.string().min(1) })],
    { error: "image source type must be 'base64' or 'url' (Files API sources are not supported)" },
  ),
  cache_control: cacheControl,
});

const DocumentBlockSchema = z.strictObject({
  type: z.literal('document'),
  source: z.discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: z.string() }),
      z.strictObject({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
      z.strictObject({ type: z.literal('url'), url: z.string().min(1) }),
    ],
    { error: "document source type must be 'base64' (PDF), 'text' or 'url'" },
  ),
  title: z.string().nullish(),
  context: z.string().nullish(),
  citations: z.strictObject({ enabled: z.literal(false, { error: 'document citations are not supported' }).optional() }).nullish(),
  cache_control: cacheControl,
});

const ToolUseBlockSchema = z.strictObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
  cache_control: cacheControl,
  caller: z.unknown().optional(),
  toolset_name: z.string().nullish(),
});

const ToolResultBlockSchema = z.strictObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: textShorthand(
    z.array(
      z.discriminatedUnion('type', [TextBlockSchema, ImageBlockSchema, DocumentBlockSchema], {
        error: 'tool_result content blocks must be text, image or document',
      }),
    ),
  ).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl,
});

const ThinkingBlockSchema = z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() });
const RedactedThinkingBlockSchema = z.strictObject({ type: z.literal('redacted_thinking'), data: z.string() });

export const ContentBlockSchema = z.discriminatedUnion(
  'type',
  [TextBlockSchema, ImageBlockSchema, DocumentBlockSchema, ToolUseBlockSchema, ToolResultBlockSchema, ThinkingBlockSchema, RedactedThinkingBlockSchema],
  {
    error: 'content block type must be one of text, image, document, tool_use, tool_result, thinking, redacted_thinking (server-tool and search_result blocks are not supported)',
  },
);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

const SystemSchema = textShorthand(z.array(TextBlockSchema));
const ContentSchema = textShorthand(z.array(ContentBlockSchema));

export const MessageParamSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('user'), content: ContentSchema }),
  z.strictObject({ role: z.literal('assistant'), content: ContentSchema }),
  z.strictObject({ role: z.literal('system'), content: SystemSchema }),
]);
export type MessageParam = z.infer<typeof MessageParamSchema>;

export const ToolSchema = z.strictObject({
  // First in the shape so a server tool (`type: 'web_search_20250305'`…) fails here,
  // with this message, before the missing input_schema is reported.
  type: z
    .literal('custom', {
      error: 'only custom tools (name, description, input_schema) are supported; Anthropic server tools such as web_search, code_execution, bash or text_editor are not',
    })
    .nullish(),
  name: z.string().min(1).max(128),
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
  cache_control: cacheControl,
  strict: z.boolean().optional(),
});
export type ToolInput = z.infer<typeof ToolSchema>;

export const ToolChoiceSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.strictObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.strictObject({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }),
  z.strictObject({ type: z.literal('none') }),
]);

const thinkingDisplay = z.enum(['summarized', 'omitted']).nullish();
export const ThinkingSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1024), display: thinkingDisplay }),
    z.strictObject({ type: z.literal('adaptive'), display: thinkingDisplay }),
    z.strictObject({ type: z.literal('disabled') }),
  ],
  { error: "thinking type must be 'enabled', 'adaptive' or 'disabled'" },
);
export type ThinkingInput = z.infer<typeof ThinkingSchema>;

export const OutputConfigSchema = z.strictObject({
  effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).nullish(),
  format: z.strictObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish(),
});

/** Fields both bodies share (count_tokens takes the prompt side only). */
const promptFields = {
  model: z.string().min(1),
  messages: z.array(MessageParamSchema).min(1),
  system: SystemSchema.optional(),
  tools: z.array(ToolSchema).optional(),
  tool_choice: ToolChoiceSchema.optional(),
  thinking: ThinkingSchema.optional(),
  output_config: OutputConfigSchema.optional(),
  cache_control: cacheControl,
  speed: z.enum(['standard', 'fast']).nullish(),
  mcp_servers: unsupported('mcp_servers is not supported by this gateway'),
};

export const MessagesRequestSchema = z.strictObject({
  ...promptFields,
  max_tokens: z.number().int().min(0),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  top_p: z.number().min(0).max(1).optional(),
  metadata: z.strictObject({ user_id: z.string().nullish() }).optional(),
  stream: z.boolean().optional(),
  service_tier: z.enum(['auto', 'standard_only']).optional(),
  inference_geo: z.string().nullish(),
  container: unsupported('container is not supported by this gateway'),
  context_management: unsupported('context_management is not supported by this gateway'),
  diagnostics: unsupported('diagnostics is not supported by this gateway'),
});
export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

export const CountTokensRequestSchema = z.strictObject(promptFields);
export type CountTokensRequest = z.infer<typeof CountTokensRequestSchema>;
