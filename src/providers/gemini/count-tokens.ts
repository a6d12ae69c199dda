/** Gemini's token count (`:countTokens` on the Gemini API and on Vertex AI): its bodies and its answer. */
import type { ModelRequest } from '../../core/model-types.ts';
import type { CallOptions, ProviderConfig, TokenCount } from '../adapter.ts';
import { postJson } from '../http/upstream-client.ts';
import { UpstreamError } from '../upstream-error.ts';
import { convertGenerateRequest } from './convert-generate-request.ts';
import { geminiCall, geminiModelPath } from './gemini-call.ts';
import { GeminiCountTokensResponseSchema } from './gemini-wire-schemas.ts';

/**
 * Asks the Gemini API how many input tokens a canonical request would cost. The whole request
 * goes in `generateContentRequest` (not bare `contents`) so the system instruction and
 * tool declarations are counted too.
 */
export async function countGeminiTokens(config: ProviderConfig, request: ModelRequest, options: CallOptions): Promise<TokenCount> {
  const modelName = request.model.startsWith('models/') ? request.model : `models/${request.model}`;
  const body = { generateContentRequest: { model: modelName, ...convertGenerateRequest(request) } };
  const path = geminiModelPath(request.model, 'countTokens');
  const response = await postJson(config, { body, ...geminiCall(config, path, options) });
  return readGeminiTokenCount(response.body);
}

/** The fields of a generate body Vertex AI's countTokens takes beside `contents` (it refuses the rest, toolConfig and safetySettings among them). */
const VERTEX_COUNT_FIELDS = ['contents', 'systemInstruction', 'tools', 'generationConfig'] as const;

/** Vertex AI's countTokens body: the generate body's fields at the top level, cut to those it takes. */
export function vertexCountTokensBody(request: ModelRequest): Record<string, unknown> {
  const full: Record<string, unknown> = { ...convertGenerateRequest(request) };
  const body: Record<string, unknown> = {};
  for (const field of VERTEX_COUNT_FIELDS) if (full[field] !== undefined) body[field] = full[field];
  return body;
}

export function readGeminiTokenCount(body: unknown): TokenCount {
  const parsed = GeminiCountTokensResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamError('Gemini countTokens returned an unexpected body', {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream returned an unexpected response body',
    });
  }
  return { inputTokens: parsed.data.totalTokens ?? 0 };
}
