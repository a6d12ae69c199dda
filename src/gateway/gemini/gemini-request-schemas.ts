import { z } from 'zod';

/**
 * Gemini-native request bodies under /v1beta, as the official @google/genai client
 * sends them (it adds `role` to systemInstruction and to embedding contents, and
 * `model` to each batch embedding request). Written strict and read through the
 * tolerant reader (src/gateway/tolerant-reader.ts): an unknown field goes on to a Gemini
 * upstream or is dropped and named. Fields Gemini documents but we cannot serve
 * (built-in tools, cachedContent, several candidates) are refused with a message that says so.
 */

const unsupported = (message: string) => z.never({ error: message }).optional();

const FunctionCallSchema = z.strictObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()).nullish(),
  id: z.string().nullish(),
});

const FunctionResponseSchema = z.strictObject({
  name: z.string().min(1),
  response: z.record(z.string(), z.unknown()).nullish(),
  id: z.string().nullish(),
  // Streaming-function hints have no meaning once the response is complete.
  willContinue: z.boolean().nullish(),
  scheduling: z.string().nullish(),
  parts: unsupported('functionResponse.parts (multimodal function responses) is not supported'),
});

export const PartSchema = z.strictObject({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  inlineData: z.strictObject({ mimeType: z.string().min(1), data: z.string(), displayName: z.string().nullish() }).nullish(),
  fileData: z.strictObject({ fileUri: z.string().min(1), mimeType: z.string().nullish(), displayName: z.string().nullish() }).nullish(),
  functionCall: FunctionCallSchema.nullish(),
  functionResponse: FunctionResponseSchema.nullish(),
  // Per-part metadata Gemini echoes; it carries nothing a model needs.
  partMetadata: z.record(z.string(), z.unknown()).nullish(),
  executableCode: unsupported('executableCode parts (code execution) are not supported'),
  codeExecutionResult: unsupported('codeExecutionResult parts (code execution) are not supported'),
});
export type Part = z.infer<typeof PartSchema>;

export const ContentSchema = z.strictObject({
  // 'function' is the legacy role of function responses; missing means user.
  role: z.enum(['user', 'model', 'function']).nullish(),
  parts: z.array(PartSchema),
});
export type Content = z.infer<typeof ContentSchema>;

export const FunctionDeclarationSchema = z.strictObject({
  name: z.string().min(1).max(128),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  parametersJsonSchema: z.record(z.string(), z.unknown()).nullish(),
  // Output schemas and scheduling behaviour do not change what the model is asked.
  response: z.record(z.string(), z.unknown()).nullish(),
  responseJsonSchema: z.unknown().optional(),
  behavior: z.string().nullish(),
});
export type FunctionDeclaration = z.infer<typeof FunctionDeclarationSchema>;

const builtInTool = unsupported('only functionDeclarations tools are supported; Gemini built-in tools (googleSearch, codeExecution, urlContext…) are not');
export const ToolSchema = z.strictObject({
  functionDeclarations: z.array(FunctionDeclarationSchema).nullish(),
  googleSearch: builtInTool,
  googleSearchRetrieval: builtInTool,
  codeExecution: builtInTool,
  urlContext: builtInTool,
  fileSearch: builtInTool,
  googleMaps: builtInTool,
  computerUse: builtInTool,
  mcpServers: builtInTool,
  retrieval: builtInTool,
  enterpriseWebSearch: builtInTool,
});

export const ToolConfigSchema = z.strictObject({
  functionCallingConfig: z
    .strictObject({
      mode: z.enum(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']).nullish(),
      allowedFunctionNames: z.array(z.string()).nullish(),
    })
    .nullish(),
  retrievalConfig: z.unknown().optional(),
});

export const ThinkingConfigSchema = z.strictObject({
  thinkingBudget: z.number().int().min(-1).nullish(),
  includeThoughts: z.boolean().nullish(),
  thinkingLevel: z.enum(['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH', 'minimal', 'low', 'medium', 'high']).nullish(),
});

export const GenerationConfigSchema = z.strictObject({
  temperature: z.number().min(0).max(2).nullish(),
  topP: z.number().min(0).max(1).nullish(),
  topK: z.number().int().min(0).nullish(),
  maxOutputTokens: z.number().int().min(1).nullish(),
  stopSequences: z.array(z.string()).nullish(),
  candidateCount: z.literal(1, { error: 'candidateCount must be 1: this gateway returns a single candidate' }).nullish(),
  responseMimeType: z.enum(['text/plain', 'application/json'], { error: "responseMimeType must be 'text/plain' or 'application/json'" }).nullish(),
  responseSchema: z.record(z.string(), z.unknown()).nullish(),
  responseJsonSchema: z.record(z.string(), z.unknown()).nullish(),
  seed: z.number().int().nullish(),
  thinkingConfig: ThinkingConfigSchema.nullish(),
  // Google-only knobs, forwarded to google/… models and ignored by the others.
  presencePenalty: z.number().nullish(),
  frequencyPenalty: z.number().nullish(),
  responseLogprobs: z.boolean().nullish(),
  logprobs: z.number().int().nullish(),
  responseModalities: z.array(z.enum(['TEXT', 'MODALITY_UNSPECIFIED'], { error: 'only TEXT output is supported' })).nullish(),
  mediaResolution: z.string().nullish(),
});
export type GenerationConfig = z.infer<typeof GenerationConfigSchema>;

const SafetySettingSchema = z.strictObject({ category: z.string(), threshold: z.string(), method: z.string().nullish() });

const generateFields = {
  contents: z.array(ContentSchema).min(1),
  systemInstruction: ContentSchema.nullish(),
  tools: z.array(ToolSchema).nullish(),
  toolConfig: ToolConfigSchema.nullish(),
  generationConfig: GenerationConfigSchema.nullish(),
  safetySettings: z.array(SafetySettingSchema).nullish(),
  labels: z.record(z.string(), z.string()).nullish(),
  serviceTier: z.string().nullish(),
  cachedContent: unsupported('cachedContent is not supported by this gateway'),
};

export const GenerateContentRequestSchema = z.strictObject(generateFields);
export type GenerateContentRequest = z.infer<typeof GenerateContentRequestSchema>;

export const CountTokensRequestSchema = z.strictObject({
  contents: z.array(ContentSchema).nullish(),
  // The full request, so system instruction and tools are counted; `model` is the path's.
  generateContentRequest: z.strictObject({ ...generateFields, model: z.string().nullish() }).nullish(),
});
export type CountTokensRequest = z.infer<typeof CountTokensRequestSchema>;

export const EmbedContentRequestSchema = z.strictObject({
  model: z.string().nullish(),
  content: z.strictObject({
    role: z.string().nullish(),
    parts: z.array(z.strictObject({ text: z.string() }, { error: 'embedding parts must be text' })).min(1),
  }),
  taskType: z.string().nullish(),
  title: z.string().nullish(),
  outputDimensionality: z.number().int().min(1).nullish(),
});
export type EmbedContentRequest = z.infer<typeof EmbedContentRequestSchema>;

export const BatchEmbedContentsRequestSchema = z.strictObject({
  requests: z.array(EmbedContentRequestSchema).min(1).max(100),
});
export type BatchEmbedContentsRequest = z.infer<typeof BatchEmbedContentsRequestSchema>;
