/** Anthropic's token count (`/messages/count_tokens`, and Vertex's `count-tokens:rawPredict`): its body and its answer. */
import type { ModelRequest } from '../../core/model-types.ts';
import type { TokenCount } from '../adapter.ts';
import { UpstreamError } from '../upstream-error.ts';
import { AnthropicCountTokensResponseSchema } from './anthropic-wire-schemas.ts';
import { convertMessagesRequest } from './convert-messages-request.ts';

/** The fields count_tokens accepts; sampling fields and max_tokens are rejected there. */
const COUNT_TOKENS_FIELDS = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers'] as const;

/** The Messages body of a canonical request cut to what count_tokens takes, the model included. */
export function countTokensBody(request: ModelRequest): Record<string, unknown> {
  const full = convertMessagesRequest(request);
  const body: Record<string, unknown> = {};
  for (const field of COUNT_TOKENS_FIELDS) if (full[field] !== undefined) body[field] = full[field];
  return body;
}

export function readAnthropicTokenCount(body: unknown): TokenCount {
  const parsed = AnthropicCountTokensResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamError('Anthropic count_tokens returned an unexpected body', {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream returned an unexpected response body',
    });
  }
  return { inputTokens: parsed.data.input_tokens };
}
