import { z } from 'zod';

/**
 * Anthropic Messages API wire format. Outgoing bodies are plain types (we build
 * them); incoming responses and stream events are lenient zod schemas, because
 * Anthropic adds fields and block types often and an unknown one must not break a call.
 */

export type AnthropicCacheControl = { type: 'ephemeral'; ttl?: string };

export type AnthropicTextBlock = { type: 'text'; text: string; cache_control?: AnthropicCacheControl };
export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
export type AnthropicDocumentSource = { type: 'base64'; media_type: string; data: string } | { type: 'text'; media_type: 'text/plain'; data: string } | { type: 'url'; url: string };
export type AnthropicRequestBlock =
  | AnthropicTextBlock
  | { type: 'image'; source: AnthropicImageSource; cache_control?: AnthropicCacheControl }
  | { type: 'document'; source: AnthropicDocumentSource; title?: string; cache_control?: AnthropicCacheControl }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content: string;
      is_error?: boolean;
      cache_control?: AnthropicCacheControl;
    };

export type AnthropicRequestMessage = { role: 'user' | 'assistant'; content: AnthropicRequestBlock[] };

export type AnthropicTool = {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
};

export type AnthropicToolChoice = { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean } | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean } | { type: 'none' };

export type AnthropicMessagesBody = {
  model: string;
  messages: AnthropicRequestMessage[];
  max_tokens: number;
  system?: AnthropicTextBlock[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  thinking?: { type: 'enabled'; budget_tokens: number };
  metadata?: Record<string, unknown>;
  stream?: boolean;
  /** providerOptions.anthropic keys (service_tier, metadata…) land here verbatim. */
  [extra: string]: unknown;
};

export const AnthropicUsageSchema = z
  .object({
    input_tokens: z.number().nullish(),
    output_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
    cache_creation_input_tokens: z.number().nullish(),
  })
  .loose();
export type AnthropicUsage = z.infer<typeof AnthropicUsageSchema>;

/**
 * Content blocks we translate. Server-tool results and future block types stay
 * `unknown` in the envelopes and are skipped by the mappers after a failed parse here.
 */
export const AnthropicResponseBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }).loose(),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().nullish() }).loose(),
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }).loose(),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }).loose(),
]);
export type AnthropicResponseBlock = z.infer<typeof AnthropicResponseBlockSchema>;

export const AnthropicMessageSchema = z
  .object({
    id: z.string(),
    model: z.string(),
    content: z.array(z.unknown()),
    stop_reason: z.string().nullish(),
    stop_sequence: z.string().nullish(),
    usage: AnthropicUsageSchema.nullish(),
  })
  .loose();
export type AnthropicMessage = z.infer<typeof AnthropicMessageSchema>;

export const AnthropicErrorBodySchema = z.object({ error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).loose() }).loose();

const MessageStartSchema = z
  .object({
    type: z.literal('message_start'),
    message: z.object({ id: z.string().nullish(), model: z.string().nullish(), usage: AnthropicUsageSchema.nullish() }).loose(),
  })
  .loose();
const ContentBlockStartSchema = z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: z.unknown() }).loose();
const ContentBlockDeltaSchema = z
  .object({
    type: z.literal('content_block_delta'),
    index: z.number(),
    // citations_delta and future delta types parse as unknown and are skipped
    delta: z.unknown(),
  })
  .loose();
export const AnthropicDeltaSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text_delta'), text: z.string() }).loose(),
  z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }).loose(),
  z.object({ type: z.literal('thinking_delta'), thinking: z.string() }).loose(),
  z.object({ type: z.literal('signature_delta'), signature: z.string() }).loose(),
]);
const ContentBlockStopSchema = z.object({ type: z.literal('content_block_stop'), index: z.number() }).loose();
const MessageDeltaSchema = z
  .object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }).loose(),
    usage: AnthropicUsageSchema.nullish(),
  })
  .loose();
const MessageStopSchema = z.object({ type: z.literal('message_stop') }).loose();
const PingSchema = z.object({ type: z.literal('ping') }).loose();
const ErrorEventSchema = z.object({ type: z.literal('error'), error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).loose() }).loose();

export const AnthropicStreamEventSchema = z.discriminatedUnion('type', [
  MessageStartSchema,
  ContentBlockStartSchema,
  ContentBlockDeltaSchema,
  ContentBlockStopSchema,
  MessageDeltaSchema,
  MessageStopSchema,
  PingSchema,
  ErrorEventSchema,
]);
export type AnthropicStreamEvent = z.infer<typeof AnthropicStreamEventSchema>;

export const AnthropicCountTokensResponseSchema = z.object({ input_tokens: z.number() }).loose();
