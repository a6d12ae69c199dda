import { z } from 'zod';

/**
 * Cohere's v2 Chat API (`POST /v2/chat`) wire format. Outgoing bodies are plain types (we
 * build them); answers and stream events are lenient zod schemas, because Cohere adds
 * fields (citations, logprobs, new content types) that must not break a call.
 */

export type CohereContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

export type CohereToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

export type CohereMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | CohereContentPart[] }
  | { role: 'assistant'; content?: string; tool_plan?: string; tool_calls?: CohereToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export type CohereTool = { type: 'function'; function: { name: string; description?: string; parameters: Record<string, unknown> } };

export type CohereChatBody = {
  model: string;
  messages: CohereMessage[];
  stream: boolean;
  tools?: CohereTool[];
  /** Cohere has no "auto" (it is the default when absent) and no named tool. */
  tool_choice?: 'REQUIRED' | 'NONE';
  strict_tools?: boolean;
  response_format?: { type: 'text' } | { type: 'json_object'; json_schema?: Record<string, unknown> };
  max_tokens?: number;
  temperature?: number;
  p?: number;
  k?: number;
  seed?: number;
  stop_sequences?: string[];
  thinking?: { type: 'enabled' | 'disabled'; token_budget?: number };
  /** providerOptions.cohere keys (safety_mode, documents, citation_options…) land here verbatim. */
  [extra: string]: unknown;
};

const TokenCountsSchema = z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).loose();

export const CohereUsageSchema = z
  .object({
    billed_units: TokenCountsSchema.nullish(),
    tokens: TokenCountsSchema.nullish(),
    cached_tokens: z.number().nullish(),
  })
  .loose();
export type CohereUsage = z.infer<typeof CohereUsageSchema>;

export const CohereToolCallSchema = z
  .object({
    id: z.string().nullish(),
    function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).loose().nullish(),
  })
  .loose();

/** A content item: `text`, a reasoning model's `thinking`, or a type we skip. */
export const CohereContentItemSchema = z.object({ type: z.string().nullish(), text: z.string().nullish(), thinking: z.string().nullish() }).loose();

export const CohereChatResponseSchema = z
  .object({
    id: z.string().nullish(),
    finish_reason: z.string().nullish(),
    message: z
      .object({
        content: z.array(z.unknown()).nullish(),
        tool_plan: z.string().nullish(),
        tool_calls: z.array(CohereToolCallSchema).nullish(),
      })
      .loose(),
    usage: CohereUsageSchema.nullish(),
  })
  .loose();

/**
 * One streamed event. Every event is `{type, index?, delta?, id?}`; what `delta.message`
 * holds depends on the type (content, tool_plan or tool_calls), so it is read loosely.
 */
export const CohereStreamEventSchema = z
  .object({
    type: z.string().nullish(),
    id: z.string().nullish(),
    index: z.number().nullish(),
    delta: z
      .object({
        message: z
          .object({
            content: z.union([CohereContentItemSchema, z.array(z.unknown())]).nullish(),
            tool_plan: z.string().nullish(),
            tool_calls: z.union([CohereToolCallSchema, z.array(z.unknown())]).nullish(),
          })
          .loose()
          .nullish(),
        finish_reason: z.string().nullish(),
        usage: CohereUsageSchema.nullish(),
        error: z.string().nullish(),
      })
      .loose()
      .nullish(),
  })
  .loose();
export type CohereStreamEvent = z.infer<typeof CohereStreamEventSchema>;

/** Cohere answers errors as `{"id": "…", "message": "…"}`. */
export const CohereErrorBodySchema = z.object({ message: z.string().nullish() }).loose();

/** Cohere's embedding purposes (`input_type`), required by its v3 and newer embedding models. */
export type CohereInputType = 'search_document' | 'search_query' | 'classification' | 'clustering';

/** `POST /v2/embed` as the adapter sends it: text only, float vectors only. */
export type CohereEmbedBody = {
  model: string;
  texts: string[];
  input_type: CohereInputType;
  embedding_types: ['float'];
  output_dimension?: number;
};

/** The answer of `/v2/embed` (`response_type: "embeddings_by_type"`): vectors by type, usage in `meta.billed_units`. */
export const CohereEmbedResponseSchema = z
  .object({
    embeddings: z.object({ float: z.array(z.array(z.number())) }).loose(),
    meta: z
      .object({ billed_units: z.object({ input_tokens: z.number().nullish() }).loose().nullish() })
      .loose()
      .nullish(),
  })
  .loose();
