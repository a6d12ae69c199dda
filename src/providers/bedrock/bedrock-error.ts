import { UpstreamError } from '../upstream-error.ts';
import { ConverseErrorBodySchema } from './bedrock-wire-schemas.ts';

/**
 * HTTP status of each Bedrock exception, for the exceptions ConverseStream sends inside a
 * 200 stream, where the type is all we get (a throttle mid-stream must stay a 429).
 * Names are matched without case: HTTP answers name them `ThrottlingException`, stream
 * frames `throttlingException`.
 */
const STATUS_BY_EXCEPTION: Record<string, number> = {
  accessdeniedexception: 403,
  unrecognizedclientexception: 403,
  invalidsignatureexception: 403,
  expiredtokenexception: 403,
  resourcenotfoundexception: 404,
  modeltimeoutexception: 408,
  validationexception: 400,
  modelerrorexception: 424,
  modelnotreadyexception: 429,
  throttlingexception: 429,
  servicequotaexceededexception: 429,
  internalserverexception: 500,
  modelstreamerrorexception: 500,
  serviceunavailableexception: 503,
};

/** Error-body reader for the shared HTTP client: Bedrock answers `{"message": "…"}` (`Message` from some front doors). */
export function readBedrockErrorMessage(body: unknown): string | undefined {
  const parsed = ConverseErrorBodySchema.safeParse(body);
  if (!parsed.success) return undefined;
  return parsed.data.message ?? parsed.data.Message ?? undefined;
}

/** An exception frame received after the stream started → UpstreamError with its type's status. */
export function bedrockStreamError(exceptionType: string, body: unknown): UpstreamError {
  const message = readBedrockErrorMessage(body) ?? 'Bedrock stream failed';
  const status = STATUS_BY_EXCEPTION[exceptionType.toLowerCase()] ?? 500;
  return new UpstreamError(`Bedrock stream error (${exceptionType}): ${message}`, { status, upstreamMessage: `${exceptionType}: ${message}` });
}
