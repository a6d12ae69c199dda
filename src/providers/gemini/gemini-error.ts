import { UpstreamError } from '../upstream-error.ts';
import { GeminiErrorBodySchema } from './gemini-wire-schemas.ts';

/** HTTP status for Google's canonical status names, for errors that carry no usable `code`. */
const STATUS_BY_NAME: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNKNOWN: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** Google answers errors as `{error:{code,message,status}}`, sometimes wrapped in a one-element array. */
function parseErrorBody(body: unknown) {
  const parsed = GeminiErrorBodySchema.safeParse(Array.isArray(body) ? body[0] : body);
  return parsed.success ? parsed.data.error : undefined;
}

/** Error-body reader for the shared HTTP client. */
export function readGeminiErrorMessage(body: unknown): string | undefined {
  const error = parseErrorBody(body);
  if (error?.message == null) return undefined;
  return error.status == null ? error.message : `${error.status}: ${error.message}`;
}

/** Gemini's 429 says when to retry in a RetryInfo detail (`"retryDelay": "17s"`), not in Retry-After. */
export function readGeminiRetryDelay(body: unknown): number | undefined {
  const retryInfo = parseErrorBody(body)?.details?.find((detail) => detail['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
  const match = /^(\d+(?:\.\d+)?)s$/.exec(retryInfo?.retryDelay ?? '');
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** An error object inside a 200 stream → UpstreamError; anything else → undefined. */
export function readGeminiErrorBody(body: unknown): UpstreamError | undefined {
  const error = parseErrorBody(body);
  if (error === undefined) return undefined;
  const status = error.code ?? (error.status == null ? undefined : STATUS_BY_NAME[error.status]) ?? 500;
  const message = readGeminiErrorMessage(body) ?? 'Gemini stream failed';
  return new UpstreamError(`Gemini stream error: ${message}`, { status, upstreamMessage: message });
}
