import { z } from 'zod';

/**
 * Gemini generateContent wire format (v1beta). Outgoing bodies are plain types;
 * responses are lenient zod schemas (Google adds fields freely).
 */

export type GeminiPart = {
  text?: string;
  thought?: boolean;
  /** Opaque signature Gemini needs back on the same part to keep its reasoning across turns. */
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType: string; fileUri: string };
  functionCall?: { name: string; args: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
};
export type GeminiContent = { role: 'user' | 'model'; parts: GeminiPart[] };

export type GeminiSchema = Record<string, unknown>;
export type GeminiFunctionDeclaration = { name: string; description?: string; parameters?: GeminiSchema };

export type GeminiGenerationConfig = {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  responseMimeType?: string;
  responseSchema?: GeminiSchema;
  thinkingConfig?: { thinkingBudget?: number; includeThoughts?: boolean };
  [extra: string]: unknown;
};

export type GeminiGenerateBody = {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: GeminiGenerationConfig;
  /** providerOptions.gemini keys (safetySettings, cachedContent…) land here verbatim. */
  [extra: string]: unknown;
};

export const GeminiResponsePartSchema = z
  .object({
    text: z.string().nullish(),
    thought: z.boolean().nullish(),
    thoughtSignature: z.string().nullish(),
    functionCall: z
      .object({ name: z.string(), args: z.record(z.string(), z.unknown()).nullish(), id: z.string().nullish() })
      .loose()
      .nullish(),
  })
  .loose();
export type GeminiResponsePart = z.infer<typeof GeminiResponsePartSchema>;

export const GeminiUsageMetadataSchema = z
  .object({
    promptTokenCount: z.number().nullish(),
    candidatesTokenCount: z.number().nullish(),
    thoughtsTokenCount: z.number().nullish(),
    cachedContentTokenCount: z.number().nullish(),
    toolUsePromptTokenCount: z.number().nullish(),
    totalTokenCount: z.number().nullish(),
  })
  .loose();
export type GeminiUsageMetadata = z.infer<typeof GeminiUsageMetadataSchema>;

export const GeminiGenerateResponseSchema = z
  .object({
    candidates: z
      .array(
        z
          .object({
            content: z
              .object({ parts: z.array(GeminiResponsePartSchema).nullish() })
              .loose()
              .nullish(),
            finishReason: z.string().nullish(),
          })
          .loose(),
      )
      .nullish(),
    promptFeedback: z.object({ blockReason: z.string().nullish() }).loose().nullish(),
    usageMetadata: GeminiUsageMetadataSchema.nullish(),
    modelVersion: z.string().nullish(),
    responseId: z.string().nullish(),
  })
  .loose();
export type GeminiGenerateResponse = z.infer<typeof GeminiGenerateResponseSchema>;

export const GeminiErrorBodySchema = z
  .object({
    error: z
      .object({
        code: z.number().nullish(),
        message: z.string().nullish(),
        status: z.string().nullish(),
        // google.rpc details; RetryInfo's `retryDelay` is a Duration in JSON ("17s", "0.5s").
        details: z.array(z.object({ '@type': z.string().nullish(), retryDelay: z.string().nullish() }).loose()).nullish(),
      })
      .loose(),
  })
  .loose();

const EmbeddingSchema = z.object({ values: z.array(z.number()) }).loose();
export const GeminiEmbedContentResponseSchema = z.object({ embedding: EmbeddingSchema }).loose();
export const GeminiBatchEmbedResponseSchema = z.object({ embeddings: z.array(EmbeddingSchema) }).loose();
export const GeminiCountTokensResponseSchema = z.object({ totalTokens: z.number().nullish(), cachedContentTokenCount: z.number().nullish() }).loose();
