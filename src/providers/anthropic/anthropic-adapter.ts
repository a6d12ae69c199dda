import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../core/model-types.ts';
import type { CallOptions, ProviderAdapter, ProviderConfig } from '../adapter.ts';
import { readSseBatches } from '../http/sse-events.ts';
import { postJson, postStream } from '../http/upstream-client.ts';
import { readAnthropicErrorMessage } from './anthropic-error.ts';
import { convertMessagesRequest } from './convert-messages-request.ts';
import { mapMessagesResponse } from './map-messages-response.ts';
import { mapMessagesStream } from './map-messages-stream.ts';

export const ANTHROPIC_VERSION = '2023-06-01';

/** Auth and versioning headers; `config.headers` (e.g. `anthropic-beta`) are added by the HTTP client. */
export function anthropicHeaders(config: ProviderConfig): Record<string, string> {
  return {
    'anthropic-version': ANTHROPIC_VERSION,
    ...(config.apiKey === undefined ? {} : { 'x-api-key': config.apiKey }),
  };
}

/** Adapter for the Anthropic Messages API (`baseUrl` like `https://api.anthropic.com/v1`). */
export function createAnthropicAdapter(config: ProviderConfig): ProviderAdapter {
  const call = (options: CallOptions) => ({
    path: '/messages',
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
  };
}
