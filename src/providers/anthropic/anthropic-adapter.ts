import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../core/model-types.ts';
import type { CallOptions, ProviderAdapter, ProviderConfig, TokenCount } from '../adapter.ts';
import { readSseBatches } from '../http/sse-events.ts';
import { postJson, postStream } from '../http/upstream-client.ts';
import { readAnthropicErrorMessage } from './anthropic-error.ts';
import { anthropicHeaders } from './anthropic-headers.ts';
import { countTokensBody, readAnthropicTokenCount } from './count-tokens.ts';
import { convertMessagesRequest } from './convert-messages-request.ts';
import { mapMessagesResponse } from './map-messages-response.ts';
import { mapMessagesStream } from './map-messages-stream.ts';

/** Adapter for the Anthropic Messages API (`baseUrl` like `https://api.anthropic.com/v1`). */
export function createAnthropicAdapter(config: ProviderConfig): ProviderAdapter {
  const call = (options: CallOptions, path = '/messages') => ({
    path,
    signal: options.signal,
    headers: anthropicHeaders(config),
    readErrorMessage: readAnthropicErrorMessage,
  });

  return {
    config,
    async generateChat(request: ModelRequest, options: CallOptions): Promise<ModelResponse> {
      const response = await postJson(config, { body: convertMessagesRequest(request), ...call(options) });
      return mapMessagesResponse(response.body);
    },
    streamChat(request: ModelRequest, options: CallOptions): AsyncIterableIterator<ModelStreamEvent> {
      // Opened by the reader on the first next(): the stream stays lazy.
      const open = async () => (await postStream(config, { body: Object.assign(convertMessagesRequest(request), { stream: true }), ...call(options) })).body;
      return mapMessagesStream(readSseBatches(open));
    },
    /** Free upstream and rate-limited apart from messages. */
    async countTokens(request: ModelRequest, options: CallOptions): Promise<TokenCount> {
      const response = await postJson(config, { body: countTokensBody(request), ...call(options, '/messages/count_tokens') });
      return readAnthropicTokenCount(response.body);
    },
  };
}
