/**
 * Zod schemas of what OpenAI and OpenAI-compatible servers send back. Lenient on
 * purpose (`.loose()`, `.nullish()`): compatible servers omit fields, send `null` where
 * OpenAI sends nothing and add their own (`reasoning_content`, `x_groq`…), and none of
 * that should break a call. Only the fields we read are declared.
 */
import { z } from 'zod';

export const OpenAIUsageSchema = z
  .object({
    prompt_tokens: z.number().nullish(),
    completion_tokens: z.number().nullish(),
    total_tokens: z.number().nullish(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).loose().nullish(),
    completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).loose().nullish(),
    /** DeepSeek reports its context-cache hits here instead of prompt_tokens_details. */
    prompt_cache_hit_tokens: z.number().nullish(),
  })
  .loose();
export type OpenAIUsage = z.infer<typeof OpenAIUsageSchema>;

const ToolCallSchema = z
  .object({
    id: z.string().nullish(),
    type: z.string().nullish(),
    function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).loose(),
  })
  .loose();

export const OpenAIChatResponseSchema = z
  .object({
    id: z.string().nullish(),
    model: z.string().nullish(),
    choices: z.array(
      z
        .object({
          message: z
            .object({
              role: z.string().nullish(),
              content: z.string().nullish(),
              refusal: z.string().nullish(),
              /** DeepSeek, vLLM, SGLang. */
              reasoning_content: z.string().nullish(),
              /** OpenRouter, Ollama, Groq. */
              reasoning: z.string().nullish(),
              tool_calls: z.array(ToolCallSchema).nullish(),
            })
            .loose(),
          finish_reason: z.string().nullish(),
        })
        .loose(),
    ),
    usage: OpenAIUsageSchema.nullish(),
  })
  .loose();
export type OpenAIChatResponse = z.infer<typeof OpenAIChatResponseSchema>;

export const OpenAIChatChunkSchema = z
  .object({
    id: z.string().nullish(),
    model: z.string().nullish(),
    choices: z
      .array(
        z
          .object({
            delta: z
              .object({
                content: z.string().nullish(),
                refusal: z.string().nullish(),
                reasoning_content: z.string().nullish(),
                reasoning: z.string().nullish(),
                tool_calls: z.array(ToolCallSchema.extend({ index: z.number().nullish(), function: ToolCallSchema.shape.function.nullish() })).nullish(),
              })
              .loose()
              .nullish(),
            finish_reason: z.string().nullish(),
          })
          .loose(),
      )
      .nullish(),
    usage: OpenAIUsageSchema.nullish(),
    /** Groq sends streamed usage here rather than in `usage`. */
    x_groq: z.object({ usage: OpenAIUsageSchema.nullish() }).loose().nullish(),
    /** A failure reported inside an already-started stream. */
    error: z.unknown().optional(),
  })
  .loose();
export type OpenAIChatChunk = z.infer<typeof OpenAIChatChunkSchema>;

export const OpenAIErrorBodySchema = z
  .object({
    error: z
      .object({
        message: z.string().nullish(),
        type: z.string().nullish(),
        code: z.union([z.string(), z.number()]).nullish(),
        param: z.string().nullish(),
      })
      .loose(),
  })
  .loose();

export const OpenAIEmbeddingResponseSchema = z
  .object({
    model: z.string().nullish(),
    data: z.array(z.object({ index: z.number().nullish(), embedding: z.array(z.number()) }).loose()),
    usage: z.object({ prompt_tokens: z.number().nullish() }).loose().nullish(),
  })
  .loose();

export const OpenAIImageResponseSchema = z
  .object({
    created: z.number().nullish(),
    data: z.array(z.object({ url: z.string().nullish(), b64_json: z.string().nullish(), revised_prompt: z.string().nullish() }).loose()).nullish(),
    usage: z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).loose().nullish(),
  })
  .loose();

export const OpenAIModerationResponseSchema = z.object({ id: z.string().nullish(), model: z.string().nullish(), results: z.array(z.unknown()) }).loose();

export const OpenAITranscriptionJsonSchema = z
  .object({
    /** `verbose_json` answers carry the audio length here. */
    duration: z.number().nullish(),
    usage: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('duration'), seconds: z.number() }).loose(),
        z.object({ type: z.literal('tokens'), input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).loose(),
      ])
      .nullish()
      .catch(undefined),
  })
  .loose();
