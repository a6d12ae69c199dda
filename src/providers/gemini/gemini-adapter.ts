import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../core/model-types.ts';
import type { CallOptions, EmbeddingRequest, EmbeddingResponse, ProviderAdapter, ProviderConfig, TokenCount } from '../adapter.ts';
import { readSseBatches } from '../http/sse-events.ts';
import { postJson, postStream } from '../http/upstream-client.ts';
import { convertGenerateRequest } from './convert-generate-request.ts';
import { countGeminiTokens } from './count-tokens.ts';
import { embedWithGemini } from './embeddings.ts';
import { geminiCall, geminiModelPath } from './gemini-call.ts';
import { mapGenerateResponse } from './map-generate-response.ts';
import { mapGenerateStream } from './map-generate-stream.ts';

/** Adapter for the Gemini API (`baseUrl` like `https://generativelanguage.googleapis.com/v1beta`). */
export function createGeminiAdapter(config: ProviderConfig): ProviderAdapter {
  return {
    config,
    async generateChat(request: ModelRequest, options: CallOptions): Promise<ModelResponse> {
      const path = geminiModelPath(request.model, 'generateContent');
      const response = await postJson(config, { body: convertGenerateRequest(request), ...geminiCall(config, path, options) });
      return mapGenerateResponse(response.body, request.model);
    },
    streamChat(request: ModelRequest, options: CallOptions): AsyncIterableIterator<ModelStreamEvent> {
      const path = geminiModelPath(request.model, 'streamGenerateContent');
      // Opened by the reader on the first next(): the stream stays lazy.
      const open = async () => (await postStream(config, { query: { alt: 'sse' }, body: convertGenerateRequest(request), ...geminiCall(config, path, options) })).body;
      return mapGenerateStream(readSseBatches(open));
    },
    countTokens(request: ModelRequest, options: CallOptions): Promise<TokenCount> {
      return countGeminiTokens(config, request, options);
    },
    embed(request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResponse> {
      return embedWithGemini(config, request, options);
    },
  };
}
