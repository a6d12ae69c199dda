/**
 * Mistral's chat API is OpenAI's chat completions in shape (answers, stream chunks, tool
 * calls), so answers are read by the OpenAI mappers (reasoning models' chunk lists made
 * text first: mistral-content.ts); requests differ in a few names and rules
 * (mistral-request.ts), which a bare OpenAI-compatible provider would break on.
 */
import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../core/model-types.ts';
import type { CallOptions, ProviderAdapter, ProviderConfig } from '../adapter.ts';
import { readSseBatches } from '../http/sse-events.ts';
import { postJson, postStream, type UpstreamCall } from '../http/upstream-client.ts';
import { createEmbeddings } from '../openai/embeddings.ts';
import { mapChatResponse } from '../openai/map-chat-response.ts';
import { mapChatStream } from '../openai/map-chat-stream.ts';
import { flattenMistralContent, flattenMistralStream } from './mistral-content.ts';
import { readMistralErrorMessage } from './mistral-error.ts';
import { convertMistralRequest } from './mistral-request.ts';

export function createMistralAdapter(config: ProviderConfig): ProviderAdapter {
  const call = (options: CallOptions): UpstreamCall => ({
    path: '/chat/completions',
    signal: options.signal,
    headers: config.apiKey === undefined || config.apiKey === '' ? {} : { authorization: `Bearer ${config.apiKey}` },
    readErrorMessage: readMistralErrorMessage,
  });
  return {
    config,
    async generateChat(request: ModelRequest, options: CallOptions): Promise<ModelResponse> {
      const response = await postJson(config, { body: convertMistralRequest(request, false, config.id), ...call(options) });
      return mapChatResponse(flattenMistralContent(response.body), request.model);
    },
    streamChat(request: ModelRequest, options: CallOptions): AsyncIterableIterator<ModelStreamEvent> {
      // Opened by the reader on the first next(): the stream stays lazy.
      const open = async () => (await postStream(config, { body: convertMistralRequest(request, true, config.id), ...call(options) })).body;
      return mapChatStream(flattenMistralStream(readSseBatches(open)));
    },
    embed: (request, options) => createEmbeddings(config, request, options),
  };
}
