import type { ModelRequest } from '../../core/model-types.ts';
import type { CallOptions, ProviderConfig } from '../adapter.ts';
import { postJson } from '../http/upstream-client.ts';
import { UpstreamError } from '../upstream-error.ts';
import { convertGenerateRequest } from './convert-generate-request.ts';
import { geminiCall, geminiModelPath } from './gemini-call.ts';
import { GeminiCountTokensResponseSchema } from './gemini-wire-schemas.ts';

/**
 * Asks Gemini how many input tokens a canonical request would cost. The whole request
 * goes in `generateContentRequest` (not bare `contents`) so the system instruction and
 * tool declarations are counted too.
 */
export async function countGeminiTokens(config: ProviderConfig, request: ModelRequest, options: CallOptions): Promise<{ inputTokens: number; cachedInputTokens?: number }> {
  const modelName = request.model.startsWith('models/') ? request.model : `models/${request.model}`;
  const body = { generateContentRequest: { model: modelName, ...convertGenerateRequest(request) } };
  const path = geminiModelPath(request.model, 'countTokens');
  const response = await postJson(config, { body, ...geminiCall(config, path, options) });
  const parsed = GeminiCountTokensResponseSchema.safeParse(response.body);
  if (!parsed.success) {
    throw new UpstreamError('Gemini countTokens returned an unexpected body', {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream returned an unexpected response body',
    });
  }
  const cached = parsed.data.cachedContentTokenCount ?? 0;
  return { inputTokens: parsed.data.totalTokens ?? 0, ...(cached > 0 ? { cachedInputTokens: cached } : {}) };
}
