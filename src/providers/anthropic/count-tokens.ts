import type { ModelRequest } from '../../core/model-types.ts';
import type { CallOptions, ProviderConfig } from '../adapter.ts';
import { postJson } from '../http/upstream-client.ts';
import { UpstreamError } from '../upstream-error.ts';
import { anthropicHeaders } from './anthropic-adapter.ts';
import { readAnthropicErrorMessage } from './anthropic-error.ts';
import { AnthropicCountTokensResponseSchema } from './anthropic-wire-schemas.ts';
import { convertMessagesRequest } from './convert-messages-request.ts';

/** The fields /messages/count_tokens accepts; sampling fields and max_tokens are rejected there. */
const COUNT_TOKENS_FIELDS = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers'] as const;

/** Asks Anthropic how many input tokens a canonical request would cost (free, rate-limited upstream). */
export async function countAnthropicTokens(config: ProviderConfig, request: ModelRequest, options: CallOptions): Promise<{ inputTokens: number }> {
  const full = convertMessagesRequest(request);
  const body: Record<string, unknown> = {};
  for (const field of COUNT_TOKENS_FIELDS) if (full[field] !== undefined) body[field] = full[field];
  const response = await postJson(config, {
    path: '/messages/count_tokens',
    body,
    signal: options.signal,
    headers: anthropicHeaders(config),
    readErrorMessage: readAnthropicErrorMessage,
  });
  const parsed = AnthropicCountTokensResponseSchema.safeParse(response.body);
  if (!parsed.success) {
    throw new UpstreamError('Anthropic count_tokens returned an unexpected body', {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream returned an unexpected response body',
    });
  }
  return { inputTokens: parsed.data.input_tokens };
}
