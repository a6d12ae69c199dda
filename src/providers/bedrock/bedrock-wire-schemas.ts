import { z } from 'zod';

/**
 * Amazon Bedrock's Converse and ConverseStream wire format. Outgoing bodies are plain
 * types (we build them); answers and stream events are lenient zod schemas, because
 * Bedrock adds block types and fields (citations, guard content) that must not break a call.
 */

export type ConverseCachePoint = { cachePoint: { type: 'default' } };

export type ConverseBytesSource = { bytes: string } | { s3Location: { uri: string } };
export type ConverseImageBlock = { image: { format: string; source: ConverseBytesSource } };
export type ConverseDocumentBlock = { document: { format: string; name: string; source: ConverseBytesSource | { text: string } } };
export type ConverseToolResultContent = { text: string } | { json: unknown };

export type ConverseRequestBlock =
  | { text: string }
  | ConverseImageBlock
  | ConverseDocumentBlock
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: ConverseToolResultContent[]; status?: 'success' | 'error' } }
  | { reasoningContent: { reasoningText: { text: string; signature?: string } } | { redactedContent: string } }
  | ConverseCachePoint;

export type ConverseMessage = { role: 'user' | 'assistant'; content: ConverseRequestBlock[] };

export type ConverseTool = { toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } } } | ConverseCachePoint;
export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export type ConverseBody = {
  messages: ConverseMessage[];
  system?: Array<{ text: string } | ConverseCachePoint>;
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: ConverseTool[]; toolChoice?: ConverseToolChoice };
  /** Model-specific fields Bedrock hands to the model's native API (top_k, thinking…). */
  additionalModelRequestFields?: Record<string, unknown>;
  /** providerOptions.bedrock keys (guardrailConfig, performanceConfig, requestMetadata…) land here verbatim. */
  [extra: string]: unknown;
};

export const ConverseUsageSchema = z
  .object({
    inputTokens: z.number().nullish(),
    outputTokens: z.number().nullish(),
    totalTokens: z.number().nullish(),
    cacheReadInputTokens: z.number().nullish(),
    cacheWriteInputTokens: z.number().nullish(),
  })
  .loose();
export type ConverseUsage = z.infer<typeof ConverseUsageSchema>;

/** A content block is an object with one member naming its kind; those we translate are read, others (citations, guard content, images) skipped. */
export const ConverseResponseBlockSchema = z
  .object({
    text: z.string().nullish(),
    toolUse: z.object({ toolUseId: z.string(), name: z.string(), input: z.unknown() }).loose().nullish(),
    reasoningContent: z
      .object({
        reasoningText: z.object({ text: z.string(), signature: z.string().nullish() }).loose().nullish(),
        redactedContent: z.string().nullish(),
      })
      .loose()
      .nullish(),
  })
  .loose();

export const ConverseResponseSchema = z
  .object({
    output: z.object({ message: z.object({ role: z.string().nullish(), content: z.array(z.unknown()) }).loose() }).loose(),
    stopReason: z.string().nullish(),
    usage: ConverseUsageSchema.nullish(),
  })
  .loose();

export const ConverseErrorBodySchema = z.object({ message: z.string().nullish(), Message: z.string().nullish() }).loose();

export const ContentBlockStartSchema = z
  .object({
    contentBlockIndex: z.number(),
    start: z
      .object({ toolUse: z.object({ toolUseId: z.string(), name: z.string() }).loose().nullish() })
      .loose()
      .nullish(),
  })
  .loose();

export const ContentBlockDeltaSchema = z
  .object({
    contentBlockIndex: z.number(),
    delta: z
      .object({
        text: z.string().nullish(),
        toolUse: z.object({ input: z.string() }).loose().nullish(),
        reasoningContent: z.object({ text: z.string().nullish(), signature: z.string().nullish(), redactedContent: z.string().nullish() }).loose().nullish(),
      })
      .loose(),
  })
  .loose();

export const ContentBlockStopSchema = z.object({ contentBlockIndex: z.number() }).loose();
export const MessageStopSchema = z.object({ stopReason: z.string().nullish() }).loose();
export const StreamMetadataSchema = z.object({ usage: ConverseUsageSchema.nullish() }).loose();

/** CountTokens' answer (`POST /model/{modelId}/count-tokens`). */
export const CountTokensResponseSchema = z.object({ inputTokens: z.number() }).loose();
