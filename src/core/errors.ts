/**
 * One error class and one code table. Every refusal the service makes is a
 * JunctionError; the HTTP layer maps it to a status and to the wire shape of the
 * front-end that caught it (OpenAI, Anthropic or Google).
 */

type ErrorSpec = { status: number; type: string };

export const ERROR_CODES = {
  invalid_request: { status: 400, type: 'invalid_request_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  key_expired: { status: 401, type: 'authentication_error' },
  key_disabled: { status: 401, type: 'authentication_error' },
  not_signed_in: { status: 401, type: 'authentication_error' },
  insufficient_credits: { status: 402, type: 'insufficient_quota' },
  forbidden: { status: 403, type: 'permission_error' },
  wrong_key_kind: { status: 403, type: 'permission_error' },
  key_limit_exceeded: { status: 403, type: 'insufficient_quota' },
  model_not_allowed: { status: 403, type: 'permission_error' },
  not_found: { status: 404, type: 'not_found_error' },
  model_not_found: { status: 404, type: 'not_found_error' },
  previous_response_not_found: { status: 404, type: 'not_found_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  conflict: { status: 409, type: 'invalid_request_error' },
  request_too_large: { status: 413, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  upstream_rate_limited: { status: 429, type: 'rate_limit_error' },
  client_closed_request: { status: 499, type: 'api_error' },
  internal_error: { status: 500, type: 'api_error' },
  upstream_error: { status: 502, type: 'api_error' },
  provider_not_configured: { status: 503, type: 'api_error' },
  agent_unavailable: { status: 503, type: 'api_error' },
  service_unavailable: { status: 503, type: 'api_error' },
  upstream_timeout: { status: 504, type: 'api_error' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export type JunctionErrorOptions = {
  param?: string | null;
  /** Overrides the table's status (upstream errors keep the upstream's status). */
  status?: number;
  headers?: Record<string, string>;
  cause?: unknown;
};

export class JunctionError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: JunctionErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JunctionError';
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  toOpenAIBody(): { error: { message: string; type: string; code: string; param: string | null } } {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

export const isJunctionError = (value: unknown): value is JunctionError => value instanceof JunctionError;
