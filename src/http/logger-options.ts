import type { FastifyServerOptions } from 'fastify';

/** Header values and query parameters that carry secrets: never logged. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  '*.apiKey',
  '*.api_key',
  '*.key',
];

/** `?key=AIza…` (Google's client) must not reach the logs with the URL. */
export const redactUrl = (url: string): string => url.replace(/([?&]key=)[^&]*/gi, '$1[REDACTED]');

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    serializers: {
      req: (request: { method: string; url: string; ip?: string }) => ({
        method: request.method,
        url: redactUrl(request.url),
        ip: request.ip,
      }),
    },
  };
}
