import { estimateTextTokens } from '../../core/estimate-text-tokens.ts';
import type { CallOptions, EmbeddingRequest, EmbeddingResponse, ProviderConfig } from '../adapter.ts';
import { postJson } from '../http/upstream-client.ts';
import { UpstreamError } from '../upstream-error.ts';
import { geminiCall, geminiModelPath } from './gemini-call.ts';
import { GeminiBatchEmbedResponseSchema, GeminiEmbedContentResponseSchema } from './gemini-wire-schemas.ts';

const MAX_BATCH_SIZE = 100;

/**
 * Embeds with `:embedContent` for one input and `:batchEmbedContents` for several (one
 * round trip instead of N). `dimensions` maps to `outputDimensionality`.
 */
export async function embedWithGemini(config: ProviderConfig, request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResponse> {
  const modelName = request.model.startsWith('models/') ? request.model : `models/${request.model}`;
  const item = (text: string) => ({
    content: { parts: [{ text }] },
    ...(request.taskType === undefined ? {} : { taskType: request.taskType }),
    ...(request.dimensions === undefined ? {} : { outputDimensionality: request.dimensions }),
  });

  let embeddings: number[][];
  const [single] = request.input;
  if (request.input.length === 1 && single !== undefined) {
    const path = geminiModelPath(request.model, 'embedContent');
    const response = await postJson(config, { body: item(single), ...geminiCall(config, path, options) });
    embeddings = [parseBody(GeminiEmbedContentResponseSchema, response.body).embedding.values];
  } else {
    const path = geminiModelPath(request.model, 'batchEmbedContents');
    embeddings = [];
    // Gemini caps a batch at 100 requests; larger inputs go in sequential batches.
    for (let start = 0; start < request.input.length; start += MAX_BATCH_SIZE) {
      const batch = request.input.slice(start, start + MAX_BATCH_SIZE);
      const body = { requests: batch.map((text) => ({ model: modelName, ...item(text) })) };
      const response = await postJson(config, { body, ...geminiCall(config, path, options) });
      embeddings.push(...parseBody(GeminiBatchEmbedResponseSchema, response.body).embeddings.map((embedding) => embedding.values));
    }
  }
  if (embeddings.length !== request.input.length) {
    throw new UpstreamError(`Gemini returned ${embeddings.length} embeddings for ${request.input.length} inputs`, {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream returned the wrong number of embeddings',
    });
  }
  return { model: request.model, embeddings, usage: { inputTokens: estimateEmbeddingTokens(request.input) } };
}

/**
 * Gemini's embedding endpoints report no token usage, yet billing needs a number: an
 * estimate per input (estimateTextTokens: per script, so CJK text is not under-billed).
 * Calling countTokens instead would double the round trips.
 */
export function estimateEmbeddingTokens(input: string[]): number {
  return input.reduce((total, text) => total + estimateTextTokens(text), 0);
}

function parseBody<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new UpstreamError('Gemini returned an unexpected embedding body', {
    status: 502,
    retryable: false,
    upstreamMessage: 'upstream returned an unexpected response body',
  });
}
