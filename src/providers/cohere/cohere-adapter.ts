import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../core/model-types.ts';
import type { CallOptions, EmbeddingRequest, EmbeddingResponse, ProviderAdapter, ProviderConfig } from '../adapter.ts';
import { readSseBatches } from '../http/sse-events.ts';
import { postJson, postStream, type UpstreamCall } from '../http/upstream-client.ts';
import { embedWithCohere } from './cohere-embeddings.ts';
import { readCohereErrorMessage } from './cohere-error.ts';
import { convertCohereRequest } from './convert-cohere-request.ts';
import { mapCohereResponse } from './map-cohere-response.ts';
import { mapCohereStream } from './map-cohere-stream.ts';

/** The v2 chat path after the base URL (`https://api.cohere.com`). */
export const COHERE_CHAT_PATH = '/v2/chat';

/** Adapter for Cohere's v2 Chat and Embed APIs; the key goes as a bearer. */
export function createCohereAdapter(config: ProviderConfig): ProviderAdapter {
  const call = (options: CallOptions, path = COHERE_CHAT_PATH): UpstreamCall => ({
    path,
    signal: options.signal,
    headers: config.apiKey === undefined || config.apiKey === '' ? {} : { authorization: `Bearer ${config.apiKey}` },
    readErrorMessage: readCohereErrorMessage,
  });
  return {
    config,
    async generateChat(request: ModelRequest, options: CallOptions): Promise<ModelResponse> {
      const response = await postJson(config, { body: convertCohereRequest(request, false), ...call(options) });
      return mapCohereResponse(response.body, request.model);
    },
    streamChat(request: ModelRequest, options: CallOptions): AsyncIterableIterator<ModelStreamEvent> {
      // Opened by the reader on the first next(): the stream stays lazy.
      const open = async () => (await postStream(config, { body: convertCohereRequest(request, true), ...call(options) })).body;
      return mapCohereStream(readSseBatches(open), request.model);
    },
    embed(request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResponse> {
      return embedWithCohere(config, request, (path) => call(options, path));
    },
  };
}
