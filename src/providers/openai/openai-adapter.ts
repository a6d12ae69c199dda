/**
 * The adapter for OpenAI and every server that speaks its wire format (Ollama, vLLM,
 * Groq, Mistral, DeepSeek, Together, OpenRouter, Azure OpenAI): only `config` differs.
 *
 * `streamChat` is lazy: the HTTP request starts on the first `next()` (the SSE reader
 * opens it; no generator of the adapter's own wraps the mapper, a step less per event). An error thrown
 * by that first `next()` before any event came is a pre-first-byte failure, safe to
 * retry when `UpstreamError.retryable` says so; later errors are not.
 */
import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../core/model-types.ts';
import type { CallOptions, ProviderAdapter, ProviderConfig } from '../adapter.ts';
import { postJson, postStream } from '../http/upstream-client.ts';
import { readSseBatches } from '../http/sse-events.ts';
import { createSpeech, createTranscription } from './audio.ts';
import { convertChatRequest } from './convert-chat-request.ts';
import { createEmbeddings } from './embeddings.ts';
import { generateImages } from './images.ts';
import { mapChatResponse } from './map-chat-response.ts';
import { mapChatStream } from './map-chat-stream.ts';
import { moderate } from './moderations.ts';
import { openAICall } from './openai-call.ts';
import type { UpstreamCall } from '../http/upstream-client.ts';
import type { CancelSignal } from '../../core/cancel-signal.ts';

/** Where a chat call goes and how it authenticates: OpenAI's by default, Azure's for its deployments. */
export type ChatCallOf = (config: ProviderConfig, upstreamModel: string, signal: CancelSignal) => UpstreamCall;

const openAIChatCall: ChatCallOf = (config, _upstreamModel, signal) => openAICall(config, '/chat/completions', signal);

export function createOpenAIAdapter(config: ProviderConfig, chatCall: ChatCallOf = openAIChatCall): ProviderAdapter {
  const chatBody = (request: ModelRequest, stream: boolean) => convertChatRequest(request, { stream, kind: config.kind, providerId: config.id });

  return {
    config,
    streamChat(request: ModelRequest, options: CallOptions): AsyncIterableIterator<ModelStreamEvent> {
      const open = async () => (await postStream(config, { body: chatBody(request, true), ...chatCall(config, request.model, options.signal) })).body;
      return mapChatStream(readSseBatches(open));
    },
    async generateChat(request: ModelRequest, options: CallOptions): Promise<ModelResponse> {
      const response = await postJson(config, {
        body: chatBody(request, false),
        ...chatCall(config, request.model, options.signal),
      });
      return mapChatResponse(response.body, request.model);
    },
    embed: (request, options) => createEmbeddings(config, request, options),
    generateImages: (request, options) => generateImages(config, request, options),
    moderate: (request, options) => moderate(config, request, options),
    speech: (request, options) => createSpeech(config, request, options),
    transcribe: (request, options) => createTranscription(config, request, options),
  };
}
