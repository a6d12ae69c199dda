import type { JunctionError } from '../core/errors.ts';

/** Which wire family a route speaks; errors take that family's shape. */
export type ErrorFormat = 'openai' | 'anthropic' | 'google';

const ANTHROPIC_TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const GOOGLE_STATUS_BY_HTTP: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function errorBody(error: JunctionError, format: ErrorFormat): unknown {
  switch (format) {
    case 'anthropic':
      return {
        type: 'error',
        error: { type: ANTHROPIC_TYPE_BY_STATUS[error.status] ?? 'api_error', message: error.message, code: error.code },
      };
    case 'google': {
      const retryAfter = error.headers['retry-after'];
      return {
        error: {
          code: error.status,
          message: error.message,
          status: GOOGLE_STATUS_BY_HTTP[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'),
          details: [
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: error.code, domain: 'junction' },
            // Google says when to retry in the body, not in a header; Gemini clients read it here.
            ...(retryAfter === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` }]),
          ],
        },
      };
    }
    default:
      return error.toOpenAIBody();
  }
}

/** The family a URL belongs to, for errors raised before a route is matched (404, body too large). */
export function errorFormatForUrl(url: string): ErrorFormat {
  if (url.startsWith('/v1beta/')) return 'google';
  if (url === '/v1/messages' || url.startsWith('/v1/messages/') || url.startsWith('/v1/messages?')) return 'anthropic';
  return 'openai';
}
