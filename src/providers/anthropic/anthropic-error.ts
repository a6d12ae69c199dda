import { UpstreamError } from '../upstream-error.ts';
import { AnthropicErrorBodySchema } from './anthropic-wire-schemas.ts';

/**
 * HTTP status for each Anthropic error type. Needed for `error` events inside a 200
 * stream, where the type is all we get (an overload mid-stream must stay retryable).
 */
const STATUS_BY_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** Error-body reader for the shared HTTP client: `{type:'error', error:{type, message}}`. */
export function readAnthropicErrorMessage(body: unknown): string | undefined {
  const parsed = AnthropicErrorBodySchema.safeParse(body);
  if (!parsed.success) return undefined;
  const { type, message } = parsed.data.error;
  if (message == null) return type ?? undefined;
  return type == null ? message : `${type}: ${message}`;
}

/** An `error` event received after the stream started → UpstreamError with the type's status. */
export function anthropicStreamError(error: { type?: string | null; message?: string | null }): UpstreamError {
  const type = error.type ?? 'api_error';
  const message = error.message ?? 'Anthropic stream failed';
  const status = STATUS_BY_ERROR_TYPE[type] ?? 500;
  return new UpstreamError(`Anthropic stream error (${type}): ${message}`, { status, upstreamMessage: `${type}: ${message}` });
}
