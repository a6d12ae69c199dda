/**
 * One error class and one code table. Every refusal the service makes is a
 * JunctionError; the HTTP layer maps it to a status and to the wire shape of the
 * front-end that caught it (OpenAI, Anthropic or Google).
 */

/** Its HTTP status, the OpenAI-shaped error `type`, and what it means (docs/gateway.md's table is made from it). */
type ErrorSpec = { status: number; type: string; meaning: string };

export const ERROR_CODES = {
  invalid_request: { status: 400, type: 'invalid_request_error', meaning: 'The request is malformed or a field is invalid; `param` names the field.' },
  invalid_api_key: { status: 401, type: 'authentication_error', meaning: 'No key, or a key Junction does not know.' },
  key_expired: { status: 401, type: 'authentication_error', meaning: "The key's `expires_at` has passed." },
  key_disabled: { status: 401, type: 'authentication_error', meaning: 'The key was disabled or deleted.' },
  not_signed_in: { status: 401, type: 'authentication_error', meaning: 'The console needs a session (sign in).' },
  insufficient_credits: { status: 402, type: 'insufficient_quota', meaning: "The account's credit cannot cover the call's worst-case cost." },
  forbidden: { status: 403, type: 'permission_error', meaning: 'The caller may not do this (a role, a CSRF check, an operator-only setting).' },
  wrong_key_kind: { status: 403, type: 'permission_error', meaning: 'This kind of key does not reach this endpoint (model, agent and provisioning keys each have their own).' },
  key_limit_exceeded: { status: 403, type: 'insufficient_quota', meaning: 'A daily, monthly or total spend limit of the key is reached; the message names the window and when it resets.' },
  model_not_allowed: { status: 403, type: 'permission_error', meaning: "The key's allowlist or the account's plan leaves this model out." },
  not_found: { status: 404, type: 'not_found_error', meaning: "No such object for this caller (another account's objects answer this too)." },
  model_not_found: { status: 404, type: 'not_found_error', meaning: 'No such model or agent in the catalog.' },
  previous_response_not_found: { status: 404, type: 'not_found_error', meaning: 'The `previous_response_id` does not exist for this key, or was not stored.' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', meaning: 'The route exists, but not with this method.' },
  conflict: { status: 409, type: 'invalid_request_error', meaning: 'The change conflicts with the current state (a taken id, the last owner, a used link).' },
  approval_closed: { status: 409, type: 'invalid_request_error', meaning: 'An approval answer names a pause that was cancelled or that the conversation moved on from; nothing ran.' },
  request_too_large: { status: 413, type: 'invalid_request_error', meaning: 'The body or an upload is larger than the route accepts.' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error', meaning: "The body's content type is not one the route reads." },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error', meaning: "The key's `rate_limit_rpm` is reached; `Retry-After` says when to retry." },
  deployment_limits_reached: { status: 429, type: 'rate_limit_error', meaning: 'Every deployment of the model has used its `rpm` or `tpm` for this minute; `Retry-After` says when one frees.' },
  upstream_rate_limited: { status: 429, type: 'rate_limit_error', meaning: 'The provider still answered 429 after the retries; `Retry-After` carries its wait.' },
  reads_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    meaning: "The account's console and reporting reads are past 10 a second (after a burst of 20) by more than a 2 s wait; `Retry-After` says when to retry.",
  },
  client_closed_request: { status: 499, type: 'api_error', meaning: 'The client went away before the answer (logged, never sent).' },
  internal_error: { status: 500, type: 'api_error', meaning: 'A bug: the request could not be served. Logged with its request id.' },
  upstream_error: { status: 502, type: 'api_error', meaning: 'The provider failed (5xx, refused or cut the connection) after the retries and fallbacks.' },
  deployments_unavailable: { status: 503, type: 'api_error', meaning: 'Every deployment of the model is cooling down after failures; `Retry-After` says when one is tried again.' },
  provider_not_configured: { status: 503, type: 'api_error', meaning: "The model's provider has no credentials on this server." },
  agent_unavailable: { status: 503, type: 'api_error', meaning: "The agent's definition is refused (its file or stored version has problems, named in the message)." },
  service_unavailable: { status: 503, type: 'api_error', meaning: 'The database cannot be used right now, or the server is draining; `Retry-After` says when to retry.' },
  upstream_timeout: {
    status: 504,
    type: 'api_error',
    meaning:
      "No deployment answered within its timeout (`timeout_ms`, or the request's `x-junction-timeout-ms`); in a stream, the error event when a started answer stalls past `stream_idle_timeout_ms`.",
  },
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
