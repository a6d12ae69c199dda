import { z } from 'zod';
import { ProviderPreferencesSchema } from '../../routing/provider-preferences.ts';

/**
 * The chat-completions request body, as the official OpenAI client sends it, plus
 * OpenRouter's `models` (fallbacks) and `reasoning` object. Written strict, and read
 * through the tolerant reader (src/gateway/tolerant-reader.ts): an unknown field goes on
 * to an OpenAI-format upstream, or is dropped and named in `x-junction-dropped-params`.
 * Fields that would be billed beyond what the catalog prices are refused by name.
 */
const unsupported = (message: string) => z.never({ error: message }).optional();
const TextPart = z.strictObject({ type: z.literal('text'), text: z.string() });
const ImagePart = z.strictObject({
  type: z.literal('image_url'),
  image_url: z.strictObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const FilePart = z.strictObject({
  type: z.literal('file'),
  file: z.strictObject({ file_data: z.string().optional(), filename: z.string().optional(), file_id: z.string().optional() }),
});
const UserPart = z.discriminatedUnion('type', [TextPart, ImagePart, FilePart]);

const ToolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});

const SystemMessage = z.strictObject({
  role: z.enum(['system', 'developer']),
  content: z.union([z.string(), z.array(TextPart)]),
  name: z.string().optional(),
});
const UserMessage = z.strictObject({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(UserPart).min(1)]),
  name: z.string().optional(),
});
const AssistantMessage = z.strictObject({
  role: z.literal('assistant'),
  content: z.union([z.string(), z.array(z.union([TextPart, z.strictObject({ type: z.literal('refusal'), refusal: z.string() })]))]).nullish(),
  tool_calls: z.array(ToolCall).optional(),
  reasoning: z.string().nullish(),
  refusal: z.string().nullish(),
  name: z.string().optional(),
});
const ToolMessage = z.strictObject({
  role: z.literal('tool'),
  tool_call_id: z.string().min(1),
  content: z.union([z.string(), z.array(TextPart)]),
  // The function's name; LangChain's ChatOpenAI sends it on every tool result.
  name: z.string().optional(),
});
export const ChatMessageSchema = z.discriminatedUnion('role', [SystemMessage, UserMessage, AssistantMessage, ToolMessage]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

const ToolSchema = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, "_" or "-"'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

const ResponseFormat = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    json_schema: z.strictObject({
      name: z.string().min(1),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
      description: z.string().optional(),
    }),
  }),
]);

const Effort = z.enum(['minimal', 'low', 'medium', 'high']);

export const ChatRequestSchema = z.strictObject({
  model: z.string().min(1),
  models: z.array(z.string().min(1)).max(5).optional(),
  // Junction's own steering of deployments (OpenRouter's field); never forwarded upstream.
  provider: ProviderPreferencesSchema.optional(),
  messages: z.array(ChatMessageSchema).min(1),
  tools: z.array(ToolSchema).optional(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: z.string() }) })]).optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: ResponseFormat.optional(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  top_k: z.number().int().positive().optional(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  seed: z.number().int().nullish(),
  user: z.string().optional(),
  stream: z.boolean().nullish(),
  stream_options: z.strictObject({ include_usage: z.boolean().optional() }).nullish(),
  reasoning_effort: Effort.optional(),
  reasoning: z.strictObject({ effort: Effort.optional(), max_tokens: z.number().int().positive().optional(), enabled: z.boolean().optional(), exclude: z.boolean().optional() }).optional(),
  n: z.literal(1).nullish(),
  // OpenAI-only sampling and bookkeeping fields: forwarded to OpenAI-format upstreams.
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
  // Priority (and scale) processing is billed upstream above the catalog's standard prices.
  service_tier: z.enum(['auto', 'default', 'flex'], { error: "only 'auto', 'default' or 'flex' is supported" }).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  store: z.boolean().nullish(),
  verbosity: z.enum(['low', 'medium', 'high']).optional(),
  modalities: z.array(z.literal('text', { error: 'only text output is supported' })).nullish(),
  audio: unsupported('audio output is not supported by this gateway'),
  web_search_options: unsupported('web_search_options is not supported by this gateway'),
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;
