import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { JunctionError } from '../core/errors.ts';
import type { AuthenticateOptions, KeyAuthenticator } from '../keys/key-authenticator.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import { apiKeyFromRequest } from './api-key-from-request.ts';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKeyRecord | undefined;
  }
}

/** A preHandler that authenticates the request's key for one endpoint family. */
export const requireKey =
  (authenticator: KeyAuthenticator, options: AuthenticateOptions): preHandlerAsyncHookHandler =>
  async (request) => {
    request.apiKey = await authenticator.authenticate(apiKeyFromRequest(request), options);
  };

/** The key the preHandler put on the request (routes only run after it). */
export function authenticatedKey(request: FastifyRequest): ApiKeyRecord {
  if (!request.apiKey) throw new JunctionError('invalid_api_key', 'No API key was given.');
  return request.apiKey;
}
