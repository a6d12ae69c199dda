import type { FastifyServerOptions } from 'fastify';

/** Header values and query parameters that carry secrets: never logged. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  'req.headers.cookie',
  'headers.cookie',
  'res.headers["set-cookie"]',
  '*.apiKey',
  '*.api_key',
  '*.key',
];

/**
 * Query parameters that carry secrets (`?key=AIza…` from Google's client, and the
 * `api_key`, `token`, `access_token` some clients send) never reach the logs with the URL.
 */
const SECRET_QUERY = /([?&](?:key|api_key|apikey|api-key|token|access_token|auth|authorization)=)[^&#]*/gi;
export const redactUrl = (url: string): string => url.replace(SECRET_QUERY, '$1[REDACTED]');

/**
 * Readable lines for a person at a terminal (pino-pretty), JSON lines otherwise (log
 * shippers, tests, `| jq`). JUNCTION_LOG_FORMAT=json|pretty overrides the guess.
 */
function prettyTransport(): { target: string; options: Record<string, unknown> } | undefined {
  const format = process.env.JUNCTION_LOG_FORMAT;
  const pretty = format === 'pretty' || (format !== 'json' && process.stdout.isTTY === true);
  return pretty ? { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: false } } : undefined;
}

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  const transport = prettyTransport();
  return {
    level,
    ...(transport && { transport }),
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
