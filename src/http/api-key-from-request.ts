import type { FastifyRequest } from 'fastify';

/**
 * The key of a request, wherever the caller's client puts it: `Authorization: Bearer`
 * (OpenAI and most clients), `x-api-key` (Anthropic's client), `x-goog-api-key` or
 * `?key=` (Google's client).
 */
export function apiKeyFromRequest(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1];
  }
  const header = request.headers['x-api-key'] ?? request.headers['x-goog-api-key'];
  if (typeof header === 'string' && header.length > 0) return header;
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.key === 'string' ? query.key : undefined;
}
