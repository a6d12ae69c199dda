/**
 * An upstream call that failed. The pipeline retries the retryable ones before the
 * first byte and then maps the rest to a JunctionError (`upstream_error`).
 */
export class UpstreamError extends Error {
  readonly status: number;
  readonly retryable: boolean;
  /** Seconds the upstream asked us to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** The provider's own error message, safe to show the caller (never contains our key). */
  readonly upstreamMessage: string;
  /**
   * For status 0, why no answer came: no headers in time, or no connection at all
   * (refused, DNS, TLS). Unset when an answer started and then broke off.
   */
  readonly network: 'timeout' | 'unreachable' | undefined;

  constructor(
    message: string,
    options: {
      status: number;
      retryable?: boolean;
      retryAfterSeconds?: number;
      upstreamMessage?: string;
      network?: 'timeout' | 'unreachable';
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UpstreamError';
    this.status = options.status;
    this.retryable = options.retryable ?? isRetryableStatus(options.status);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.upstreamMessage = options.upstreamMessage ?? message;
    this.network = options.network;
  }
}

/** 408, 409 (Anthropic overload), 429, 5xx and our own timeout/network codes (0) are worth a retry. */
export const isRetryableStatus = (status: number): boolean => status === 0 || status === 408 || status === 409 || status === 429 || status >= 500;
