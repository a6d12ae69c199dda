import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { CorsOrigins } from '../config/cors-origins.ts';

/**
 * Cross-origin access for browser apps calling the gateway and the Agents API with a
 * key in a header. Registered per API scope, never on the console: its session cookie
 * must stay same-origin. No credentials (cookies) are allowed cross-origin; request
 * headers are reflected in preflights (SDKs add their own, such as `x-stainless-*` or
 * `anthropic-dangerous-direct-browser-access`), and the headers clients read (request
 * id, rate limits, retry-after) are exposed.
 */
export async function registerApiCors(scope: FastifyInstance, origins: CorsOrigins | undefined): Promise<void> {
  if (!origins) return;
  await scope.register(cors, {
    origin: origins === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    credentials: false,
    exposedHeaders: [
      'x-request-id',
      'retry-after',
      'x-ratelimit-limit-requests',
      'x-ratelimit-remaining-requests',
      'x-ratelimit-reset-requests',
      'x-junction-dropped-params',
      'x-junction-provider',
      'x-junction-cache',
      'x-junction-cache-similarity',
    ],
    maxAge: 600,
  });
}
